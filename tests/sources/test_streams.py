"""A split read batch by batch (streams.py, issue 26) gives the rows the whole-file reader gives, or stops with a
located message; the read steps applied batch by batch (steps.StepRun) give the whole table's result."""

from __future__ import annotations

import gzip
import json

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.model import JoinStep, Step, TableSpec
from clinreg.sources import streams
from clinreg.sources.formats import csv as csv_format
from clinreg.sources.read import read_table
from clinreg.sources.steps import StepRun, apply_steps

# pyarrow before its streaming JSON reader reads JSON lines whole (streams.stream_table returns None).
needs_open_json = pytest.mark.skipif(not hasattr(__import__("pyarrow.json").json, "open_json"),
                                     reason="this pyarrow has no streaming JSON reader: JSON lines are read whole")

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
                    st.sampled_from(["2020-01-01", "1e5", "true", "\u2028", "é"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from("xy"), inner, max_size=2)),
                      max_leaves=4)
json_rows = st.lists(st.dictionaries(st.sampled_from(["a", "b", "c"]), values, min_size=1, max_size=3),
                     min_size=1, max_size=40)


def _streamed(folder, spec) -> list[dict]:
    rows = []
    for table in streams.stream_table(folder, spec, "rec: split 'test'"):
        rows.extend(table.to_pylist())
    return rows


def _rendered(rows: list[dict], names: list[str]) -> list[list[str]]:
    """What a template shows of each value ({{ name }} is str() of the Python value)."""
    return [[str(row.get(name)) for name in names] for row in rows]


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(streams, "STREAM_BLOCK_BYTES", 64)


@pytest.mark.slow
@needs_open_json
@given(json_rows, st.booleans())
@SETTINGS
def test_json_lines_in_batches_render_as_the_whole_file_or_stop_with_the_line(tmp_path, small_blocks, data, gz):
    name = "x.jsonl.gz" if gz else "x.jsonl"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data).encode()
    (tmp_path / name).write_bytes(gzip.compress(text) if gz else text)
    spec = TableSpec(files=name)
    whole = read_table(tmp_path, spec, "rec: split 'test'")
    try:
        streamed = _streamed(tmp_path, spec)
    except SourceUnavailable as err:
        # Only a field, or a change of type, that the rows before it could not hold stops a streamed read.
        assert "first appears here" in str(err) or "values in the rows before" in str(err)
        assert f"{name}:" in str(err)
        return
    assert len(streamed) == whole.num_rows
    assert _rendered(streamed, whole.column_names) == _rendered(whole.to_pylist(), whole.column_names)


