// Draw each panel's plotly figure from the JSON the server put beside it, and mark in the
// contents bar the panel being read (its anchor is in the URL when a link was followed).
(function () {
  "use strict";
  for (const el of document.querySelectorAll("[data-figure]")) {
    const source = document.getElementById(el.dataset.figure);
    if (!source || !window.Plotly) continue;
    const figure = JSON.parse(source.textContent);
    window.Plotly.newPlot(el, figure.data || [], figure.layout || {}, { responsive: true, displaylogo: false });
    el.dataset.drawn = "1";
  }
  // Charts change the page's height as they draw: go to the panel in the URL again.
  if (location.hash) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) target.scrollIntoView();
  }
  const links = document.querySelectorAll("nav.contents a[data-anchor]");
  if (!links.length || !("IntersectionObserver" in window)) return;
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const anchor = entry.target.querySelector("h2[id]").id;
      for (const link of links) link.setAttribute("aria-current", String(link.dataset.anchor === anchor));
    }
  }, { rootMargin: "-20% 0px -70% 0px" });
  for (const section of document.querySelectorAll(".chart-panel")) observer.observe(section);
})();
