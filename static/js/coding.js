// The reviewer's workspace: keyboard-first coding without page reloads.
// Model output is untrusted: every piece of it goes into the page with textContent.
(function () {
  "use strict";
  const root = document.getElementById("workspace");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const csrf = root.querySelector("input[name=csrfmiddlewaretoken]").value;
  const queue = root.dataset.queue;
  const filters = root.dataset.filters;
  let item = null;
  let busy = false;
  let canUndo = false;

  function withQuery(url) {
    const params = new URLSearchParams(filters);
    params.set("queue", queue);
    return url + "?" + params.toString();
  }

  function text(el, value) { el.textContent = value == null ? "" : String(value); return el; }

  function flash(message, kind) {
    const el = $("flash");
    text(el, message);
    el.className = "flash " + (kind || "");
    el.hidden = !message;
  }

  function renderProgress(data) {
    const p = data.progress;
    const el = $("progress");
    el.replaceChildren();
    const strong = document.createElement("strong");
    text(strong, p.done + " done");
    el.append(strong, " / " + p.left + " left in this queue · you have coded " + data.mine);
    el.dataset.done = p.done;
    el.dataset.left = p.left;
  }

  function renderAnswer(segments) {
    const pre = $("answer");
    pre.replaceChildren();
    for (const seg of segments) {
      if (seg.mark) {
        const mark = document.createElement("mark");
        mark.className = "hl-" + seg.mark;
        mark.title = (seg.mark === "letter" ? "letter " : "wording of option ") + seg.letter;
        text(mark, seg.text);
        pre.append(mark);
      } else {
        pre.append(document.createTextNode(seg.text));
      }
    }
    if (!segments.length) pre.append(document.createTextNode("(empty)"));
  }

  function button(letter, label) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "code-button";
    b.dataset.code = letter;
    const k = document.createElement("kbd");
    text(k, letter);
    b.append(k, " " + label);
    b.addEventListener("click", () => submit(letter));
    return b;
  }

  function render(data) {
    renderProgress(data);
    canUndo = data.can_undo;
    item = data.item;
    $("empty").hidden = !!item;
    $("item").hidden = !item;
    if (!item) return;
    text($("purpose"), item.purpose_label);
    text($("task-id"), item.task);
    text($("model"), item.model);
    text($("run"), item.run);
    text($("repeat"), item.repeat);
    text($("question-key"), item.question_key);
    text($("question"), item.question);
    const options = $("options");
    options.replaceChildren();
    for (const o of item.options) {
      const li = document.createElement("li");
      const b = document.createElement("b");
      text(b, o.letter + ". ");
      const cat = document.createElement("span");
      cat.className = "muted small";
      text(cat, o.category ? " (" + o.category + ")" : "");
      li.append(b, document.createTextNode(o.text), cat);
      options.append(li);
    }
    renderAnswer(item.answer);
    const sug = $("suggestion");
    sug.hidden = !item.suggestion;
    if (item.suggestion) {
      // The encoder's own sentence, not just its rule's name.
      text(sug, (item.suggestion.code
        ? "Automatic suggestion: " + item.suggestion.code + " (" + item.suggestion.rule + "). "
        : "The automatic encoder left this to you (" + item.suggestion.rule + "): ") + item.suggestion.reason);
    }
    const judges = $("judges");
    judges.replaceChildren();
    judges.hidden = !item.judges.length;
    for (const j of item.judges) {
      const li = document.createElement("li");
      li.dataset.reading = j.reading || "";
      text(li, j.text + (j.reading ? " (a suggestion: check it)" : ""));
      judges.append(li);
    }
    const codes = $("code-list");
    codes.replaceChildren();
    $("codes").hidden = !item.codes.length;
    for (const c of item.codes) {
      const li = document.createElement("li");
      text(li, c.code + " — " + c.source + (c.coder ? " (" + c.coder + ")" : "") + (c.rule ? " · " + c.rule : "")
        + (c.note ? " · note: " + c.note : ""));
      codes.append(li);
    }
    const buttons = $("buttons");
    buttons.replaceChildren();
    item.options.forEach((o, i) => buttons.append(button(o.letter, "or " + digitOf(i))));
    buttons.append(button("R", "refusal"));
    $("note").value = "";
    $("note-box").hidden = true;
  }

  // The n-th option (0-based) also answers to a digit: 1 … 9, and 0 for the tenth.
  function digitOf(index) { return index === 9 ? "0" : String(index + 1); }

  function letterFor(key) {
    if (!item) return null;
    if (/^[0-9]$/.test(key)) {
      const index = key === "0" ? 9 : Number(key) - 1;
      return index < item.options.length ? item.options[index].letter : null;
    }
    // Only letters that are options here, and R; other letters are the action keys or nothing.
    return key.length === 1 && item.letters.includes(key) ? key : null;
  }

  async function call(url, body) {
    if (busy) return;
    busy = true;
    try {
      const init = body ? { method: "POST", body: body, headers: { "X-CSRFToken": csrf } } : { cache: "no-store" };
      const res = await fetch(url, init);
      const data = await res.json().catch(() => ({ error: "the server answered " + res.status }));
      if (!res.ok) { flash(data.error || "the server answered " + res.status, "error"); return null; }
      render(data);
      return data;
    } catch (err) {
      flash("Could not reach the server: " + err.message, "error");
      return null;
    } finally {
      busy = false;
    }
  }

  function form(extra) {
    const body = new URLSearchParams(extra);
    body.set("queue", queue);
    return body;
  }

  async function submit(letter) {
    if (!item) return;
    if (!item.letters.includes(letter)) { flash(letter + " is not an option here", "error"); return; }
    const coded = item.task;
    const data = await call(withQuery(root.dataset.codeUrl.replace("/0/", "/" + coded + "/")),
      form({ code: letter, note: $("note").value }));
    if (data) flash("Item " + coded + " coded " + letter + ". U to undo.", "ok");
  }

  async function skip() {
    if (!item) return;
    const skipped = item.task;
    const data = await call(withQuery(root.dataset.skipUrl.replace("/0/", "/" + skipped + "/")), form({}));
    if (data) flash("Item " + skipped + " skipped.", "");
  }

  async function undo() {
    if (!canUndo) { flash("Nothing to undo.", ""); return; }
    const data = await call(withQuery(root.dataset.undoUrl), form({}));
    if (data && data.item) flash("Undone: item " + data.item.task + " is back; code it again.", "ok");
  }

  function openNote() {
    if (!item) return;
    $("note-box").hidden = false;
    $("note").focus();
  }

  $("note").addEventListener("keydown", (event) => {
    if (event.key === "Escape" || (event.key === "Enter" && !event.shiftKey)) {
      event.preventDefault();
      $("note").blur();
      if (event.key === "Escape" && !$("note").value) $("note-box").hidden = true;
    }
  });

  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT" || target.tagName === "SELECT")) return;
    const key = event.key.toUpperCase();
    if (key === "S") { event.preventDefault(); skip(); }
    else if (key === "U") { event.preventDefault(); undo(); }
    else if (key === "N") { event.preventDefault(); openNote(); }
    else if (letterFor(key)) { event.preventDefault(); submit(letterFor(key)); }
    else if (item && /^[A-Z0-9]$/.test(key)) { flash(key + " is not an option here", "error"); }
  });

  call(withQuery(root.dataset.nextUrl));
})();