@needs_open_json
def test_a_field_first_seen_after_the_first_block_names_its_line(tmp_path, small_blocks):
    lines = [json.dumps({"q": f"question {i}", "a": "A"}) for i in range(20)] + [json.dumps({"q": "x", "late": 1})]
    (tmp_path / "x.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(SourceUnavailable, match=r"x\.jsonl:21: field 'late' first appears here"):
        _streamed(tmp_path, TableSpec(files="x.jsonl"))


@needs_open_json
def test_a_file_within_one_block_reads_exactly_as_the_whole_file(tmp_path):
    # Under STREAM_BLOCK_BYTES nothing can differ: a late field and mixed types are read as the whole file reads them.
    lines = [{"q": "a", "n": 1}, {"q": "b", "n": "two"}, {"q": "c", "late": True}]
    (tmp_path / "x.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    spec = TableSpec(files="x.jsonl")
    assert _streamed(tmp_path, spec) == read_table(tmp_path, spec, "w").to_pylist()


csv_cells = st.one_of(st.just(""), st.text(alphabet="ab ,\"\r\n\u00e9", max_size=6))


@given(st.lists(st.lists(csv_cells, min_size=3, max_size=3), min_size=0, max_size=30), st.sampled_from(["\n", "\r\n"]),
       st.booleans(), st.booleans())
@SETTINGS
def test_csv_in_batches_gives_the_whole_files_rows(tmp_path, small_blocks, body, newline, gz, ragged):
    import csv
    import io

    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator=newline)
    writer.writerow(["id", "note", "label"])
    writer.writerows(body)
    text = out.getvalue() + ("x,y,z,,\n" if ragged else "")
    name = "x.csv.gz" if gz else "x.csv"
    (tmp_path / name).write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    spec = TableSpec(files=name)
    whole = read_table(tmp_path, spec, "w")
    assert _streamed(tmp_path, spec) == whole.to_pylist()


def test_a_split_over_several_csv_files_with_one_header_streams_in_file_order(tmp_path, small_blocks):
    for part in ("a", "b"):
        (tmp_path / f"{part}.csv").write_text("id,text\n" + "".join(f"{part}{i},t{i}\n" for i in range(30)))
    spec = TableSpec(files="{part}.csv")
    assert streams.stream_table(tmp_path, spec, "w") is not None
    assert _streamed(tmp_path, spec) == read_table(tmp_path, spec, "w").to_pylist()


def test_what_cannot_stream_is_read_whole(tmp_path):
    (tmp_path / "a.csv").write_text("id,text\n1,x\n")
    (tmp_path / "b.csv").write_text("id,other\n2,y\n")
    (tmp_path / "x.json").write_text('[{"a": 1}]')
    assert streams.stream_table(tmp_path, TableSpec(files="{part}.csv"), "w") is None  # headers differ
    assert streams.stream_table(tmp_path, TableSpec(files="x.json"), "w") is None


@pytest.mark.slow
def test_an_inflating_gzip_is_refused_while_streaming(tmp_path):
    rows = b"1,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n" * (5 << 20)
    (tmp_path / "x.csv.gz").write_bytes(gzip.compress(b"id,text\n" + rows))
    with pytest.raises(SourceUnavailable, match="unpacks to more than"):
        _streamed(tmp_path, TableSpec(files="x.csv.gz"))


# ------------------------------------------------------------------------------------------------ steps by batch


LEFT = pa.table({"k": [str(i % 7) for i in range(50)], "text": [f"note {i}" for i in range(50)]})
RIGHT = pa.table({"k": [str(i % 7) for i in range(21)], "v": [f"v{i}" for i in range(21)]})


@pytest.mark.parametrize("join", [
    {"table": "r", "keys": ["k"], "cardinality": "one_to_many", "separator": "|"},
    {"table": "r", "keys": ["k"], "cardinality": "one_to_many", "many": "first"},
])
@pytest.mark.parametrize("size", [1, 7, 50])
def test_steps_by_batch_give_the_whole_tables_result(join, size):
    steps = [Step(join=JoinStep(**join)),
             Step.model_validate({"extract": {"column": "text", "patterns": [r"note (?P<n>\d+)"]}}),
             Step.model_validate({"render": {"column": "prompt", "template": "{{ text }} / {{ v }} / {{ n }}"}})]
    whole = apply_steps(LEFT, steps, lambda name: RIGHT, "w", {})
    read = []
    run = StepRun(steps, lambda name: read.append(name) or RIGHT, "w", {})
    assert run.streamable
    parts = [run.apply(LEFT.slice(start, size)) for start in range(0, LEFT.num_rows, size)]
    assert pa.concat_tables(parts).to_pylist() == whole.to_pylist()
    assert read == ["r"]  # the right table is read once and indexed once, not per batch


def test_a_one_to_one_join_sees_repeated_keys_across_batches():
    left = pa.table({"k": ["1", "2", "1"]})
    right = pa.table({"k": ["1", "2"], "v": ["a", "b"]})
    run = StepRun([Step(join=JoinStep(table="r", keys=["k"], cardinality="one_to_one"))], lambda n: right, "w", {})
    run.apply(left.slice(0, 2))
    with pytest.raises(SourceUnavailable, match="rows 0 and 2 share key"):
        run.apply(left.slice(2, 1))


def test_dedupe_is_not_streamed():
    run = StepRun([Step.model_validate({"dedupe": {"columns": ["k"]}})], lambda n: None, "w", {})
    assert not run.streamable


def test_an_xlsx_sheet_streams_as_the_whole_file_reads_it(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Question", "Answer", "n"])
    for i in range(2500):
        sheet.append([f"q{i}", None if i % 7 == 0 else f"a {i}", i if i % 3 else 1.0])
    sheet.append([None, "  ", None])  # the blank rows spreadsheets end in
    book.save(tmp_path / "x.xlsx")
    spec = TableSpec(files="x.xlsx")
    tables = list(streams.stream_table(tmp_path, spec, "w"))
    assert len(tables) == 3  # batches of 1000 rows
    assert [row for t in tables for row in t.to_pylist()] == read_table(tmp_path, spec, "w").to_pylist()


def test_a_join_that_lists_its_columns_asks_only_for_keys_and_those_columns():
    asked = []

    def columns(name, names, spill):
        asked.append((name, names))
        return RIGHT.select(names)

    steps = [Step(join=JoinStep(table="r", keys=["k"], cardinality="one_to_many", columns=[], unmatched="drop")),
             Step(join=JoinStep(table="r", keys=["k"], cardinality="one_to_many", many="first", columns=["v"]))]
    run = StepRun(steps, lambda name: RIGHT, "w", {}, columns=columns)
    out = run.apply(LEFT)
    assert asked == [("r", ["k"]), ("r", ["k", "v"])]
    assert out.to_pylist() == apply_steps(LEFT, steps, lambda name: RIGHT, "w", {}).to_pylist()


@given(st.lists(st.one_of(st.none(), st.sampled_from("abcd")), max_size=12),
       st.lists(st.one_of(st.none(), st.sampled_from("abce")), max_size=8),
       st.sampled_from(["one_to_one", "many_to_one", "one_to_many", "one_to_many_all"]),
       st.sampled_from(["error", "drop", "keep"]), st.sampled_from([None, [], ["v"]]))
@settings(max_examples=300, deadline=None)
def test_first_match_lookups_join_as_the_full_index_joins(left_keys, right_keys, cardinality, unmatched, columns):
    """A one-key join taking the first match looks keys up in a dict of first rows; rows, values, counts and
    errors must be the full index's."""
    from clinreg.sources.steps import JoinState, join, join_index

    left = pa.table({"k": pa.array(left_keys, pa.string()), "n": list(range(len(left_keys)))})
    right = pa.table({"k": pa.array(right_keys, pa.string()), "v": [f"v{i}" for i in range(len(right_keys))]})
    many = {"one_to_many": {"many": "first"}, "one_to_many_all": {"many": "all"}}.get(cardinality, {})
    spec = JoinStep(table="r", keys=["k"], cardinality=cardinality.replace("_all", ""), unmatched=unmatched,
                    columns=columns, **many)

    def run(arrow: bool):
        counts = {}
        try:
            state = JoinState(right, spec, "w")
            if not arrow and state.by_first:
                state.by_first, state.index = False, join_index(right, spec, "w")
            out = join(left.slice(0, 5), right, spec, "w", counts, state=state)
            out2 = join(left.slice(5), right, spec, "w", counts, state=state, offset=5)
            return pa.concat_tables([out, out2]).to_pylist(), counts
        except SourceUnavailable as err:
            return str(err)

    assert run(True) == run(False)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
       | st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028\u2029\u202f\u3000ab", max_size=40))
def test_whitespace_folding_is_the_regular_expressions(text):
    import re

    from clinreg.instances.leaks import _fold

    assert _fold(text) == re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("value", ['aaa"\r\n', "\r\r\n", "x\ry", "\r"])
def test_a_quoted_line_break_split_by_a_block_boundary_keeps_every_character(tmp_path, monkeypatch, value):
    """Found by the hypothesis test: Arrow's CSV reader dropped the LF of a quoted CRLF that a block boundary
    split ('aaa"\\r' for 'aaa"\\r\\n'). CRLF reaches it as LF (formats.csv.LineFeeds), as the Python reader reads it;
    every block size from 16 to 160 bytes puts the boundary somewhere else."""
    import csv
    import io

    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["id", "note", "label"])
    writer.writerows([["", "", ""], ["", "", 'aa"'], ["", "", 'aaa""'], ["", "a", "aaaa,é"], ["", ",", "a,"],
                      ["", 'aaaa""', "aa,ééé"], [value, "", ""], ["b", "c", "d"]])
    (tmp_path / "x.csv").write_text(out.getvalue(), encoding="utf-8", newline="")
    spec = TableSpec(files="x.csv")
    expected = csv_format._read_csv_python(tmp_path / "x.csv", spec).to_pylist()
    assert read_table(tmp_path, spec, "w").to_pylist() == expected
    for block in range(16, 161):
        monkeypatch.setattr(streams, "STREAM_BLOCK_BYTES", block)
        assert _streamed(tmp_path, spec) == expected, block


def test_messages_name_the_splits_row_after_a_step_dropped_rows():
    """A step after a row-dropping join counts the rows that reached it, so a message names the same row as the
    whole-table path."""
    left = pa.table({"k": ["1", "x", "2", "1"]})
    right = pa.table({"k": ["1", "2"], "v": ["a", "b"]})
    steps = [Step(join=JoinStep(table="r", keys=["k"], cardinality="many_to_one", unmatched="drop")),
             Step(join=JoinStep(table="r", keys=["k"], cardinality="one_to_one", columns=[]))]
    with pytest.raises(SourceUnavailable) as whole:
        apply_steps(left, steps, lambda n: right, "w", {})
    run = StepRun(steps, lambda n: right, "w", {})
    with pytest.raises(SourceUnavailable) as batched:
        for start in range(4):
            run.apply(left.slice(start, 1))
    assert str(batched.value) == str(whole.value) and "rows 0 and 2 share key" in str(whole.value)


def test_a_cr_cr_lf_split_across_chunks_still_goes_the_python_way(tmp_path, monkeypatch):
    raw = b'id,note\n1,"a\r\r\nb"\n2,c\n'
    cut = raw.index(b"\r\r\n") + 2  # the chunk ends in CR CR, the LF starts the next one
    chunks = iter([raw[:cut], raw[cut:], b""])

    class Chunks:
        def read(self, size):
            return next(chunks)

        def close(self):
            pass

    stream = csv_format.LineFeeds(Chunks())
    with pytest.raises(csv_format.CarriageReturns):
        while stream.read(1 << 20):
            pass


class _Pieces:
    """A stream that hands its bytes on in the given piece sizes, whatever size is asked."""

    def __init__(self, raw: bytes, sizes: list[int]) -> None:
        self.raw, self.sizes, self.at = raw, sizes, 0

    def read(self, size: int) -> bytes:
        step = self.sizes[self.at % len(self.sizes)] if self.sizes else size
        piece = self.raw[:min(size, step)]
        self.raw, self.at = self.raw[len(piece):], self.at + 1
        return piece

    def close(self) -> None:
        pass


@SETTINGS
@given(raw=st.binary(max_size=200).map(lambda b: bytes(b"a\r\n,"[x % 4] for x in b)),
       pieces=st.lists(st.integers(min_value=1, max_value=9), max_size=4),
       asks=st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=4), into=st.booleans())
