"""Reading free-form crisis runs in the public release's layout, every problem a flaw
that names its place and the fix. Pure: a directory in, plain dataclasses out; nothing
here raises on bad input.

    <model>/free/<continuation>/<model>-free-<True|False>-<samples>-<temperature>/main/run<k>[_fixed]/run<k>[_fixed].csv

One CSV is one run: a row per move (`Move Number` 1 and 2), a column per sample
(`Response 1` … `Response N`), each cell one answer. An optional `run<k>[_fixed]_berts.npz`
beside it holds the pairwise inconsistencies the release computed: arrays `move1` and
`move2`, one value per pair i < j in row-major order. Other files in a run's folder are
ignored. Where a folder holds both run<k> and run<k>_fixed, the fixed one stands.

A flaw reads `relative/path[:row[:column]]: reason`; rows count CSV records with the
header as row 1 (a multi-line answer is one row), columns are named by their header.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

LAYOUT = ("<model>/free/<continuation>/<model>-free-<True|False>-<samples>-<temperature>/main/"
          "run<k>[_fixed]/run<k>[_fixed].csv")
MOVES = (1, 2)
MAX_TEMPERATURE = 2.0
SLUG = re.compile(r"[-a-zA-Z0-9_]+")
RUN_NAME = re.compile(r"run(\d+)(_fixed)?")
MODEL_NAME_MAX = 80  # LLMModel.name
CONTINUATION_NAME_MAX = 64  # Continuation.name


@dataclass(frozen=True)
class RunPath:
    """What a run's path says: the model, the continuation, the telling and the sampling."""

    relative: str
    model: str
    continuation: str
    explicit: bool
    samples: int
    temperature: float
    run: int
    fixed: bool

    @property
    def variant_folder(self) -> str:
        """The `main` folder that holds this run and its fixed or unfixed twin."""
        return str(PurePosixPath(self.relative).parent.parent)

    @property
    def npz_relative(self) -> str:
        path = PurePosixPath(self.relative)
        return str(path.with_name(path.stem + "_berts.npz"))


@dataclass
class ReleaseRun:
    path: RunPath
    answers: dict[int, list[str]]  # move -> the samples' answers, Response 1 first
    inconsistencies: dict[int, list[float]] | None = None  # move -> pair values, or None without an npz


@dataclass
class Release:
    runs: list[ReleaseRun] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)  # run<k> where run<k>_fixed stands
    flaws: list[str] = field(default_factory=list)


def pair_count(samples: int) -> int:
    """n(n-1)/2: the pairs i < j among n samples."""
    return samples * (samples - 1) // 2


def _shown(text: str, limit: int = 60) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f" … ({len(text):,} characters)"


def _slug_problem(value: str, what: str, part: int, max_length: int) -> str | None:
    if not SLUG.fullmatch(value):
        return f"part {part} ({what}) {_shown(value)} may use only letters, digits, - and _: rename the folder"
    if len(value) > max_length:
        return f"part {part} ({what}) is {len(value)} characters long; rename the folder to at most {max_length}"
    return None


