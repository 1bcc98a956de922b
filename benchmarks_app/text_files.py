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
import os
import re
from collections.abc import Iterable, Iterator
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
    columns, records = stream_records(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    return columns, list(records)


def stream_records(lines: Iterable[str]) -> tuple[list[str], Iterator[Record]]:
    """The header (stripped) and an iterator over the non-blank rows of CSV lines (a text
    file opened with newline="", or `open_text`): one row in memory at a time. The
    iterator raises TableError naming the line where the CSV itself is broken."""
    reader = csv.reader(lines)
    try:
        header = next(reader, [])
    except csv.Error as exc:
        raise TableError(f"line 1: {_csv_problem(exc)}") from None
    columns = [c.strip() for c in header]

    def records() -> Iterator[Record]:
        while True:
            start = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise TableError(f"line {start}: {_csv_problem(exc)}") from None
            if not any(cell.strip() for cell in row):
                continue
            cells = {column: "" for column in columns}
            cells.update(zip(columns, row))
            yield Record(start, cells, len(row), row[len(columns):])

    return columns, records()


# --- files of any size: read as a stream, checked as decode_text checks a whole file ------

READ_CHUNK = 1 << 20


class _CheckedBytes(io.RawIOBase):
    """A binary file that refuses, as it is read, what decode_text refuses whole: UTF-16,
    NUL bytes, a file with nothing but blanks. Counts the bytes read (for progress)."""

    def __init__(self, raw, size: int | None):
        self.raw, self.size, self.done, self.content = raw, size, 0, False

    def readable(self):
        return True

    def readinto(self, buffer):
        data = self.raw.read(len(buffer))
        if self.done == 0 and data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise TableError("file: is UTF-16 text; save it as UTF-8 (Excel: CSV UTF-8)")
        if b"\x00" in data:
            raise TableError("file: contains NUL bytes, so it is a binary file (a spreadsheet or an archive?), "
                             "not text; export it as CSV (UTF-8) or JSON")
        if not self.content and data.strip(b" \t\r\n\xef\xbb\xbf"):
            self.content = True
        if not data and not self.content:
            raise TableError("file: is empty; export the table as CSV (UTF-8) or the scenarios as JSON")
        self.done += len(data)
        buffer[:len(data)] = data
        return len(data)

    def close(self):
        self.raw.close()
        super().close()


class TextStream:
    """The lines of a UTF-8 file, decoded as they are read (newline="" as csv wants them),
    with `bytes_read` and `size` for progress. Iterating raises TableError for what
    decode_text refuses, a byte that is not UTF-8 named with its line."""

    def __init__(self, path):
        self.path = path
        raw = open(path, "rb")
        try:
            self.size = os.fstat(raw.fileno()).st_size
        except OSError:
            self.size = None
        self.checked = _CheckedBytes(raw, self.size)
        self.text = io.TextIOWrapper(io.BufferedReader(self.checked, READ_CHUNK), encoding="utf-8-sig", newline="")

    @property
    def bytes_read(self) -> int:
        return self.checked.done

    def __iter__(self) -> Iterator[str]:
        try:
            yield from self.text
        except UnicodeDecodeError:
            raise TableError(_decode_problem(self.path)) from None

    def close(self):
        self.text.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _decode_problem(path) -> str:
    """The message of the first byte of `path` that is not UTF-8 (read again, in chunks)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    line, offset = 1, 0
    with open(path, "rb") as handle:
        while chunk := handle.read(READ_CHUNK):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                # The decoder may hold back up to 3 bytes of the previous chunk.
                start = max(exc.start - (len(exc.object) - len(chunk)), 0)
                line += chunk[:start].count(b"\n")
                return (f"line {line}: byte 0x{chunk[start]:02x} is not UTF-8; save the file as UTF-8 "
                        "(Excel: CSV UTF-8)")
            line += chunk.count(b"\n")
            offset += len(chunk)
    return "file: is not UTF-8 text; save the file as UTF-8 (Excel: CSV UTF-8)"


def open_text(path) -> TextStream:
    """`path` as a stream of checked text lines (OSError when it cannot be opened)."""
    return TextStream(path)