def test_line_feeds_hands_on_the_bytes_with_crlf_as_lf_in_pieces_no_longer_than_asked(raw, pieces, asks, into):
    """Whatever pieces the file gives and whatever sizes its reader asks for (Arrow calls `read`, a buffered
    reader `readinto`): every CRLF arrives as LF, no piece is longer than asked, no CR ends a piece whose next
    begins with LF (a CR waits for what follows), and a CR before a CRLF goes the Python way."""
    stream = csv_format.LineFeeds(_Pieces(raw, pieces))
    got, k = [], 0
    try:
        while True:
            ask = asks[k % len(asks)]
            k += 1
            if into:
                buffer = bytearray(ask)
                n = stream.readinto(buffer)
                piece = bytes(buffer[:n])
            else:
                piece = stream.read(ask)
            assert len(piece) <= ask
            if not piece:
                break
            got.append(piece)
    except csv_format.CarriageReturns:
        assert b"\r\r\n" in raw
        return
    assert b"\r\r\n" not in raw
    assert b"".join(got) == raw.replace(b"\r\n", b"\n")
    # A CRLF never straddles two pieces: Arrow would lose its LF at a block boundary.
    assert not any(a.endswith(b"\r") and b.startswith(b"\n") for a, b in zip(got, got[1:]))
    assert stream.read(5) == b"" and stream.read() == b""


