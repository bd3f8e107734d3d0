"""read_ahead (readahead.py) hands on exactly the reader's items, in order, and its error where the reader raised
it; closing it early closes the reader and leaves no thread behind. Streamed CSV and JSON lines go through it, so
their rows and located errors are those of the reader run on the caller's thread."""

from __future__ import annotations

import csv
import io
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.model import TableSpec
from clinreg.sources import streams
from clinreg.sources.read import read_table
from clinreg.sources.readahead import read_ahead
from threads import NamedThreads, within

READERS = NamedThreads("clinreg-read-ahead")  # read-ahead threads of other tests' streams may not be collected yet
_alive = READERS.alive


def _within(work):
    return within(work, "read_ahead blocked")


@pytest.fixture(autouse=True)
def no_thread_left():
    READERS.begin()
    yield
    assert _alive() == []


class Source:
    """A generator of `items` that raises `error` after them, recording what it was asked for and its close."""

    def __init__(self, items, error: BaseException | None = None) -> None:
        self.items, self.error = list(items), error
        self.pulled = 0
        self.closed = threading.Event()

    def __iter__(self):
        try:
            for item in self.items:
                self.pulled += 1
                yield item
            if self.error is not None:
                raise self.error
        finally:
            self.closed.set()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers() | st.text(max_size=3) | st.none(), max_size=60), st.integers(1, 4))
def test_every_item_comes_in_order(items, depth):
    objects = [[x] for x in items]  # the very objects, not equal copies
    got = _within(lambda: list(read_ahead(iter(Source(objects)), depth)))
    assert len(got) == len(objects) and all(a is b for a, b in zip(got, objects))
    assert _alive() == []


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 30), st.integers(1, 4), st.sampled_from([ValueError, OSError, KeyError, SourceUnavailable]))
def test_an_error_at_item_k_comes_after_items_0_to_k_minus_1(k, depth, kind):
    error = kind(f"broke at item {k}")
    got: list = []

    def consume():
        for item in read_ahead(iter(Source(range(k), error)), depth):
            got.append(item)

    with pytest.raises(kind) as raised:
        _within(consume)
    assert raised.value is error and str(raised.value) == str(kind(f"broke at item {k}"))
    assert got == list(range(k))
    assert _alive() == []


def test_an_empty_iterator_gives_nothing():
    source = Source([])
    assert _within(lambda: list(read_ahead(iter(source)))) == []
    assert source.closed.is_set()
    assert _within(lambda: list(read_ahead(iter([]), 3))) == []


@pytest.mark.parametrize("depth", [1, 2, 5])
@pytest.mark.parametrize("how", ["break", "close"])
def test_closing_early_closes_the_reader_and_stops_the_thread(depth, how):
    """The reader is endless: its thread waits on a full queue until the consumer leaves."""
    def endless():
        n = 0
        while True:
            n += 1
            yield n

    closed = threading.Event()

    def reader():
        try:
            yield from endless()
        finally:
            closed.set()

    held = reader()  # held here, so that only an explicit close (not its release) runs its finally

    def consume():
        got = []
        if how == "break":
            for item in read_ahead(held, depth):
                got.append(item)
                if len(got) == 3:
                    break
        else:
            stream = read_ahead(held, depth)
            got = [next(stream) for _ in range(3)]
            stream.close()
        return got

    assert _within(consume) == [1, 2, 3]
    assert closed.is_set()  # the reader's finally ran: its file is closed
    assert _alive() == []


def test_closing_before_the_first_item_is_taken_leaves_nothing():
    source = Source(range(10))
    stream = read_ahead(iter(source))
    stream.close()  # never started: no thread, the reader untouched
    assert _alive() == [] and source.pulled == 0


def test_the_reader_runs_at_most_depth_items_ahead():
    """Memory is bounded by `depth` batches: never more than depth + 1 items pulled beyond those handed out (one
    waiting in the reader's thread for a free slot)."""
    source = Source(range(2000))
    depth = 2

    def consume():
        seen = []
        for i, _item in enumerate(read_ahead(iter(source), depth)):
            seen.append(source.pulled - (i + 1))
            sum(range(200))  # some work per item, while the reader's thread runs on
        return seen

    ahead = _within(consume)
    assert max(ahead) <= depth + 1


# ------------------------------------------------------------------ streamed files, end to end


