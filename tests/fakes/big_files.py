"""Large and hostile files for the importers' tests and bench/import_large.py (issue 32),
written in a stream: generating them never holds them in memory."""

from __future__ import annotations

import csv
import os
import zipfile

import numpy as np

from tests.factories import GOOD_ROW, HEADER


def write_answers_csv(path, keys: list[str], rows: int, models: int = 2, output: str = "A",
                      bad_every: int = 0) -> int:
    """`rows` answers to import_responses: keys × models × repeats in that order (as many
    repeats as needed); with `bad_every`, every such row names a key that does not exist.
    Returns the file's size in bytes."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["question_key", "model", "repeat", "output"])
        per_repeat = len(keys) * models
        for n in range(rows):
            repeat, rest = divmod(n, per_repeat)
            model, key = divmod(rest, len(keys))
            name = keys[key] if not (bad_every and n % bad_every == bad_every - 1) else f"missing-{n}"
            writer.writerow([name, f"outside-{model}", repeat, output])
        return handle.tell()


def write_scenarios_csv(path, rows: int, bad_every: int = 0) -> int:
    """`rows` scenarios of import_scenarios (the factories' good row, each with its own
    key); with `bad_every`, every such row has a domain that does not exist."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["Key", *HEADER])
        for n in range(rows):
            row = list(GOOD_ROW)
            if bad_every and n % bad_every == bad_every - 1:
                row[0] = "Nowhere"
            writer.writerow([f"big-{n}", *row])
        return handle.tell()


def write_npz_bomb(path, values: int = 400_000_000, name: str = "move1", other: dict | None = None) -> int:
    """An npz whose member `name` is an .npy of `values` float64 zeros, deflated: 400 million
    values are 3.2 GB that pack into about 3 MB. Written in chunks (no 3 GB in memory).
    `other`: further (small) arrays. Returns the archive's size."""
    header = {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float64)), "fortran_order": False,
              "shape": (values,)}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(member, header)
            zeros = bytes(1 << 24)
            left = values * 8
            while left:
                step = min(left, len(zeros))
                member.write(zeros[:step])
                left -= step
        for other_name, array in (other or {}).items():
            with archive.open(f"{other_name}.npy", "w") as member:
                np.lib.format.write_array(member, np.asarray(array), allow_pickle=False)
    return os.path.getsize(path)