def parse_run_path(relative: str) -> tuple[RunPath | None, list[str]]:
    """The run a CSV's path (relative to the release directory, `/`-separated) describes,
    or None and why not: each part of the layout that does not fit, by its number."""
    parts = relative.split("/")
    if len(parts) != 7:
        return None, [f"{relative}: {len(parts)} parts where the layout has 7: move the file to {LAYOUT}"]
    model, free, continuation, folder, main, run_folder, filename = parts
    problems = []
    model_problem = _slug_problem(model, "model", 1, MODEL_NAME_MAX)
    if model_problem:
        problems.append(model_problem)
    if free != "free":
        problems.append(f"part 2 is {_shown(free)} where the layout has 'free'")
    continuation_problem = _slug_problem(continuation, "continuation", 3, CONTINUATION_NAME_MAX)
    if continuation_problem:
        problems.append(continuation_problem)
    explicit = samples = temperature = None
    prefix = f"{model}-free-"
    pieces = folder[len(prefix):].split("-") if folder.startswith(prefix) else []
    if not folder.startswith(prefix):
        problems.append(f"part 4 {_shown(folder)} does not begin with {_shown(prefix)} "
                        "(<model>-free-<True|False>-<samples>-<temperature>, the model as in part 1)")
    elif len(pieces) != 3:
        problems.append(f"part 4 {_shown(folder)} has {len(pieces)} field(s) after {_shown(prefix)} where the layout "
                        "has 3: <True|False>-<samples>-<temperature>")
    else:
        explicit_text, samples_text, temperature_text = pieces
        if explicit_text in ("True", "False"):
            explicit = explicit_text == "True"
        else:
            problems.append(f"part 4: explicit {_shown(explicit_text)} is neither True nor False")
        if samples_text.isascii() and samples_text.isdigit() and int(samples_text) >= 1:
            samples = int(samples_text)
        else:
            problems.append(f"part 4: samples {_shown(samples_text)} is not a whole number of at least 1")
        try:
            temperature = float(temperature_text)
        except ValueError:
            problems.append(f"part 4: temperature {_shown(temperature_text)} is not a number")
        else:
            if not (math.isfinite(temperature) and 0 <= temperature <= MAX_TEMPERATURE):
                problems.append(f"part 4: temperature {_shown(temperature_text)} is not between 0 and "
                                f"{MAX_TEMPERATURE:g}")
                temperature = None
    if main != "main":
        problems.append(f"part 5 is {_shown(main)} where the layout has 'main'")
    run_match = RUN_NAME.fullmatch(run_folder)
    if not run_match:
        problems.append(f"part 6 {_shown(run_folder)} is not run<k> or run<k>_fixed")
    elif filename != f"{run_folder}.csv":
        problems.append(f"part 7 {_shown(filename)} is not named as its folder: {run_folder}.csv")
    if problems:
        return None, [f"{relative}: {problem}" for problem in problems]
    return RunPath(relative=relative, model=model, continuation=continuation, explicit=explicit, samples=samples,
                   temperature=temperature, run=int(run_match.group(1)), fixed=bool(run_match.group(2))), []


def expected_header(samples: int) -> list[str]:
    return ["Move Number"] + [f"Response {i}" for i in range(1, samples + 1)]


def _decoded(relative: str, data: bytes) -> tuple[str | None, str | None]:
    if b"\x00" in data:
        return None, f"{relative}: a binary file (NUL byte), not CSV text"
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), None
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        return None, f"{relative}: not UTF-8 text (line {line}, byte 0x{data[error.start]:02x}): save it as UTF-8"


def _header_problem(relative: str, header: list[str], samples: int) -> str | None:
    header = [cell.strip() for cell in header]
    if header == expected_header(samples):
        return None
    if len(header) > 1 and header == expected_header(len(header) - 1):
        return (f"{relative}:1: {len(header) - 1} response column(s) where the path says {samples} samples: "
                f"rename the folder or fix the file")
    shown = ", ".join(_shown(cell, 30) for cell in header[:6]) + (", …" if len(header) > 6 else "")
    return (f"{relative}:1: the header must be Move Number, Response 1 … Response {samples} "
            f"({samples} samples, as the path says); found {shown or 'nothing'}")


def read_answers(relative: str, text: str, samples: int) -> tuple[dict[int, list[str]] | None, list[str]]:
    """{move: answers} of one run's CSV text, or None and every flaw found."""
    flaws = []
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        records = list(reader)
    except csv.Error as error:
        return None, [f"{relative}: not CSV (line {reader.line_num}: {error}): save it as comma-separated values, "
                      "each answer in double quotes"]
    if not records:
        return None, [f"{relative}: empty file: write the header and one row per move"]
    header_problem = _header_problem(relative, records[0], samples)
    if header_problem:
        return None, [header_problem]
    header = expected_header(samples)
    answers: dict[int, list[str]] = {}
    first_row: dict[int, int] = {}
    for row, record in enumerate(records[1:], start=2):
        if not any(cell.strip() for cell in record):
            continue  # a blank line at the end of a file
        if len(record) != len(header):
            flaws.append(f"{relative}:{row}: {len(record)} cells where the header has {len(header)}")
            continue
        move_text = record[0].strip()
        move = int(move_text) if move_text in ("1", "2") else None
        if move is None:
            flaws.append(f"{relative}:{row}:Move Number: {_shown(move_text)} is neither 1 nor 2")
            continue
        if move in first_row:
            flaws.append(f"{relative}:{row}:Move Number: move {move} again (first on row {first_row[move]}): "
                         "keep one row per move")
            continue
        first_row[move] = row
        for column, cell in zip(header[1:], record[1:]):
            if not cell.strip():
                flaws.append(f"{relative}:{row}:{column}: empty answer: fill it in or leave this run out")
        answers[move] = list(record[1:])
    for move in MOVES:
        if move not in first_row:
            flaws.append(f"{relative}: no row for move {move}: add it")
    return (None, flaws) if flaws else (answers, [])