def _streamed(folder, spec):
    rows, error = [], None
    stream = streams.stream_table(folder, spec, "rec: split 'test'")
    try:
        for table in stream:
            rows.extend(table.to_pylist())
    except SourceUnavailable as err:
        error = str(err)
    return rows, error


def _on_this_thread(monkeypatch):
    """streams as before read_ahead: the reader's batches on the caller's thread."""
    monkeypatch.setattr(streams, "read_ahead", lambda batches, depth=1: batches)


def _csv(rows, header=("id", "note", "label")) -> str:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_a_parse_error_in_a_later_block_is_the_same_located_message(tmp_path, monkeypatch, fmt):
    """Arrow reads the first blocks, fails on a row of too many fields in a later one, and the Python reader
    takes over from there (formats.csv.csv_batches) and stops at that row: the rows before it are handed on, and
    the message names the file's line, as the whole-file reader and the stream without read-ahead say it."""
    monkeypatch.setattr(streams, "STREAM_BLOCK_BYTES", 64)
    sep = "\t" if fmt == "tsv" else ","
    lines = ["id" + sep + "note" + sep + "label"] + [sep.join([str(i), f"note {i}", "A"]) for i in range(40)]
    lines.insert(31, sep.join(["x", "y", "z", "extra"]))  # line 32 of the file, blocks past the first
    (tmp_path / f"x.{fmt}").write_text("\n".join(lines) + "\n")
    spec = TableSpec(files=f"x.{fmt}")
    rows, error = _streamed(tmp_path, spec)
    assert error == f"rec: split 'test': x.{fmt}:32: 4 fields where the header has 3"
    with pytest.raises(SourceUnavailable) as whole:
        read_table(tmp_path, spec, "rec: split 'test'")
    assert str(whole.value) == error
    assert rows == [{"id": str(i), "note": f"note {i}", "label": "A"} for i in range(len(rows))] and 0 < len(rows) <= 30
    assert _alive() == []
    _on_this_thread(monkeypatch)
    assert _streamed(tmp_path, spec) == (rows, error)


def test_a_csv_arrow_gives_up_on_midway_reads_the_rest_the_python_way(tmp_path, monkeypatch):
    """A ragged row past the first blocks: Arrow fails there, the csv module reads on from the rows Arrow gave."""
    monkeypatch.setattr(streams, "STREAM_BLOCK_BYTES", 64)
    body = [[str(i), f"note, {i}", "B"] for i in range(50)]
    body.insert(35, ["short"])
    (tmp_path / "x.csv").write_text(_csv(body) + "y,z,w,,\n")
    spec = TableSpec(files="x.csv")
    rows, error = _streamed(tmp_path, spec)
    assert error is None
    assert rows == read_table(tmp_path, spec, "w").to_pylist()
    assert len(rows) == 52 and rows[35] == {"id": "short", "note": None, "label": None}
    _on_this_thread(monkeypatch)
    assert _streamed(tmp_path, spec) == (rows, None)


def test_a_streamed_file_is_read_ahead_and_its_thread_ends_with_an_early_close(tmp_path, monkeypatch):
    monkeypatch.setattr(streams, "STREAM_BLOCK_BYTES", 64)
    (tmp_path / "x.csv").write_text(_csv([[str(i), "n" * 20, "A"] for i in range(200)]))
    stream = streams.stream_table(tmp_path, TableSpec(files="x.csv"), "w")
    first = next(stream)
    assert first.num_rows > 0 and len(_alive()) == 1  # the next block is being read on the second thread
    stream.close()  # a build that stops early (an error, --limit) closes its stream
    assert _alive() == []


def test_a_json_lines_error_after_the_first_block_is_located_as_without_read_ahead(tmp_path, monkeypatch):
    import json

    if not streams._open_json():
        pytest.skip("this pyarrow has no streaming JSON reader: JSON lines are read whole")
    monkeypatch.setattr(streams, "STREAM_BLOCK_BYTES", 64)
    lines = [json.dumps({"q": f"question {i}", "a": "A"}) for i in range(20)] + [json.dumps({"q": "x", "late": 1})]
    (tmp_path / "x.jsonl").write_text("\n".join(lines) + "\n")
    spec = TableSpec(files="x.jsonl")
    rows, error = _streamed(tmp_path, spec)
    assert error is not None and "x.jsonl:21: field 'late' first appears here" in error
    assert rows == [{"q": f"question {i}", "a": "A"} for i in range(len(rows))]
    _on_this_thread(monkeypatch)
    assert _streamed(tmp_path, spec) == (rows, error)
