"""The on-disk join (issue 41): a large right table goes to SQLite; rows, values, counts and errors must be the
in-memory join's. A tiny threshold forces the disk path here."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from record_fixtures import distribution_mirror

from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.model import JoinStep
from clinreg.core.store import load_registry
from clinreg.instances.build import RecordBuild
from clinreg.instances.write import write_instances
from clinreg.sources import diskjoin
from clinreg.sources.diskjoin import DiskTable
from clinreg.sources.origin import folder_name
from clinreg.sources.steps import JoinState, first_match, join

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@given(st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "c", "d", "é", "a'b", ""])), max_size=12),
       st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "c", "e", "é", "a'b"])), max_size=8),
       st.sampled_from(["one_to_one", "many_to_one", "one_to_many", "one_to_many_all"]),
       st.sampled_from(["error", "drop", "keep"]), st.sampled_from([[], ["v"], ["v", "w"]]), st.integers(1, 6))
@settings(max_examples=300, deadline=None)
def test_a_join_on_disk_gives_the_in_memory_joins_rows_counts_and_errors(left_keys, right_keys, cardinality, unmatched,
                                                                          columns, batch):
    many = {"one_to_many": {"many": "first"}, "one_to_many_all": {"many": "all"}}.get(cardinality, {})
    spec = JoinStep(table="r", keys=["k"], cardinality=cardinality.replace("_all", ""), unmatched=unmatched,
                    columns=columns, **many)
    if not first_match(spec):
        return  # such joins keep their table in memory
    left = pa.table({"k": pa.array(left_keys, pa.string()), "n": list(range(len(left_keys)))})
    names = list(dict.fromkeys(["k", *columns]))
    right = pa.table({"k": pa.array(right_keys, pa.string()), "v": [f"v{i}" for i in range(len(right_keys))],
                      "w": pa.array([None if i % 3 == 0 else f"w{i}é" for i in range(len(right_keys))], pa.string())}
                     ).select(names)
    folder = tempfile.mkdtemp()
    try:
        def run(disk: bool):
            table = right
            if disk:
                table = DiskTable(folder, names, right.schema.types)
                for start in range(0, max(right.num_rows, 1), 3):  # appended in pieces, as a stream arrives
                    table.append(right.slice(start, 3))
                table.finish()
            counts: dict = {}
            try:
                state = JoinState(table, spec, "w")
                parts = [join(left.slice(s, batch), table, spec, "w", counts, state=state, offset=s)
                         for s in range(0, max(left.num_rows, 1), batch)]
                return pa.concat_tables(parts).to_pylist(), counts
            except SourceUnavailable as err:
                return str(err)
            finally:
                if disk:
                    table.close()

        assert run(True) == run(False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _fixture_build(tmp_path: Path, record_id: str) -> str:
    reg = load_registry(REPO)
    data = tmp_path / "data"
    if not (data / folder_name(reg.datasets[record_id])).exists():
        # Written once: a gzip written again may differ (its header's time), and so would the content hash.
        distribution_mirror(data, [record_id])
    out = tmp_path / f"{record_id}.jsonl"
    write_instances(RecordBuild(reg.datasets[record_id], reg, data_dir=data).batches(), "jsonl", out)
    return hashlib.sha256(out.read_bytes()).hexdigest()


def test_dischargeme_builds_the_same_bytes_with_its_joins_on_disk(tmp_path, monkeypatch):
    in_memory = _fixture_build(tmp_path, "dischargeme")
    made = []
    real = DiskTable.__init__
    monkeypatch.setattr(DiskTable, "__init__", lambda self, *a, **k: (made.append(a[1]), real(self, *a, **k))[1])
    monkeypatch.setattr(diskjoin, "DISK_JOIN_ROWS", 0)
    on_disk = _fixture_build(tmp_path, "dischargeme")
    assert len(made) == 5  # each of its five joins (keys only, first report, one-to-one targets)
    assert on_disk == in_memory


def test_a_repeated_key_of_a_one_to_one_join_is_named_as_in_memory(tmp_path):
    right = pa.table({"k": ["a", "b", "b", "c", "c"], "v": ["1", "2", "3", "4", "5"]})
    spec = JoinStep(table="r", keys=["k"], cardinality="one_to_one", columns=["v"])
    with pytest.raises(SourceUnavailable) as memory:
        JoinState(right, spec, "w")
    disk = DiskTable(tmp_path, ["k", "v"], right.schema.types)
    disk.append(right)
    disk.finish()
    with pytest.raises(SourceUnavailable) as on_disk:
        JoinState(disk, spec, "w")
    disk.close()
    assert str(on_disk.value) == str(memory.value)
    assert "2 rows for key" in str(memory.value)


def test_each_read_of_a_split_starts_a_one_to_one_joins_seen_keys_afresh(tmp_path):
    """Several mappings read one split, each through a new JoinState on the same table on disk."""
    right = pa.table({"k": ["a", "b"], "v": ["1", "2"]})
    left = pa.table({"k": ["b", "a"]})
    spec = JoinStep(table="r", keys=["k"], cardinality="one_to_one", columns=["v"])
    disk = DiskTable(tmp_path, ["k", "v"], right.schema.types)
    disk.append(right)
    disk.finish()
    try:
        for _ in range(3):
            out = join(left, disk, spec, "w", {}, state=JoinState(disk, spec, "w"))
            assert out.to_pylist() == [{"k": "b", "v": "2"}, {"k": "a", "v": "1"}]
        state = JoinState(disk, spec, "w")
        join(left, disk, spec, "w", {}, state=state)
        with pytest.raises(SourceUnavailable, match="rows 0 and 2 share key"):
            join(left.slice(0, 1), disk, spec, "w", {}, state=state, offset=2)
    finally:
        disk.close()


def test_a_streamed_split_reads_its_join_tables_before_its_own_reader_opens(tmp_path, monkeypatch):
    """Arrow's streaming reader reads up to 32 blocks ahead once open: opened first, the split's reader held them
    while DischargeMe's large join tables were read (issue 55: its peak at a million notes went over 400 MB)."""
    from clinreg.sources import streams

    opened = []
    real = streams.csv_batches

    def logged(path, *args, **kwargs):
        opened.append(path.name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(streams, "csv_batches", logged)
    _fixture_build(tmp_path, "dischargeme")
    tables = {"diagnosis.csv.gz", "triage.csv.gz", "edstays.csv.gz", "radiology.csv.gz", "discharge_target.csv.gz"}
    assert set(opened) == tables | {"discharge.csv.gz"}
    assert set(opened[: opened.index("discharge.csv.gz")]) == tables