def read_inconsistencies(relative: str, data: bytes, samples: int) -> tuple[dict[int, list[float]] | None, list[str]]:
    """{move: pair values} of one run's npz, or None and every flaw found."""
    pairs = pair_count(samples)
    if pairs == 0:
        return None, [f"{relative}: {samples} sample(s) make no pair to score: remove the file"]
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        return None, [f"{relative}: not a readable npz archive ({str(error)[:120]}): write it with numpy.savez"]
    flaws, values = [], {}
    for move in MOVES:
        name = f"move{move}"
        if name not in arrays:
            present = ", ".join(sorted(arrays)[:10]) or "none"
            flaws.append(f"{relative}: no array {name} (the archive has: {present}): add it")
            continue
        array = arrays[name]
        if array.ndim != 1:
            flaws.append(f"{relative}: {name} has shape {array.shape}; write one value per pair i < j (a flat array)")
            continue
        if not np.issubdtype(array.dtype, np.number) or np.iscomplexobj(array):
            flaws.append(f"{relative}: {name} holds {array.dtype} values, not real numbers")
            continue
        if len(array) != pairs:
            flaws.append(f"{relative}: {name} has {len(array)} values where {samples} samples make {pairs} pairs "
                         "(n(n-1)/2)")
            continue
        bad = np.flatnonzero(~np.isfinite(array.astype(float)))
        if len(bad):
            shown = ", ".join(str(i + 1) for i in bad[:10]) + (", …" if len(bad) > 10 else "")
            flaws.append(f"{relative}: {name} value(s) {shown} of {pairs} are NaN or infinite")
            continue
        values[move] = [float(value) for value in array]
    return (None, flaws) if flaws else (values, [])


def _read_bytes(root: Path, relative: str) -> tuple[bytes | None, str | None]:
    try:
        return (root / relative).read_bytes(), None
    except OSError as error:
        return None, f"{relative}: unreadable ({error.strerror or error})"


def _candidates(root: Path) -> tuple[list[str], list[str]]:
    """CSV files and `_berts.npz` files, relative and `/`-separated, sorted. A file in a run
    folder other than the run's own CSV and npz is ignored."""
    csvs, archives = [], []
    for folder, directories, files in os.walk(root):
        directories.sort()
        for name in sorted(files):
            relative = (Path(folder) / name).relative_to(root).as_posix()
            parent = PurePosixPath(relative).parent.name
            in_run_folder = RUN_NAME.fullmatch(parent) is not None
            if name.endswith(".csv") and (not in_run_folder or name == f"{parent}.csv"):
                csvs.append(relative)
            elif name.endswith("_berts.npz") and in_run_folder and name == f"{parent}_berts.npz":
                archives.append(relative)
    return csvs, archives


def read_release(directory: str | os.PathLike) -> Release:
    """Every run under `directory`, or the flaws that keep them out (all of them)."""
    root = Path(directory)
    release = Release()
    if not root.is_dir():
        release.flaws.append(f"{directory}: no such directory")
        return release
    csvs, archives = _candidates(root)
    if not csvs:
        release.flaws.append(f"{directory}: no CSV file in the layout {LAYOUT}")
        return release
    paths = []
    for relative in csvs:
        path, problems = parse_run_path(relative)
        release.flaws.extend(problems)
        if path is not None:
            paths.append(path)
    fixed = {(p.variant_folder, p.run): p for p in paths if p.fixed}
    for relative in archives:
        csv_relative = relative.removesuffix("_berts.npz") + ".csv"
        if csv_relative not in csvs:
            release.flaws.append(f"{relative}: no {PurePosixPath(csv_relative).name} beside it: add the run's CSV "
                                 "or remove the file")
    for path in paths:
        replacement = fixed.get((path.variant_folder, path.run))
        if not path.fixed and replacement is not None:
            release.replaced.append(f"{path.relative}: skipped: {replacement.relative} replaces it")
            continue
        data, problem = _read_bytes(root, path.relative)
        text, problem = (None, problem) if problem else _decoded(path.relative, data)
        if problem:
            release.flaws.append(problem)
            continue
        answers, problems = read_answers(path.relative, text, path.samples)
        release.flaws.extend(problems)
        inconsistencies = None
        if path.npz_relative in archives:
            data, problem = _read_bytes(root, path.npz_relative)
            if problem:
                release.flaws.append(problem)
                continue
            inconsistencies, problems = read_inconsistencies(path.npz_relative, data, path.samples)
            release.flaws.extend(problems)
        if answers is not None:
            release.runs.append(ReleaseRun(path, answers, inconsistencies))
    return release
