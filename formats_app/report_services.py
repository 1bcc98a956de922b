"""A dashboard view (its URL and query as they are) rendered as the named user sees it and
written as one self-contained HTML file (formats_app.report_html): plotly.js, the site's
style and scripts inside, the charts' figures already in the page, its tables and method
notes with it. The page is rendered through the site's own middleware and views (Django's
test client, signed in as the user), with the figures computed in this process rather than
by the worker, so the file holds them rather than a 'computing' notice.

The same page, as a folder for a paper (`write_folder`): its panels read from the page
(`report_folder`), each figure drawn offline as SVG and PNG (`report_drawing`), each table
fetched from the panel's own CSV link (every row) and written as CSV and LaTeX."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timezone
from html import escape, unescape
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.test import Client, override_settings

from . import report_drawing, report_folder, report_html


class ReportError(ValueError):
    pass


def _read_static(url: str) -> str | None:
    path = urlsplit(url).path
    if not path.startswith(settings.STATIC_URL):
        return None
    name = path[len(settings.STATIC_URL):]
    found = finders.find(name)
    if found:
        return Path(found).read_text(encoding="utf-8")
    try:
        with staticfiles_storage.open(name) as handle:
            return handle.read().decode("utf-8")
    except (OSError, ValueError):
        return None


def map_shapes(page: str) -> dict:
    """The site's country shapes (static/topojson) when the page draws a map, by name."""
    if "data-topojson" not in page:
        return {}
    folder = finders.find("topojson")
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(Path(folder).glob("*.json"))} if folder else {}


def _map_assets(page: str) -> str:
    """Maps draw on the site's country shapes (static/topojson), which plotly.js fetches
    when it draws: given to it beforehand in `window.PlotlyGeoAssets`, where plotly.js looks
    first, so that a map draws from the file alone."""
    if "data-topojson" not in page:
        return ""
    text = json.dumps({"topojson": map_shapes(page)}, separators=(",", ":")).replace("</", "<\\/")
    return f"<script>window.PlotlyGeoAssets = {text};</script>"


# The export button's form has no use in a file read away from the site.
_EXPORT_FORM = re.compile(r'<form class="export-report".*?</form>\s*', re.DOTALL)


class _Reader:
    """The site as `username` sees it (Django's test client through the site's middleware
    and views), with the figures computed in this process rather than by the worker."""

    def __init__(self, username: str):
        self.user = get_user_model().objects.filter(username=username, is_active=True).first()
        if self.user is None:
            raise ReportError(f"no active user {username!r}")
        self.username = username
        host = next((h for h in settings.ALLOWED_HOSTS if h and not h.startswith((".", "*"))), "localhost")
        self.client = Client(HTTP_HOST=host)
        self.client.force_login(self.user)

    def get(self, url: str, kind: str):
        with override_settings(CFPD_DASHBOARD_IN_WORKER=False):
            response = self.client.get(url, secure=bool(getattr(settings, "SECURE_SSL_REDIRECT", False)))
        if response.status_code != 200:
            detail = ""
            if response.status_code == 403 or (response.status_code == 302
                                                and "/accounts/login/" in response.get("Location", "")):
                detail = " (not allowed to read it)"
            elif response.status_code == 302:  # a model's row name: its profile is under the model's name
                detail = f" (it redirects to {response['Location']}: export that)"
            elif response.status_code == 400:
                detail = ": " + _text_of(response)
            raise ReportError(f"{url} answered {response.status_code} for {self.username}{detail}")
        if kind not in response.get("Content-Type", ""):
            raise ReportError(f"{url} is not a {kind} ({response.get('Content-Type')})")
        return response.content.decode(response.charset or "utf-8")


def _text_of(response) -> str:
    """A 400's message: the dashboards say what is wrong in the page's error line."""
    text = response.content.decode(response.charset or "utf-8", errors="replace")
    found = re.search(r'<p class="form-errors">(.*?)</p>', text, re.DOTALL)
    message = re.sub(r"<[^>]+>", "", found.group(1) if found else text)
    return " ".join(unescape(message).split())[:300]


def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def render_report(url: str, username: str) -> str:
    """The page at `url` (path and query) as `username` sees it, self-contained."""
    page = _Reader(username).get(url, "text/html")
    banner = (f'<p class="report-origin" style="margin:0;padding:.4rem 1rem;background:#f3f4f6;font-size:.85rem">'
              f"Exported from CFPD Workbench: {escape(url)}, as {escape(username)} saw it on {_stamp()}. "
              "The filters are as exported; the site's own links need the site and an account.</p>"
              + report_html.READER_ONLY)
    page = _EXPORT_FORM.sub("", page)
    try:
        return report_html.inline(page, _read_static, banner + _map_assets(page))
    except report_html.MissingAsset as exc:
        raise ReportError(f"the page uses {exc} which is not one of the site's static files") from None


