/* A report's page while the worker makes it: polls status.json every second and says
   what the worker is doing (step i of n), then shows the download link, or the error.
   Values are only ever written with textContent: nothing from the server becomes HTML. */
(function () {
  "use strict";

  var box = document.getElementById("report-export");
  if (!box || !window.fetch) { return; }
  var status = box.getAttribute("data-status");
  if (status !== "pending" && status !== "running") { return; }
  var url = box.getAttribute("data-url");
  var failures = 0;

  function text(id, value) { document.getElementById(id).textContent = value; }

  function show(data) {
    var bar = document.getElementById("export-progress");
    text("export-state", {pending: "Queued", running: "Working", done: "Ready", failed: "Failed"}[data.status]);
    text("export-step", data.status === "failed" ? data.error : data.step);
    text("export-count", data.total ? "(step " + data.done + " of " + data.total + ")" : "");
    bar.max = data.total || 1;
    bar.value = data.done;
    bar.hidden = data.status === "done" || data.status === "failed";
    document.getElementById("export-no-worker").hidden = !data.no_worker;
    if (data.status === "done") {
      text("export-size", data.size_text);
      document.getElementById("export-done").hidden = false;
    }
    box.setAttribute("data-status", data.status);
    return data.status === "pending" || data.status === "running";
  }

  function poll() {
    fetch(url, {headers: {"Accept": "application/json"}, credentials: "same-origin"})
      .then(function (response) { if (!response.ok) { throw new Error(response.status); } return response.json(); })
      .then(function (data) { failures = 0; if (show(data)) { setTimeout(poll, 1000); } })
      .catch(function () { failures += 1; if (failures < 5) { setTimeout(poll, 2000); } });
  }
  setTimeout(poll, 1000);
})();
