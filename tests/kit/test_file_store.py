"""The database storage (kit.file_store.DatabaseStorage), Django's storage API over the
database: a file saved is read back the same, in chunks of exactly the chunk size, from any
place it is sought to, and a deleted file is gone with all its chunks."""

import io

import pytest
from django.core.files.base import ContentFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kit.file_store import DatabaseStorage, _pieces
from kit.models import FileChunk, StoredFile

pytestmark = pytest.mark.django_db


def test_a_file_is_kept_in_chunks_of_the_chunk_size_and_read_back():
    storage = DatabaseStorage(chunk_size=4)
    name = storage.save("reports/7/report.html", ContentFile(b"0123456789"))
    assert name == "reports/7/report.html" and storage.exists(name) and storage.size(name) == 10
    # 10 bytes in chunks of 4: 4 + 4 + 2, three rows.
    # (PostgreSQL gives the bytes as a memoryview, SQLite as bytes.)
    assert [(i, bytes(d)) for i, d in FileChunk.objects.order_by("index").values_list("index", "data")] == [
        (0, b"0123"), (1, b"4567"), (2, b"89")]
    with storage.open(name) as handle:
        assert handle.size == 10
        assert handle.read(3) == b"012"
        assert handle.read() == b"3456789"
        handle.seek(5)
        assert handle.read(4) == b"5678"
        handle.seek(-3, io.SEEK_END)
        assert handle.read() == b"789"


def test_a_name_taken_gets_another_and_a_deleted_file_takes_its_chunks_along():
    storage = DatabaseStorage(chunk_size=4)
    first = storage.save("a/b.txt", ContentFile(b"one"))
    second = storage.save("a/b.txt", ContentFile(b"two"))
    assert first == "a/b.txt" and second != first and second.startswith("a/b_")
    assert storage.listdir("a") == ([], sorted([first.split("/")[1], second.split("/")[1]]))
    assert storage.listdir("") == (["a"], [])
    storage.delete(first)
    assert not storage.exists(first) and storage.open(second).read() == b"two"
    assert FileChunk.objects.count() == 1 and StoredFile.objects.count() == 1
    with pytest.raises(FileNotFoundError):
        storage.open(first)
    with pytest.raises(FileNotFoundError):
        storage.size(first)


def test_it_opens_for_reading_only():
    storage = DatabaseStorage()
    storage.save("x", ContentFile(b"x"))
    with pytest.raises(ValueError, match="reading only"):
        storage.open("x", "wb")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300), chunk=st.integers(1, 64), start=st.integers(0, 320))
def test_every_file_reads_back_whole_and_from_any_place(data, chunk, start):
    storage = DatabaseStorage(chunk_size=chunk)
    name = storage.save("f", ContentFile(data))
    try:
        # ceil(len / chunk) rows, each full but the last.
        assert FileChunk.objects.count() == -(-len(data) // chunk)
        with storage.open(name) as handle:
            assert handle.read() == data
            handle.seek(start)
            assert handle.read() == data[start:]
    finally:
        storage.delete(name)


@given(data=st.binary(max_size=200), size=st.integers(1, 50), reads=st.integers(1, 7))
def test_pieces_are_exact_whatever_the_reader_returns(data, size, reads):
    class Trickle(io.RawIOBase):  # a source that returns at most `reads` bytes a call
        def __init__(self):
            self.source = io.BytesIO(data)

        def readable(self):
            return True

        def read(self, n=-1):
            return self.source.read(min(n, reads) if n and n > 0 else reads)

    pieces = list(_pieces(Trickle(), size))
    assert b"".join(pieces) == data
    assert all(len(p) == size for p in pieces[:-1]) and (not pieces or 0 < len(pieces[-1]) <= size)
