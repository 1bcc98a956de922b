/* Live progress of a run: polls /runs/<id>/progress.json every 1.5 s while the run is
   queued or running, and fills the progress block and the per-model table.
   Values are only ever written with textContent: nothing from the server becomes HTML. */
(function () {
  "use strict";

  var box = document.getElementById("run-progress");
  if (!box || !window.fetch) { return; }

  var INTERVAL = 1500;
  var MAX_FAILURES = 5;
  var ACTIVE = { queued: true, running: true };
  var url = box.getAttribute("data-url");
  var failures = 0;
  var timer = null;

  if (!ACTIVE[box.getAttribute("data-status")]) { return; }

  function show(selector, visible) {
    var el = document.querySelector(selector);
    if (el) { el.hidden = !visible; }
  }

  function formatInt(value) {
    return Number(value).toLocaleString("en-GB");
  }

  function format(value, kind) {
    if (value === null || value === undefined) { return "\u2014"; }
    if (kind === "int") { return formatInt(value); }
    if (kind === "cost") { return "US$ " + Number(value).toFixed(4); }
    if (kind === "ms") { return formatInt(Math.round(value)) + " ms"; }
    return String(value);
  }

  /* Fill the [data-field] and [data-bar] elements of `scope` (the progress block, or
     one row of the per-model table) from the matching keys of `data`. */
  function fill(scope, data) {
    var fields = scope.querySelectorAll("[data-field]");
    for (var i = 0; i < fields.length; i++) {
      var el = fields[i];
      var name = el.getAttribute("data-field");
      if (Object.prototype.hasOwnProperty.call(data, name)) {
        el.textContent = format(data[name], el.getAttribute("data-format"));
        if (el.hasAttribute("data-flag-nonzero")) { el.parentNode.classList.toggle("nonzero", data[name] > 0); }
      }
    }
    var bars = scope.querySelectorAll("[data-bar]");
    for (var j = 0; j < bars.length; j++) {
      var share = data.bar ? data.bar[bars[j].getAttribute("data-bar")] : null;
      if (typeof share === "number") { bars[j].style.width = share + "%"; }
    }
  }

  function fillModels(models) {
    var rows = document.querySelectorAll("tr[data-model]");
    var byName = {};
    for (var i = 0; i < (models || []).length; i++) { byName[models[i].name] = models[i]; }
    for (var j = 0; j < rows.length; j++) {
      var data = byName[rows[j].getAttribute("data-model")];
      if (data) { fill(rows[j], data); }
    }
  }

  function setStatus(data) {
    box.setAttribute("data-status", data.status);
    var badge = document.querySelector("[data-status-badge]");
    if (badge) {
      badge.textContent = data.status_label;
      badge.className = "status status-" + data.status;
    }
  }

  function stop() {
    if (timer) { clearTimeout(timer); timer = null; }
    show("[data-live]", false);
  }

  function finished() {
    stop();
    var actions = document.querySelectorAll("[data-while-active]");
    for (var i = 0; i < actions.length; i++) { actions[i].hidden = true; }
    show("[data-finished-note]", true);
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
        fill(box, data);
        fillModels(data.models);
        setStatus(data);
        if (ACTIVE[data.status]) { schedule(); } else { finished(); }
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
