/* The run page, live: while the run may still change (queued, running, or units still
   with a worker after a cancel) it polls /runs/<id>/progress.json every 1.5 s and
   refreshes every part of the page from that one answer: the status and actions, the
   progress block, the per-model table, the times, Errors and Latest answers.
   Values are only ever written with textContent: nothing from the server becomes HTML. */
(function () {
  "use strict";

  var box = document.getElementById("run-progress");
  if (!box || !window.fetch) { return; }

  var INTERVAL = 1500;
  var MAX_FAILURES = 5;
  var url = box.getAttribute("data-url");
  var failures = 0;
  var timer = null;

  if (box.getAttribute("data-active") !== "true") { return; }

  function show(selector, visible) {
    var el = document.querySelector(selector);
    if (el) { el.hidden = !visible; }
  }

  function formatInt(value) {
    return Number(value).toLocaleString("en-GB");
  }

  function format(value, kind, empty) {
    if (value === null || value === undefined || value === "") { return empty === null ? "\u2014" : empty; }
    if (kind === "int") { return formatInt(value); }
    if (kind === "cost") { return "US$ " + Number(value).toFixed(4); }
    if (kind === "ms") { return formatInt(Math.round(value)) + " ms"; }
    if (kind === "pct") { return Number(value).toFixed(1); }  // as the page prints it: 100.0, 33.3
    return String(value);
  }

  /* Fill the [data-field] and [data-bar] elements of `scope` (the page, or one row of
     the per-model table) from the matching keys of `data`. */
  function fill(scope, data, skip) {
    var fields = scope.querySelectorAll("[data-field]");
    for (var i = 0; i < fields.length; i++) {
      var el = fields[i];
      if (skip && skip(el)) { continue; }
      var name = el.getAttribute("data-field");
      if (Object.prototype.hasOwnProperty.call(data, name)) {
        el.textContent = format(data[name], el.getAttribute("data-format"), el.getAttribute("data-empty"));
        if (el.hasAttribute("data-hide-empty")) { el.hidden = !data[name]; }
        if (el.hasAttribute("data-flag-nonzero")) { el.parentNode.classList.toggle("nonzero", data[name] > 0); }
      }
    }
    var bars = scope.querySelectorAll("[data-bar]");
    for (var j = 0; j < bars.length; j++) {
      if (skip && skip(bars[j])) { continue; }
      var share = data.bar ? data.bar[bars[j].getAttribute("data-bar")] : null;
      if (typeof share === "number") { bars[j].style.width = share + "%"; }
    }
  }

  function inModelRow(el) { return el.closest("tr[data-model]") !== null; }

  function fillModels(models) {
    var rows = document.querySelectorAll("tr[data-model]");
    var byName = {};
    for (var i = 0; i < (models || []).length; i++) { byName[models[i].name] = models[i]; }
    for (var j = 0; j < rows.length; j++) {
      var data = byName[rows[j].getAttribute("data-model")];
      if (data) { fill(rows[j], data); }
    }
  }

  function cell(tr, text, className) {
    var td = document.createElement("td");
    if (className) { td.className = className; }
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  /* A model's name, linked to its profile where the page says where profiles are (the
     reader may read them): the name as text, the URL's MODEL replaced by the encoded name. */
  var profileUrl = box.getAttribute("data-profile-url");

  function modelCell(tr, name) {
    var td = cell(tr, profileUrl ? "" : name, "model-name");
    if (profileUrl) {
      var link = document.createElement("a");
      link.className = "model-link";
      link.href = profileUrl.replace("MODEL", encodeURIComponent(name));
      link.textContent = name;
      td.appendChild(link);
    }
    return td;
  }

  function codeCell(tr, text) {
    var td = cell(tr, "", "untrusted");
    var code = document.createElement("code");
    code.textContent = text;
    td.appendChild(code);
  }

  var answerUrl = box.getAttribute("data-answer-url");  // /answers/0/ for readers of answers

  function latestRow(r) {
    var tr = document.createElement("tr");
    if (answerUrl && r.id) {
      var link = document.createElement("a");
      link.href = answerUrl.replace("/0/", "/" + encodeURIComponent(r.id) + "/");
      link.textContent = r.question;
      cell(tr, "", "key").appendChild(link);
    } else {
      cell(tr, r.question, "key");
    }
    modelCell(tr, r.model);
    cell(tr, String(r.repeat), "num");
    var status = cell(tr, "");
    var badge = document.createElement("span");
    badge.className = "status status-" + r.status;
    badge.textContent = r.status_label;
    status.appendChild(badge);
    cell(tr, r.letter || "\u2014", "letter");
    codeCell(tr, r.output);
    cell(tr, format(r.latency_ms, "ms", null), "num nowrap");
    if (r.cache_hit) { cell(tr, "hit"); } else { cell(tr, "\u2014").className = "muted"; }
    return tr;
  }

  function errorRow(e) {
    var tr = document.createElement("tr");
    modelCell(tr, e.model);
    cell(tr, e.kind_label, "nowrap");
    cell(tr, e.status_label);
    cell(tr, String(e.n), "num");
    codeCell(tr, e.example);
    return tr;
  }

  function batchRow(b) {
    var tr = document.createElement("tr");
    var id = cell(tr, String(b.id), "nowrap");
    if (b.provider_batch_id) {
      var remote = document.createElement("span");
      remote.className = "muted small";
      remote.textContent = " " + b.provider_batch_id;
      id.appendChild(remote);
    }
    modelCell(tr, b.model);
    cell(tr, b.status_label);
    cell(tr, String(b.size), "num");
    ["completed", "failed", "written", "returned"].forEach(function (name) {
      cell(tr, b[name] === null || b[name] === undefined ? "\u2014" : String(b[name]), "num");
    });
    ["submitted_at", "polled_at", "finished_at"].forEach(function (name) {
      cell(tr, b[name] || "\u2014", "nowrap small");
    });
    cell(tr, b.message || "", "untrusted small");
    return tr;
  }

  /* Replace the rows of a section's table; show the table or its empty note. */
  function fillRows(name, rows, makeRow) {
    var body = document.querySelector("[data-rows=" + name + "]");
    if (!body) { return; }
    var fresh = document.createDocumentFragment();
    for (var i = 0; i < rows.length; i++) { fresh.appendChild(makeRow(rows[i])); }
    body.replaceChildren(fresh);
    var section = body.closest("section");
    body.closest("table").hidden = rows.length === 0;
    var withRows = section.querySelectorAll("[data-when-rows]");
    for (var j = 0; j < withRows.length; j++) { withRows[j].hidden = rows.length === 0; }
    var empty = section.querySelector("[data-when-empty]");
    if (empty) { empty.hidden = rows.length > 0; }
  }

  function setStatus(data) {
    box.setAttribute("data-status", data.status);
    box.setAttribute("data-active", data.active ? "true" : "false");
    var badge = document.querySelector("[data-status-badge]");
    if (badge) {
      badge.textContent = data.status_label;
      badge.className = "status status-" + data.status;
    }
    var cancel = document.querySelector("[data-action=cancel]");
    if (cancel) { cancel.hidden = !data.can_cancel; }
    var resume = document.querySelector("[data-action=resume]");
    if (resume) { resume.hidden = !data.can_resume; }
    show("[data-so-far]", data.active);
  }

  function stop() {
    if (timer) { clearTimeout(timer); timer = null; }
    show("[data-live]", false);
  }

  function schedule() {
    timer = setTimeout(poll, INTERVAL);
  }

  function poll() {
    if (document.hidden) { schedule(); return; }  // no requests from a background tab
    fetch(url, { credentials: "same-origin", cache: "no-store", headers: { "Accept": "application/json" } })
      .then(function (response) {
        var type = response.headers.get("Content-Type") || "";
        if (!response.ok || type.indexOf("application/json") !== 0) {
          throw new Error("progress: HTTP " + response.status);
        }
        return response.json();
      })
      .then(function (data) {
        failures = 0;
        fill(document, data, inModelRow);
        fillModels(data.models);
        fillRows("latest", data.latest || [], latestRow);
        fillRows("errors", data.errors || [], errorRow);
        fillRows("batches", data.batches || [], batchRow);
        setStatus(data);
        if (data.active) { schedule(); } else { stop(); }
      })
      .catch(function () {
        failures += 1;
        if (failures >= MAX_FAILURES) {
          stop();
          show("[data-stalled-note]", true);
        } else {
          schedule();
        }
      });
  }

  show("[data-live]", true);
  schedule();
})();
