"""benchmarks_app.text_files read as a stream (issue 32): the same refusals as the whole
file's decode_text, a bad byte named with its line wherever the chunks fall, and the
records one at a time."""

import pytest

from benchmarks_app import text_files
from benchmarks_app.progress import FileProgress
from benchmarks_app.text_files import TableError, open_text, read_records, stream_records


def lines_of(path):
    with open_text(path) as stream:
        return list(stream)


def test_a_stream_gives_the_same_records_as_the_whole_text(tmp_path):
    text = 'a,b\n1,"two\nlines"\n\n3,4,extra\n'
    path = tmp_path / "f.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    with open_text(path) as stream:
        columns, records = stream_records(stream)
        streamed = list(records)
    whole_columns, whole = read_records(text)
    assert columns == whole_columns == ["a", "b"]
    assert [(r.line, r.cells, r.width, r.extra) for r in streamed] == [(r.line, r.cells, r.width, r.extra)
                                                                       for r in whole]
    assert [r.line for r in streamed] == [2, 5]  # the quoted cell spans lines 2-3; line 4 is blank


@pytest.mark.parametrize("data,message", [
    (b"\xff\xfea\x00,\x00", "file: is UTF-16 text"),
    (b"a,b\n1,\x00\n", "file: contains NUL bytes"),
    (b" \n\r\n", "file: is empty"),
])
def test_what_decode_text_refuses_the_stream_refuses(tmp_path, data, message):
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    with pytest.raises(TableError, match=message):
        lines_of(path)


def test_a_byte_that_is_not_utf8_is_named_with_its_line_across_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(text_files, "READ_CHUNK", 16)
    # 10 lines of "row n,é\n" (é is 2 bytes, so chunks of 16 bytes split characters), then 0xff on line 12.
    data = "".join(f"row {n},é\n" for n in range(10)).encode() + b"x\nbad \xff here\n"
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    with pytest.raises(TableError) as error:
        lines_of(path)
    assert str(error.value) == "line 12: byte 0xff is not UTF-8; save the file as UTF-8 (Excel: CSV UTF-8)"
    assert text_files.decode_text.__name__  # the whole-file reader keeps its own message
    with pytest.raises(TableError, match="line 12: byte 0xff"):
        text_files.decode_text(data)


def test_bytes_read_grow_to_the_size(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("a\n" * 1000)
    with open_text(path) as stream:
        list(stream)
        assert stream.bytes_read == stream.size == 2000


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Sink(list):
    def write(self, text):
        self.append(text)


def test_progress_off_a_terminal_is_a_line_at_most_every_few_seconds():
    clock, sink = Clock(), Sink()
    progress = FileProgress(sink, "rows", every=5.0, clock=clock)
    progress(10, 100, "checking")  # at 0 s: nothing yet
    clock.now = 6
    progress(50_000_000, 200_000_000, "checking")
    clock.now = 7
    progress(60_000_000, 200_000_000, "checking")  # 1 s after the last line: nothing
    clock.now = 8
    progress(120_000, None, "writing")  # a new phase, after more than 5 s: told at once
    clock.now = 9
    progress(130_000, None, "writing")
    assert sink == ["checking: 25% (50.0 of 200.0 MB) after 6 s\n", "writing: 120,000 rows after 8 s\n"]
