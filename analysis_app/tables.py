"""A panel's table on the page (its first rows, each cell as the page prints it) and as a
CSV download, for every family's dashboard."""

import io

from django.http import HttpResponse

from kit.csv_safety import neutralise

DISPLAY_ROWS = 200


def display_rows(table) -> list[list]:
    """The table's first `DISPLAY_ROWS` rows as the page prints them (`cell`); the CSV has them all."""
    return [[cell(value) for value in record] for record in table.head(DISPLAY_ROWS).itertuples(index=False)]


def cell(value):
    """A value as a table cell: missing as a dash, a float to three places, a flag as yes or no."""
    if value is None or (isinstance(value, float) and value != value):
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def csv_response(table, name: str) -> HttpResponse:
    """The table as a CSV download named `name`.csv."""
    out = io.StringIO()
    # Cells a spreadsheet would run as formulas (a model or category named "=...") get a quote.
    table.map(neutralise).to_csv(out, index=False, float_format="%.6f")
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response
