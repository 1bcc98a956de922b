// Draw each panel's plotly figure from the JSON the server put beside it.
(function () {
  "use strict";
  for (const el of document.querySelectorAll("[data-figure]")) {
    const source = document.getElementById(el.dataset.figure);
    if (!source || !window.Plotly) continue;
    const figure = JSON.parse(source.textContent);
    window.Plotly.newPlot(el, figure.data || [], figure.layout || {}, { responsive: true, displaylogo: false });
    el.dataset.drawn = "1";
  }
})();