@pytest.mark.parametrize("tail, refused", [(b"x", False), (b"\n", True), (b"", False)])
def test_a_file_of_carriage_returns_is_read_in_pieces_as_asked_never_held_whole(tail, refused):
    raw = b"\r" * (5 << 20) + tail
    inner = _Pieces(raw, [])
    stream = csv_format.LineFeeds(inner)
    got = []
    try:
        while piece := stream.read(1 << 20):
            got.append(piece)
    except csv_format.CarriageReturns:
        assert refused
    else:
        assert not refused and b"".join(got) == raw
        assert max(map(len, got)) <= 1 << 20
    assert inner.at <= 8  # a read of about a MiB each time, not one byte at a time behind a growing hold


def test_line_feeds_reads_the_rest_whole_when_asked_for_everything():
    stream = csv_format.LineFeeds(_Pieces(b"a\r\nb\r\r" + b"c" * 3_000_000 + b"\r\n", [1 << 20]))
    assert stream.read(3) == b"a\n"
    assert stream.read() == b"b\r\r" + b"c" * 3_000_000 + b"\n"


@needs_open_json
def test_a_json_lines_field_turning_from_numbers_to_text_after_the_first_block_stops_with_its_lines(tmp_path,
                                                                                                    small_blocks):
    lines = [json.dumps({"id": i, "q": "x"}) for i in range(30)] + [json.dumps({"id": "A-7", "q": "y"})]
    (tmp_path / "x.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(SourceUnavailable, match=r"x\.jsonl:\d+-\d*: field 'id' holds string values here and int64"):
        _streamed(tmp_path, TableSpec(files="x.jsonl"))


def test_two_reads_of_a_streamed_split_count_their_drops_once_each(tmp_path):
    from clinreg.core.model import Read
    from clinreg.sources.location import DataLocation
    from clinreg.sources.splits import FileSplitReader

    (tmp_path / "t.csv").write_text("k,q\n1,a\n9,b\n2,c\n")
    (tmp_path / "r.csv").write_text("k,v\n1,x\n2,y\n")
    read = Read.model_validate({"tables": {"r": {"files": "r.csv"}}, "splits": {"test": {
        "files": "t.csv",
        "steps": [{"join": {"table": "r", "keys": ["k"], "cardinality": "many_to_one", "unmatched": "drop"}}]}}})
    reader = FileSplitReader(DataLocation(kind="mirror", config=None, folder=tmp_path, read=read, record_id="rec"))
    try:
        for _ in range(2):
            rows = sum(t.num_rows for t in reader.batches("test", "rec", 1000))
            assert rows == 2 and reader.dropped["test"] == {"no match in r": 1}
    finally:
        reader.close()
