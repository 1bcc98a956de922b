/* A model's connection test, live: while it is queued or running, poll its state every
   1.5 s, show the step and the requests done (textContent only), and reload the page
   once it has ended so that the findings table is drawn by the server. */
(function () {
  "use strict";

  var box = document.getElementById("connection-job");
  if (!box || !window.fetch || box.getAttribute("data-active") !== "true") { return; }
  var url = box.getAttribute("data-url");
  var failures = 0;

  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (answer) { if (!answer.ok) { throw new Error(answer.status); } return answer.json(); })
      .then(function (job) {
        failures = 0;
        if (!job.active) { window.location.reload(); return; }
        var step = box.querySelector("[data-connection=step]");
        var done = box.querySelector("[data-connection=done]");
        var bar = box.querySelector("[data-connection-bar]");
        if (step) { step.textContent = job.step || "waiting for a worker"; }
        if (done) { done.textContent = String(Math.min(job.done + 1, job.total)); }
        if (bar && job.total) { bar.style.width = Math.round(100 * job.done / job.total) + "%"; }
        window.setTimeout(poll, 1500);
      })
      .catch(function () { failures += 1; if (failures < 5) { window.setTimeout(poll, 3000); } });
  }

  window.setTimeout(poll, 1500);
})();
