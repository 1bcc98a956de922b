// The reviewer's workspace: keyboard-first coding without page reloads.
// Model output is untrusted: every piece of it goes into the page with textContent.
//
// Keys pressed while a save is on its way are queued, shown ("saving… 3 keys queued"),
// and applied in the order pressed once the save answers: each to the item on screen
// then (a letter or digit is read against that item's options). A refused save drops
// the keys still queued and says which, so none is applied to an item never seen.
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
  const queued = [];  // keys pressed while busy, oldest first
  let notePaused = false;  // a queued N opened the note: the rest wait until it closes

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

  // The queue's items by whose they are, each number with its words ("7 coded by you ·
  // 1 you skipped · 2 second codes of answers you coded waiting for another reviewer"):
  // a bare "done / left" once counted items the reviewer could never take.
  function renderProgress(data) {
    const p = data.progress;
    const counts = data.counts;
    const el = $("progress");
    el.replaceChildren();
    counts.parts.forEach((part, i) => {
      const span = document.createElement(i === 0 ? "strong" : "span");
      span.dataset.part = part.key;
      text(span, part.text);
      if (i) el.append(" · ");
      el.append(span);
    });
    el.dataset.done = p.done;
    el.dataset.left = p.left;
    el.dataset.available = counts.available;
    text($("empty-reason"), counts.empty_reason);
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
    b.addEventListener("click", () => press(letter));
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
    text($("question-language"), "asked in " + item.language + (item.direction === "rtl" ? " · right to left" : ""));
    // The question, its options and the answer are in the question's language: lang picks
    // the font (CJK, Arabic) and dir the writing direction (Arabic, Hebrew right to left).
    for (const id of ["question", "options", "answer"]) {
      $(id).lang = item.language;
      $(id).dir = item.direction;
    }
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
    buttons.append(button("X", "invalid (no option, no refusal)"));
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
    busy = true;
    showQueue();
    try {
      const init = body ? { method: "POST", body: body, headers: { "X-CSRFToken": csrf } } : { cache: "no-store" };
      const res = await fetch(url, init);
      const data = await res.json().catch(() => ({ error: "the server answered " + res.status }));
      if (!res.ok) {
        // A refusal that carries the page's state (the item was dealt with in another
        // tab) moves the page on to what is true now.
        if (data.progress) render(data);
        flash(data.error || "the server answered " + res.status, "error");
        dropQueued();
        return null;
      }
      render(data);
      return data;
    } catch (err) {
      flash("Could not reach the server: " + err.message, "error");
      dropQueued();
      return null;
    } finally {
      busy = false;
      showQueue();
    }
  }

  // ---- the queue of keys pressed during a save
  function showQueue() {
    // Always in the page (no layout shift); empty when idle.
    const el = $("queue-state");
    const active = busy || queued.length > 0;
    el.classList.toggle("active", active);
    el.dataset.queued = queued.length;
    if (!active) { text(el, ""); return; }
    const keys = queued.length ? " · " + queued.length + (queued.length === 1 ? " key" : " keys") + " queued: "
      + queued.join(" ") : "";
    text(el, (busy ? "saving…" : "applying…") + keys);
  }

  function dropQueued() {
    if (!queued.length) return;
    const dropped = queued.splice(0);
    const el = $("flash");
    el.append(" · " + dropped.length + (dropped.length === 1 ? " queued key" : " queued keys") + " not applied: "
      + dropped.join(" ") + ". Check the item on screen, then press them again.");
  }

  function press(key) {
    if (busy || notePaused || queued.length) { queued.push(key); showQueue(); return; }
    act(key);
  }

  // After each answer from the server, the next queued key (if any) is applied.
  async function act(key) {
    if (key === "S") await skip();
    else if (key === "U") await undo();
    else if (key === "N") { openNote(true); return; }
    else if (key === "?") { toggleHelp(); }
    else if (letterFor(key)) await submit(letterFor(key));
    else {
      flash(item ? key + " is not an option here (" + item.letters.split("").join(", ") + ")"
        : key + ": nothing to code here", "error");
      dropQueued();  // the keys after it were meant for items it would have moved past
    }
    drain();
  }

  function drain() {
    showQueue();
    if (busy || notePaused || !queued.length) return;
    act(queued.shift());
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
    // A code may add an item (a blind second code, an adjudication): say so, since the
    // counts move by it.
    if (data) flash(["Item " + coded + " coded " + letter + ". U to undo."].concat(
      (data.added || []).map((a) => a.text)).join(" "), "ok");
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

  function openNote(fromQueue) {
    if (!item) return;
    $("note-box").hidden = false;
    notePaused = !!fromQueue;
    $("note").focus();
  }

  $("note").addEventListener("keydown", (event) => {
    if (event.key === "Escape" || (event.key === "Enter" && !event.shiftKey)) {
      event.preventDefault();
      $("note").blur();
      if (event.key === "Escape" && !$("note").value) $("note-box").hidden = true;
    }
  });
  $("note").addEventListener("blur", () => { if (notePaused) { notePaused = false; drain(); } });

  // ---- the shortcut overlay (?)
  const help = $("shortcuts");
  function toggleHelp(open) {
    const show = open === undefined ? help.hidden : open;
    help.hidden = !show;
    if (show) $("shortcuts-close").focus();
  }
  $("shortcuts-close").addEventListener("click", () => toggleHelp(false));
  $("shortcuts-open").addEventListener("click", () => toggleHelp(true));

  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT" || target.tagName === "SELECT")) return;
    if (!help.hidden) {
      // The overlay is open: ? or Esc close it; other keys do nothing behind it.
      if (event.key === "?" || event.key === "Escape") { event.preventDefault(); toggleHelp(false); }
      return;
    }
    if (event.key === "?") { event.preventDefault(); toggleHelp(true); return; }
    const key = event.key.toUpperCase();
    if (!/^[A-Z0-9]$/.test(key)) return;
    if (event.repeat) { event.preventDefault(); return; }  // a key held down codes once, not a run of items
    event.preventDefault();
    press(key);
  });

  // ---- another tab of the same reviewer: a light poll of the queue's status (changes
  // nothing) every few seconds, so this tab learns of the other one's code or skip and
  // moves on by itself, and the counts stay true. A tab shown again asks at once (the
  // browser slows the timers of hidden tabs).
  const POLL_MS = 2500;
  let pollTimer = null;

  function schedulePoll(ms) {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, ms);
  }

  function idle() {
    return !busy && !queued.length && !notePaused && help.hidden && document.activeElement !== $("note");
  }

  let polling = false;  // one poll at a time (a tab shown again asks at once)

  async function poll() {
    if (polling) return;  // the one under way schedules the next
    polling = true;
    try {
      if (!idle()) return;
      const params = new URLSearchParams(filters);
      params.set("queue", queue);
      const shownTask = item ? item.task : null;
      if (shownTask) params.set("task", shownTask);
      const res = await fetch(root.dataset.statusUrl + "?" + params.toString(), { cache: "no-store" });
      if (!res.ok) return;
      const data = await res.json();
      // A key pressed meanwhile has its own answer coming: that one tells the truth.
      if (!idle() || (item ? item.task : null) !== shownTask) return;
      renderProgress(data);
      canUndo = data.can_undo;
      const shown = data.shown;
      if (shownTask && shown && shown.state !== "yours" && shown.state !== "lapsed") {
        busy = true;
        const moved = await call(withQuery(root.dataset.nextUrl));
        if (moved) flash(shown.message, "");
        drain();
      } else if (!shownTask && data.counts.available > 0) {
        busy = true;
        const moved = await call(withQuery(root.dataset.nextUrl));
        if (moved && moved.item) flash("A new item is here for you: item " + moved.item.task + ".", "");
        drain();
      }
    } catch (err) {
      // The next poll tries again; a key press reports an unreachable server itself.
    } finally {
      polling = false;
      schedulePoll(POLL_MS);
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") schedulePoll(0);
  });

  busy = true;
  call(withQuery(root.dataset.nextUrl)).then(drain).then(() => schedulePoll(POLL_MS));
})();