def _quiet(step: str, done: int, total: int) -> None:
    pass


def write_folder(url: str, username: str, out: str | Path,
                 progress: Callable[[str, int, int], None] = _quiet) -> list[Path]:
    """The page at `url` as `username` sees it, as a folder for a paper: each panel's
    figure drawn offline as `figures/NN-key.svg` and `.png`, its table as
    `tables/NN-key.csv` (the dashboard's own CSV, every row) and `.tex`, and `README.md`
    naming them. `progress(step, done, total)` is told each step. Returns the files."""
    reader = _Reader(username)
    progress("rendering the dashboard", 0, 1)
    page = reader.get(url, "text/html")
    panels = report_folder.panels_in(page)
    if not panels:
        raise ReportError(f"{url} shows no panel for this filter: nothing to export")
    out = Path(out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    whole = report_folder.page_csv(page)
    figures = sum(1 for p in panels if p.figure)
    total = 2 + len(panels) + figures + bool(whole)
    done = 1
    written: list[Path] = []
    entries = {p.key: report_folder.FolderEntry(p.title, p.note, []) for p in panels}

    def keep(path: Path, data: bytes | str, panel):
        if isinstance(data, str):
            path.write_text(data, encoding="utf-8")
        else:
            path.write_bytes(data)
        written.append(path)
        entries[panel.key].files.append(path.relative_to(out).as_posix())

    page_path = urlsplit(url).path
    no_table = "the page links no CSV for it"
    if whole:
        # A profile or a comparison: one CSV for all its sections (a `family` column says
        # whose row each is), written first, as the page's own table.
        href, label = whole
        progress(f"reading the page's table ({label})", done, total)
        stem = report_folder.file_stem(0, label.replace("(CSV)", "").strip() or "page")
        page_table = report_folder.PagePanel(key=" page table", title=f"The page's table: {label}", note="",
                                             csv_href=href, figure=None)
        entries = {page_table.key: report_folder.FolderEntry(page_table.title, "", []), **entries}
        csv_text = reader.get(urljoin(page_path, href), "text/csv")
        keep(out / "tables" / f"{stem}.csv", csv_text, page_table)
        keep(out / "tables" / f"{stem}.tex", report_folder.latex_table(report_folder.read_csv(csv_text), label),
             page_table)
        no_table = f"its rows are in the page's table, `tables/{stem}.csv`"
        done += 1
    for panel in panels:
        if not panel.csv_href:
            entries[panel.key].no_table = no_table
    for number, panel in enumerate(panels, 1):
        stem = report_folder.file_stem(number, panel.key)
        progress(f"reading the table of {panel.title} ({number} of {len(panels)})", done, total)
        if panel.csv_href:
            csv_text = reader.get(urljoin(page_path, panel.csv_href), "text/csv")
            keep(out / "tables" / f"{stem}.csv", csv_text, panel)
            keep(out / "tables" / f"{stem}.tex",
                 report_folder.latex_table(report_folder.read_csv(csv_text), panel.title), panel)
        done += 1
    if figures:
        progress("starting a browser (Chromium) to draw the figures", done, total)
        with report_drawing.Drawing(map_shapes(page)) as draw:
            drawn = 0
            for number, panel in enumerate(panels, 1):
                if not panel.figure:
                    continue
                drawn += 1
                progress(f"drawing {panel.title} ({drawn} of {figures})", done, total)
                stem = report_folder.file_stem(number, panel.key)
                for fmt in ("svg", "png"):
                    keep(out / "figures" / f"{stem}.{fmt}", draw(panel.figure, fmt), panel)
                done += 1
    progress("writing the index", done, total)
    index = out / "README.md"
    index.write_text(report_folder.index_text(url, username, _stamp(), list(entries.values())), encoding="utf-8")
    written.append(index)
    progress("done", total, total)
    return written


def write_report(url: str, username: str, out: str | Path,
                 progress: Callable[[str, int, int], None] = _quiet) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    progress("rendering the dashboard, with plotly.js and the site's style inside", 0, 1)
    out.write_text(render_report(url, username), encoding="utf-8")
    progress("done", 1, 1)
    return out
