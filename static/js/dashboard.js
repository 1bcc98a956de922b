// Draw each panel's plotly figure from the JSON the server put beside it, and mark in the
// contents bar the panel being read (its anchor is in the URL when a link was followed).
(function () {
  "use strict";
  // Figures the worker is still computing: ask every 2 s how many are left, and reload
  // the page (which then shows them) when none is. A page showing older figures meanwhile
  // (data-then="notice") says newer ones are ready instead of reloading under the reader.
  const waiting = document.getElementById("figures-waiting");
  if (waiting) {
    const ready = () => {
      const notice = document.getElementById("figures-ready");
      if (waiting.dataset.then === "notice" && notice) notice.hidden = false;
      else location.reload();
    };
    const poll = () => fetch(waiting.dataset.statusUrl, { credentials: "same-origin" })
      .then((r) => r.json())
      .then((body) => { if (body.pending === 0) ready(); else setTimeout(poll, 2000); })
      .catch(() => setTimeout(poll, 5000));
    setTimeout(poll, 1500);
  }
  // Plotly cuts a title line at the figure's edge: the server breaks long ones for a wide
  // chart (analysis_app/chart_text.py); a narrower one (a phone) breaks them again, at
  // spaces, for its own width. Only titles that make their own room (automargin) and
  // x-axis titles (which always do here) are touched.
  function breakLines(text, chars) {
    return String(text).split(/<br\s*\/?>/i).map((line) => {
      if (line.length <= chars) return line;
      const lines = [];
      let current = "";
      for (const word of line.split(" ")) {
        if (current && (current + " " + word).length > chars) { lines.push(current); current = word; }
        else current = current ? current + " " + word : word;
      }
      if (current) lines.push(current);
      return lines.join("<br>");
    }).join("<br>");
  }
  // A y tick label broken at its " · " (the parts of a category: action · domain ·
  // category), a part longer than a line at spaces.
  function breakLabel(text, chars) {
    return String(text).split(/<br\s*\/?>/i).map((line) => {
      if (line.length <= chars) return line;
      const parts = line.split(" · ");
      const lines = [];
      let current = "";
      parts.forEach((part, i) => {
        const piece = i < parts.length - 1 ? part + " ·" : part;
        if (current && (current + " " + piece).length > chars) { lines.push(current); current = piece; }
        else current = current ? current + " " + piece : piece;
      });
      if (current) lines.push(current);
      return lines.map((part) => breakLines(part, chars)).join("<br>");
    }).join("<br>");
  }
  // Returns whether the title is one refit places (one at the figure's top making its own
  // room: analysis_app/chart_text.py), taking it from plotly's automargin, which moves a
  // title of several lines by a line or more as the margin it pushes comes and goes (its
  // first line passed the figure's top, and each taller margin moved it again).
  function fitTitles(layout, width) {
    const title = layout.title;
    const placed = Boolean(title && title.automargin && title.text && title.yref === "container");
    if (placed) title.automargin = false;
    if (!width) return placed;
    if (placed) {
      title.text = breakLines(title.text, Math.max(16, Math.floor((width - 30) / ((title.font || {}).size || 14) * 1.9)));
      const subtitle = title.subtitle;
      if (subtitle && subtitle.text) {
        subtitle.text = breakLines(subtitle.text,
          Math.max(16, Math.floor((width - 30) / ((subtitle.font || {}).size || 12) * 1.9)));
      }
    }
    const axis = layout.xaxis && layout.xaxis.title;
    if (axis && axis.text) {
      axis.text = breakLines(axis.text, Math.max(16, Math.floor((width - 60) / ((axis.font || {}).size || 14) * 1.9)));
    }
    return placed;
  }
  // Then, drawn, a title still past the figure's edge is broken shorter, in proportion
  // (the x-axis title is centred on the plotting area, which long labels push right: it
  // loses twice what passes the edge).
  function beyond(el, text) {
    const svg = el.querySelector(".main-svg");
    if (!svg || !text) return 0;
    const s = svg.getBoundingClientRect();
    const r = text.getBoundingClientRect();
    return Math.max(0, s.left - r.left, r.right - s.right);
  }
  const TITLE_TOP = 8; // px between the figure's top and its title's
  async function refit(el, placed) {
    let broken = false; // the y tick labels, by refit (a figure's own are left alone)
    for (let round = 0; round < 4; round++) {
      const layout = el.layout || {};
      const changes = {};
      const own = placed ? layout.title : null;
      const titles = [[".gtitle", "title.text", own, 1],
                      [".gtitle-subtitle", "title.subtitle.text", own && own.subtitle, 1],
                      [".xtitle", "xaxis.title.text", layout.xaxis && layout.xaxis.title, 2]];
      for (const [selector, path, title, sides] of titles) {
        const text = el.querySelector(selector);
        const over = title && title.text ? beyond(el, text) : 0;
        if (!over) continue;
        const width = text.getBoundingClientRect().width;
        const longest = Math.max(...String(title.text).split(/<br\s*\/?>/i).map((line) => line.length));
        changes[path] = breakLines(title.text, Math.max(8, Math.floor(longest * (width - sides * over) / width) - 1));
      }
      // A placed title's top is brought TITLE_TOP below the figure's (plotly sets the
      // baseline of a title's first line where it sets the top of a one-line title), and
      // whatever lies under it (the plot, a legend, a colour bar) is moved down by the
      // room it lacks, the figure growing as much so that the plot keeps its height. The
      // title moves with neither the margin nor the figure's height: once is enough (one
      // anchored to the plot moved down with each taller margin, and at 390 px about
      // 100 px lay blank above it, issue 38).
      const size = el._fullLayout && el._fullLayout._size;
      const svg = el.querySelector(".main-svg");
      const title = placed && svg ? Array.from(el.querySelectorAll(".gtitle, .gtitle-subtitle"))
        .map((text) => text.getBoundingClientRect()).filter((r) => r.height) : [];
      if (title.length && size) {
        const frame = svg.getBoundingClientRect();
        const shift = TITLE_TOP - (Math.min(...title.map((r) => r.top)) - frame.top);
        if (Math.abs(shift) > 1) changes["title.pad.t"] = Math.max(0, ((own.pad || {}).t || 0) + Math.round(shift));
        const left = Math.min(...title.map((r) => r.left));
        const right = Math.max(...title.map((r) => r.right));
        const under = Array.from(el.querySelectorAll(".legend .bg, .colorbar .cbbg"))
          .map((box) => box.getBoundingClientRect()).filter((r) => r.height && r.left < right && left < r.right)
          .map((r) => r.top);
        const need = Math.max(...title.map((r) => r.bottom)) + shift + 6 - Math.min(frame.top + size.t, ...under);
        if (need > 0.5) {
          changes["margin.t"] = size.t + Math.ceil(need);
          changes.height = el._fullLayout.height + Math.ceil(need);
        }
      }
      // A y-axis title is centred on the plot's height and never broken: one longer than
      // the plot is tall passed the plot's top and reached the title (the validation page's
      // chart at 390 px, its turned x labels taking the height). The figure grows until
      // the plot is as tall as its y-axis title.
      const ytitle = el.querySelector(".ytitle");
      const along = ytitle ? ytitle.getBoundingClientRect().height : 0;
      if (size && along > size.h - 2) {
        changes.height = (changes.height || el._fullLayout.height) + Math.ceil(along - size.h + 12);
      }
      // Long y tick labels (a codified action · its domain · its category) passed the
      // figure's left edge on a phone: plotly gives an axis's labels at most the figure's
      // width less 64 px, and never breaks one. Labels wider than half the figure are
      // broken at " · " (then at spaces) into lines that fit it, and the rows get the
      // height their lines need.
      const yaxis = el._fullLayout && el._fullLayout.yaxis;
      const ticks = Array.from(el.querySelectorAll(".ytick text")).map((text) => text.getBoundingClientRect().width);
      if (svg && yaxis && yaxis.type === "category" && yaxis._categories && ticks.length
          && (broken || !(layout.yaxis || {}).tickvals)) {
        const room = svg.getBoundingClientRect().width / 2;
        const widest = Math.max(...ticks);
        if (widest > room) {
          const categories = yaxis._categories.slice();
          const shown = (layout.yaxis || {}).ticktext || categories;
          const longest = Math.max(...shown.map((label) => Math.max(...String(label).split(/<br\s*\/?>/i)
            .map((line) => line.length))));
          const chars = Math.max(8, Math.floor(longest * room / widest));
          const labels = shown.map((label) => breakLabel(label, chars));
          changes["yaxis.tickmode"] = "array";
          changes["yaxis.tickvals"] = categories;
          changes["yaxis.ticktext"] = labels;
          broken = true;
          const lines = Math.max(...labels.map((label) => label.split("<br>").length));
          const pitch = size.h / categories.length;
          const needed = lines * (((yaxis.tickfont || {}).size) || 12) * 1.3 + 6;
          if (pitch < needed) {
            const grown = Math.ceil((needed - pitch) * categories.length);
            changes.height = (changes.height || el._fullLayout.height) + grown;
          }
        }
      }
      if (!Object.keys(changes).length) break;
      await window.Plotly.relayout(el, changes);
    }
    el.dataset.fitted = "1";
  }
  for (const el of document.querySelectorAll("[data-figure]")) {
    const source = document.getElementById(el.dataset.figure);
    if (!source || !window.Plotly) continue;
    const figure = JSON.parse(source.textContent);
    const placed = fitTitles(figure.layout || {}, el.clientWidth);
    const config = { responsive: true, displaylogo: false };
    // Maps read their country shapes from this site (static/topojson), never from a CDN.
    if (el.dataset.topojson) config.topojsonURL = el.dataset.topojson;
    Promise.resolve(window.Plotly.newPlot(el, figure.data || [], figure.layout || {}, config))
      .then(() => refit(el, placed)).catch(() => { el.dataset.fitted = "1"; });
    el.dataset.drawn = "1";
  }
  // Charts change the page's height as they draw: go to the panel in the URL again.
  if (location.hash) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) target.scrollIntoView();
  }
  const links = document.querySelectorAll("nav.contents a[data-anchor]");
  const headings = Array.from(document.querySelectorAll(".chart-panel h2[id]"));
  if (!links.length) return;
  // The panel being read: the last whose heading has passed the upper third of the window
  // (none above the first panel).
  let pending = false;
  function mark() {
    pending = false;
    const line = window.innerHeight / 3;
    const passed = headings.filter((h) => h.getBoundingClientRect().top <= line);
    const current = passed.length ? passed[passed.length - 1].id : "";
    for (const link of links) link.setAttribute("aria-current", String(link.dataset.anchor === current));
  }
  window.addEventListener("scroll", () => {
    if (!pending) { pending = true; window.requestAnimationFrame(mark); }
  }, { passive: true });
  mark();
})();
