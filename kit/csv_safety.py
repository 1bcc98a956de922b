"""CSV cells that are safe to open in a spreadsheet. Pure: no Django.

Excel, LibreOffice and Google Sheets read a cell that starts with `=`, `+`, `-` or `@`
as a formula (and strip a leading tab or carriage return first), so a scenario text,
a reviewer's note or a model name such as `=HYPERLINK("http://…")` would run when an
analyst opens the export. The usual defence (OWASP, "CSV injection") is to put a single
quote before such a cell: spreadsheets show the text as written and never evaluate it.

Only text is neutralised. Numbers (int, float, Decimal) are written as they are, and so
is text that is exactly a number (`-0.25`, `+3`, `1e-5`): a spreadsheet reads it as that
number, never as a formula, and an analyst's negative rates must stay numbers.

`restore` undoes `neutralise` for files the product reads back (the Table 3 CSV):
`restore(neutralise(x)) == x` for every string, because a cell that already starts with
a quote before a formula character gets one more quote on the way out.
"""

from __future__ import annotations

import csv
import re
from typing import Any, Iterable

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"

# A plain decimal number, as a spreadsheet parses it: optional sign, digits, optional
# fraction and exponent. Nothing else may follow (`-1+cmd` is a formula, not a number).
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def needs_quote(text: str) -> bool:
    """Whether a spreadsheet could read `text` as a formula (or as a quoted formula we wrote)."""
    if text.startswith(FORMULA_START):
        return not _NUMBER.fullmatch(text)
    if text.startswith(QUOTE):
        return needs_quote(text[1:])
    return False


def neutralise(value: Any) -> Any:
    """The cell to write: text a spreadsheet would evaluate gets a leading `'`; anything else is unchanged."""
    if isinstance(value, str) and needs_quote(value):
        return QUOTE + value
    return value


def restore(text: str) -> str:
    """The cell as it was before `neutralise` (for CSV files the product reads back)."""
    if text.startswith(QUOTE) and needs_quote(text[1:]):
        return text[1:]
    return text


def neutralise_row(row: Iterable[Any]) -> list[Any]:
    return [neutralise(value) for value in row]


class SafeWriter:
    """`csv.writer` whose rows are neutralised; `writer(handle, **fmtparams)` as usual."""

    def __init__(self, handle, *args, **kwargs):
        self._writer = csv.writer(handle, *args, **kwargs)

    def writerow(self, row: Iterable[Any]):
        return self._writer.writerow(neutralise_row(row))

    def writerows(self, rows: Iterable[Iterable[Any]]):
        for row in rows:
            self.writerow(row)


class SafeDictWriter(csv.DictWriter):
    """`csv.DictWriter` whose values are neutralised (the header is written as it is)."""

    def writerow(self, rowdict):
        return super().writerow({key: neutralise(value) for key, value in rowdict.items()})

    def writerows(self, rowdicts):
        for rowdict in rowdicts:
            self.writerow(rowdict)
