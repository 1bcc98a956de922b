"""Reading the files every importer reads, whatever the family: a file's text (UTF-8 only,
with the reason when it is something else), CSV records with their line numbers, and the
slug rule of names that appear in URLs and keys. Pure: no Django.

The CFPD scenario table, the actors' table and answers collected elsewhere
(`import_responses`) all read their files here, so a file that cannot be read gets the
same message from every importer."""

from __future__ import annotations

import codecs
import csv
import io
import re
from dataclasses import dataclass, field

# Benchmark names, scenario keys and model names are slugs: they appear in URLs
# (`/benchmarks/<slug:name>/`) and in question keys (`bench/key.v1.CN-RU.full`).
# The character set is Django's validate_slug.
SLUG = re.compile(r"[-a-zA-Z0-9_]+")


class TableError(ValueError):
    """The file as a whole cannot be read (not text, not CSV, wrong columns). The message
    starts `file:` or `line N:` so that every importer reports it the same way."""


def slug_problem(value: str, max_length: int) -> str | None:
    """Why `value` is not a slug of at most `max_length` characters, or None."""
    if not value:
        return "is empty; use letters, digits, - and _"
    if len(value) > max_length:
        return f"is {len(value)} characters long; use at most {max_length}"
    if not SLUG.fullmatch(value):
        suggestion = re.sub(r"[^-a-zA-Z0-9_]+", "-", value).strip("-")[:max_length]
        return (f"{value!r} may use only letters, digits, - and _"
                + (f"; for example {suggestion!r}" if suggestion else ""))
    return None


def decode_text(data: bytes) -> str:
    """The text of a file to import, or TableError saying what the file is instead.

    UTF-8 only (a leading byte-order mark is dropped): a file with NUL bytes is binary
    (a spreadsheet, an archive), UTF-16 is what Excel's "Unicode text" writes, and any
    other byte that is not UTF-8 is named with its line.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise TableError("file: is UTF-16 text; save it as UTF-8 (Excel: CSV UTF-8)")
    if b"\x00" in data:
        raise TableError("file: contains NUL bytes, so it is a binary file (a spreadsheet or an archive?), "
                         "not text; export it as CSV (UTF-8) or JSON")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TableError(f"line {line}: byte 0x{data[exc.start]:02x} is not UTF-8; save the file as UTF-8 "
                         "(Excel: CSV UTF-8)") from None
    if not text.strip():
        raise TableError("file: is empty; export the table as CSV (UTF-8) or the scenarios as JSON")
    return text


def read_text(path: str) -> str:
    """The text of the file at `path` (OSError when it cannot be opened; TableError when
    it is not UTF-8 text: binary, UTF-16, empty)."""
    with open(path, "rb") as handle:
        return decode_text(handle.read())


@dataclass
class Record:
    """One CSV row: its first line, its cells by column ("" where the row is short), its width."""

    line: int
    cells: dict[str, str]
    width: int
    extra: list[str] = field(default_factory=list)  # cells beyond the header's columns

    def shape_problem(self, columns: list[str], required: list[str]) -> str | None:
        """Why the row does not fit the header, or None: it stops before a required
        column, or it has non-empty cells after the last column."""
        cut = [c for c in columns[self.width:] if c in required]
        if cut:
            return (f"the row has {self.width} of the header's {len(columns)} cells and stops before "
                    f"{', '.join(cut)}; is a comma missing, or a quote left open on an earlier line?")
        if any(cell.strip() for cell in self.extra):
            return (f"the row has {self.width} cells but the header has {len(columns)} columns; "
                    "put cells that contain a comma in double quotes")
        return None


def _csv_problem(exc: csv.Error) -> str:
    message = str(exc)
    if "field larger than field limit" in message:
        return (f"a cell is longer than {csv.field_size_limit():,} characters; is a double quote left open "
                "(every quoted cell needs its closing quote)?")
    return f"not readable as CSV ({message})"


def read_records(text: str) -> tuple[list[str], list[Record]]:
    """The header (stripped) and every non-blank row of a CSV text; TableError names the
    line where the CSV itself is broken."""
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    try:
        header = next(reader, [])
    except csv.Error as exc:
        raise TableError(f"line 1: {_csv_problem(exc)}") from None
    columns = [c.strip() for c in header]
    records = []
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise TableError(f"line {start}: {_csv_problem(exc)}") from None
        if not any(cell.strip() for cell in row):
            continue
        cells = {column: "" for column in columns}
        cells.update(zip(columns, row))
        records.append(Record(start, cells, len(row), row[len(columns):]))
    return columns, records
