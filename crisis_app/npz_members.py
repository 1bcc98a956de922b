"""Reading one flat array out of an npz archive (a zip of .npy files) without trusting it.
Pure: numpy and zipfile, no Django.

`numpy.load(...)[name]` inflates a member whole before anything can look at its shape: a
3 MB archive whose member expands to 3 GB takes 3 GB of memory before the importer sees
that the run needs 190 values (issue 32). Here a member is judged before it is read:

1. the size the zip declares for it (ZipInfo.file_size) against what the expected values
   can take (header + count × the widest number, 16 bytes), and the compression ratio;
2. its .npy header, read from the member's stream (numpy.lib.format.read_magic and
   read_array_header_1_0/2_0): the shape, the dtype (numbers only; never objects, so
   never a pickle) and the count;
3. then exactly count × itemsize bytes, which zipfile also caps at the declared size: a
   member that lies about its size cannot make us inflate more than we asked for.
"""

from __future__ import annotations

import io
import os
import zipfile
from dataclasses import dataclass

import numpy as np

# An .npy header is a short dict padded to 64 bytes; numpy refuses headers beyond 10 000
# bytes by default (max_header_size), and savez writes a few hundred.
MAX_HEADER_BYTES = 10_000
WIDEST_NUMBER = 16  # complex128 / float128: no real number in an npy takes more


class ArchiveError(ValueError):
    """The archive as a whole cannot be read (not a zip)."""


@dataclass(frozen=True)
class Member:
    name: str  # as numpy names it: without .npy
    info: zipfile.ZipInfo


def _source(data) -> io.BufferedIOBase | str | os.PathLike:
    return io.BytesIO(data) if isinstance(data, (bytes, bytearray, memoryview)) else data


def open_archive(data) -> tuple[zipfile.ZipFile, dict[str, Member]]:
    """The zip and its members by array name, from bytes, a path or a binary file;
    ArchiveError when it is no zip. Nothing is inflated."""
    try:
        archive = zipfile.ZipFile(_source(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        raise ArchiveError(str(error)[:120]) from None
    members = {}
    for info in archive.infolist():
        if info.is_dir():
            continue
        name = info.filename.removesuffix(".npy")
        members[name] = Member(name, info)
    return archive, members


def size_bound(count: int) -> int:
    """The most bytes a member holding `count` numbers may declare."""
    return MAX_HEADER_BYTES + 64 + count * WIDEST_NUMBER


def _gigabytes(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e8 else f"{n:,} bytes"


def read_flat(archive: zipfile.ZipFile, member: Member, count: int, what: str
              ) -> tuple[np.ndarray | None, str | None]:
    """(the 1-d array of `count` real numbers, None) or (None, why not), never reading
    more than `size_bound(count)` bytes of the member. `what` explains the count in a
    message ("3 samples make 3 pairs (n(n-1)/2)")."""
    name, info = member.name, member.info
    bound = size_bound(count)
    if info.file_size > bound:
        ratio = f", {info.file_size / max(info.compress_size, 1):,.0f} times its packed {info.compress_size:,} bytes" \
            if info.compress_size < info.file_size else ""
        return None, (f"{name} would expand to {_gigabytes(info.file_size)}{ratio}, where {count} values need at most "
                      f"{bound:,}: not read; write one value per pair")
    try:
        with archive.open(info) as stream:
            version = np.lib.format.read_magic(stream)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream, max_header_size=MAX_HEADER_BYTES)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream, max_header_size=MAX_HEADER_BYTES)
            else:
                return None, f"{name} is an .npy of version {version[0]}.{version[1]}: write it with numpy.savez"
            if len(shape) != 1:
                return None, f"{name} has shape {shape}; write one value per pair i < j (a flat array)"
            if dtype.hasobject or not np.issubdtype(dtype, np.number) or np.issubdtype(dtype, np.complexfloating):
                return None, f"{name} holds {dtype} values, not real numbers"
            if shape[0] != count:
                return None, f"{name} has {shape[0]} values where {what}"
            wanted = count * dtype.itemsize
            data = stream.read(wanted)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as error:
        return None, f"{name}: not a readable .npy member ({str(error)[:120]}): write it with numpy.savez"
    if len(data) != wanted:
        return None, f"{name} is cut short: {len(data):,} of its {wanted:,} bytes"
    return np.frombuffer(data, dtype=dtype), None
