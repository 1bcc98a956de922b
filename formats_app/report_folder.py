"""A dashboard view as a folder for a paper (pure: no Django): the panels read from the page
as the site renders it (each panel's title, note, plotly figure and CSV link, the same
markup every family's dashboard shares: analysis_app/panels.html), each table written as
LaTeX (pandas' `to_latex`, every cell and heading escaped), and the folder's index.

The figures are drawn by `report_drawing`, the page and the CSV fetched by
`report_services`; what is here is the part that needs neither a browser nor a database.
"""

from __future__ import annotations

import html
import io
import json
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kit.csv_safety import restore

if TYPE_CHECKING:
    import pandas as pd

# A family's dashboard: `panel chart-panel`, id `panel-KEY`; a model's profile and the
# comparison: `panel chart-panel family`, id `family-KEY` (one section per family).
_SECTION = re.compile(r'<section class="panel chart-panel(?: family)?" id="(?:panel|family)-([^"]+)">(.*?)</section>',
                      re.DOTALL)
# The whole page's table, where the page has one link for all its sections (a profile's
# "Figures (CSV)", the comparison's "Differences (CSV)") rather than one per panel.
_PAGE_CSV = re.compile(r'<a class="button" id="[a-z]+-csv" href="([^"]+)" download>([^<]*)</a>')
_TITLE = re.compile(r"<h2\b[^>]*>(.*?)</h2>", re.DOTALL)
_NOTE = re.compile(r'<p class="muted small panel-note">(.*?)</p>', re.DOTALL)
_CSV = re.compile(r'<a href="([^"]+)" download>CSV</a>')
_FIGURE = re.compile(r'<script id="([^"]+)" type="application/json">(.*?)</script>', re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_UNSAFE_NAME = re.compile(r"[^a-z0-9]+")
_NUMBERISH = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


@dataclass
class PagePanel:
    key: str
    title: str
    note: str
    csv_href: str  # as the page links it: relative to the page's path
    figure: dict | None


def _text(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub("", fragment)).split())


def panels_in(page: str) -> list[PagePanel]:
    """Every panel of a dashboard page, in the page's order. A panel without a chart (a
    table only, or no chart for this filter) has `figure` None."""
    panels = []
    for key, body in _SECTION.findall(page):
        title, note, csv = _TITLE.search(body), _NOTE.search(body), _CSV.search(body)
        figure = _FIGURE.search(body)
        panels.append(PagePanel(
            key=html.unescape(key), title=_text(title.group(1)) if title else key,
            note=_text(note.group(1)) if note else "",
            csv_href=html.unescape(csv.group(1)) if csv else "",
            # json_script escapes <, > and & as \u003C…, which JSON reads back as they were.
            figure=json.loads(figure.group(2)) if figure else None))
    return panels


def page_csv(page: str) -> tuple[str, str] | None:
    """The page's one CSV link for all its sections, as (href, label), or None: the family
    dashboards link a CSV per panel instead."""
    found = _PAGE_CSV.search(page)
    return (html.unescape(found.group(1)), _text(found.group(2))) if found else None


def file_stem(index: int, key: str) -> str:
    """`03-country-rates`: the panel's place on the page, then its key, safe as a file name."""
    name = _UNSAFE_NAME.sub("-", key.lower()).strip("-") or "panel"
    return f"{index:02d}-{name[:60]}"


def _text_cell(value: str) -> str:
    # Spreadsheet-safe text (a leading quote before a formula character) back as it was
    # written; a line break would end a LaTeX table row's source line, not the cell.
    return " ".join(restore(value).split())


def _number_cells(numbers: list[float | None]) -> list[str]:
    """A column of numbers written one way: whole numbers as such when every value is
    whole; else four decimals (more than any interval here supports), or two significant
    digits in exponent form when the column's largest value is below 0.0001 (p-values)."""
    present = [x for x in numbers if x is not None and not math.isnan(x)]
    if all(x.is_integer() and abs(x) < 1e15 for x in present):
        return ["" if x is None or math.isnan(x) else str(int(x)) for x in numbers]
    tiny = max(abs(x) for x in present) < 1e-4
    return ["" if x is None or math.isnan(x) else (f"{x:.2e}" if tiny else f"{x:.4f}") for x in numbers]


def read_csv(text: str) -> pd.DataFrame:
    """A dashboard's CSV as a table of text, every cell as the site wrote it (no guessing
    of dates; `NA` stays text)."""
    import pandas as pd  # on first use: a worker that never exports starts 0.3 s sooner

    return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)


def _column(values: pd.Series) -> tuple[list[str], bool]:
    """The column's cells as LaTeX will show them, and whether it is a column of numbers."""
    texts = ["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in values]
    filled = [t for t in texts if t.strip() != ""]
    if filled and all(_NUMBERISH.fullmatch(t.strip()) for t in filled):
        return _number_cells([float(t) if t.strip() else None for t in texts]), True
    return [_text_cell(t) for t in texts], False


def latex_table(table: pd.DataFrame, title: str = "") -> str:
    """The table as a booktabs `tabular` (needs `\\usepackage{booktabs}`): every heading and
    cell escaped for LaTeX (`& % $ # _ { } ~ ^ \\`), columns of numbers written alike and
    right-aligned, empty cells empty; `title` in a comment above it."""
    columns = {str(name): _column(table[name]) for name in table.columns}
    import pandas as pd

    shown = pd.DataFrame({name: cells for name, (cells, _) in columns.items()}, columns=list(columns))
    column_format = "".join("r" if numeric else "l" for _, numeric in columns.values()) or "l"
    body = shown.to_latex(index=False, escape=True, column_format=column_format)
    comment = f"% {' '.join(title.split())}\n" if title else ""
    return comment + body


@dataclass
class FolderEntry:
    title: str
    note: str
    files: list[str]
    no_table: str = ""  # why the panel has no CSV of its own (the page links none for it)


def index_text(source: str, who: str, stamp: str, entries: list[FolderEntry]) -> str:
    """README.md of the folder: where it came from, then each panel with its files."""
    lines = [f"# {source}", "",
             f"Exported from CFPD Workbench: {source}, as {who} saw it on {stamp}.",
             "Figures: SVG (vector, for the paper) and PNG (2x, for slides), drawn offline with plotly.js.",
             "Tables: CSV (the dashboard's own download, every row) and LaTeX (`tabular` with booktabs:",
             "`\\usepackage{booktabs}`, then `\\input{tables/NAME.tex}`).", ""]
    for entry in entries:
        lines.append(f"## {entry.title}")
        lines.append("")
        if entry.note:
            lines += [entry.note, ""]
        lines += [f"- `{name}`" for name in entry.files] or ["- (nothing to write for this filter)"]
        if entry.no_table:
            lines.append(f"- no table of its own: {entry.no_table}")
        lines.append("")
    return "\n".join(lines)
