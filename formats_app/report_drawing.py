"""Plotly figures drawn to SVG and PNG offline (no Django): kaleido 1.x drives a headless
Chromium (Debian's /usr/bin/chromium, or the one `BROWSER_PATH` names, which is
choreographer's own variable) over the DevTools protocol, on a page that loads the
plotly.js bundled in the plotly package and no MathJax (kaleido's default fetches MathJax
from a CDN). Maps are drawn on the site's country shapes, given to plotly.js beforehand in
`window.PlotlyGeoAssets` as the HTML report does, so nothing is fetched.

One browser serves a whole export (`Drawing`): it starts in a few seconds, then each image
takes a fraction of one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import tempfile
import threading
from pathlib import Path

DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
WIDTH = 960  # the dashboards' charts fill the page's width; a paper's column is narrower than a screen
PNG_SCALE = 2
TIMEOUT_SECONDS = 90  # one image
START_SECONDS = 60  # the browser, on a machine under load



class DrawingError(RuntimeError):
    pass


def chromium_path() -> str | None:
    """The browser kaleido drives: `BROWSER_PATH` when set, else Debian's Chromium, else
    whatever choreographer finds (None)."""
    if os.environ.get("BROWSER_PATH"):
        return os.environ["BROWSER_PATH"]
    if DEBIAN_CHROMIUM.exists():
        return str(DEBIAN_CHROMIUM)
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _plotly_js() -> Path:
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def sized(figure: dict) -> tuple[dict, int, int]:
    """The figure with a fixed width and height (the page lets the chart fill its box)."""
    layout = dict(figure.get("layout") or {})
    width = int(layout.get("width") or WIDTH)
    height = int(layout.get("height") or 450)
    layout.pop("autosize", None)
    return {**figure, "layout": {**layout, "width": width, "height": height}}, width, height


def page_generator(others: list[str] | None = None):
    """kaleido's drawing page: plotly.js from the plotly package (a file), no MathJax
    (kaleido's default loads it from a CDN), and `others` (files) after them."""
    import kaleido

    return kaleido.PageGenerator(plotly=_plotly_js().as_uri(), mathjax=False, others=others or None)


class Drawing:
    """`with Drawing(map_shapes) as draw: draw(figure, "svg") -> bytes`. The browser runs
    on an event loop of its own thread, so that a caller with a loop of its own running
    (Playwright's, in the browser tests) may use it, and a browser that cannot start, or a
    figure that never finishes, is an error here rather than a wait without end."""

    def __init__(self, map_shapes: dict | None = None):
        self.map_shapes = map_shapes or {}
        self._folder: tempfile.TemporaryDirectory | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._kaleido = None

    def _call(self, coroutine, timeout: float):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=timeout)

    def __enter__(self):
        import kaleido

        # kaleido and choreographer log each browser step at INFO (the worker's level).
        for name in ("kaleido", "choreographer"):
            logging.getLogger(name).setLevel(logging.WARNING)
        path = chromium_path()
        if path is None or not Path(path).exists():
            raise DrawingError("no browser to draw the figures with: install Debian's chromium package "
                               "(/usr/bin/chromium) or set BROWSER_PATH to a Chrome or Chromium")
        self._folder = tempfile.TemporaryDirectory(prefix="cfpd-drawing-")
        others = []
        if self.map_shapes:
            assets = Path(self._folder.name) / "geo-assets.js"
            assets.write_text(
                "window.PlotlyGeoAssets = window.PlotlyGeoAssets || {topojson: {}};\n"
                f"Object.assign(window.PlotlyGeoAssets.topojson, {json.dumps(self.map_shapes)});\n",
                encoding="utf-8")
            others.append(assets.as_uri())
        page = page_generator(others)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="cfpd-drawing", daemon=True)
        self._thread.start()

        async def start():
            browser = kaleido.Kaleido(page_generator=page, n=1, timeout=TIMEOUT_SECONDS, path=path)
            await browser.__aenter__()
            return browser

        try:
            self._kaleido = self._call(start(), START_SECONDS)
        except Exception as exc:
            self._stop()
            raise DrawingError(f"cannot start {path} to draw the figures: {type(exc).__name__}: {exc}") from exc
        return self.draw

    def draw(self, figure: dict, fmt: str) -> bytes:
        fitted, width, height = sized(figure)
        opts = {"format": fmt, "width": width, "height": height, "scale": PNG_SCALE if fmt == "png" else 1}
        try:
            data = self._call(self._kaleido.calc_fig(fitted, opts=opts), TIMEOUT_SECONDS + 10)
        except Exception as exc:
            raise DrawingError(f"could not draw the figure as {fmt}: {type(exc).__name__}: {exc}") from exc
        if not data:
            raise DrawingError(f"the browser drew an empty {fmt}")
        return data

    def _stop(self):
        try:
            if self._kaleido is not None:
                self._call(self._kaleido.__aexit__(None, None, None), 30)
        finally:
            self._kaleido = None
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(timeout=30)
                if not self._thread.is_alive():
                    self._loop.close()
                self._loop = self._thread = None
            if self._folder is not None:
                self._folder.cleanup()
                self._folder = None

    def __exit__(self, *exc):
        self._stop()
        return False
