"""Canonical JSON lines: the fast writer matches json.dumps byte for byte, and every line is a valid Instance; a
JSON-lines file is replaced whole or not at all, whatever fails while it is written."""

from __future__ import annotations

import contextlib
import errno
import json
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinreg.instances import write as instance_files
from clinreg.instances.batch import InstanceBatch
from clinreg.instances.canonical import canonical_chunks, canonical_json, canonical_lines
from clinreg.instances.schema import Instance
from clinreg.instances.write import write_instances

texts = st.text(max_size=30)
PROVENANCE = {"instance_schema": 2, "record": "ds", "record_version": "1.0.0", "registry_release": "1.3.0",
              "clinreg_version": "0.1.0", "canary": "c", "source": {"kind": "mirror", "repo": None, "revision": None,
                                                                    "content_sha256": "ab"}}
meta_values = st.one_of(st.none(), st.booleans(), st.integers(), texts, st.lists(texts, max_size=3),
                        st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.sampled_from(["v1", "v2"])), texts, st.lists(texts, max_size=4),
                          st.one_of(st.none(), st.sampled_from(list("ABCD"))), st.lists(texts, max_size=3),
                          st.dictionaries(texts, meta_values, max_size=3)), max_size=5),
       texts, st.lists(texts, min_size=1, max_size=2))
def test_fast_lines_equal_canonical_json(rows, split, tasks):
    batch = InstanceBatch("ds", "map", tasks, split or "test", provenance=PROVENANCE)
    for i, (variant, text, choices, answer, refs, meta) in enumerate(rows):
        batch.variant.append(variant)
        batch.source_index.append(i)
        batch.prompt.append(text)
        batch.input.append(text.split("|")[0])
        batch.choices.append(choices)
        batch.gold.append({"kind": "choice" if answer else "text", "letter": answer, "index": None if answer is None
                           else "ABCD".index(answer), "value": text, "lower": None, "upper": None})
        batch.references.append(refs)
        batch.context.append(meta)
    lines = list(canonical_lines([batch]))
    assert lines == [canonical_json(row) + "\n" for row in batch.rows()]
    for line in lines:
        Instance.model_validate(json.loads(line))


def test_instance_schema_exports():
    schema = Instance.model_json_schema()
    assert schema["title"] == "Instance"
    assert {"id", "prompt", "input", "choices", "answer", "gold", "references", "context", "provenance",
            "source_index"} <= set(schema["required"])
    assert all(prop.get("description") for prop in schema["properties"].values())


# ------------------------------------------------------------------ an interrupted JSON-lines write


def _small_batch(start: int) -> InstanceBatch:
    batch = InstanceBatch("ds", "map", ["t"], "test", provenance=PROVENANCE)
    for i in range(start, start + 5):
        batch.variant.append(None)
        batch.source_index.append(i)
        batch.prompt.append(f"p{i}")
        batch.input.append(f"input {i}")
        batch.choices.append(["a", "b"])
        batch.gold.append({"index": 0, "kind": "choice", "letter": "A", "lower": None, "upper": None, "value": "a"})
        batch.references.append([])
        batch.context.append({"n": i})
    return batch


_EARLIER: set[threading.Thread] = set()


@pytest.fixture(autouse=True)
def _earlier_writers():
    _EARLIER.clear()
    _EARLIER.update(t for t in threading.enumerate() if t.name == "clinreg-writes")


def _no_writer_left() -> bool:
    """No writer thread of this test still runs."""
    return not [t for t in threading.enumerate() if t.name == "clinreg-writes" and t not in _EARLIER]


def test_a_jsonl_file_holds_every_batch_in_order(tmp_path):
    made = [_small_batch(5 * k) for k in range(40)]
    path = tmp_path / "out.jsonl"
    assert write_instances(iter(made), "jsonl", path) == 200
    assert path.read_bytes() == b"".join(chunk for chunk, _ in canonical_chunks(made))
    assert _no_writer_left()


@pytest.mark.parametrize("after", [0, 1, 7])
def test_a_source_failing_midway_leaves_the_old_file_and_no_temporary_one(tmp_path, after):
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"old\n")
    broke = RuntimeError("the source broke")

    def batches():
        for k in range(after):
            yield _small_batch(5 * k)
        raise broke

    with pytest.raises(RuntimeError) as raised:
        write_instances(batches(), "jsonl", path)
    assert raised.value is broke
    assert path.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]
    assert _no_writer_left()


@pytest.mark.parametrize("fail_at", [1, 2, 3])
def test_a_failing_write_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch, fail_at):
    """The disk fills at write `fail_at` of 3 (the last one's error is raised by the writer's close)."""
    real_open = instance_files.atomic_open
    full = OSError(errno.ENOSPC, "No space left on device")

    class FillingUp:
        def __init__(self, handle):
            self.handle, self.calls = handle, 0

        def write(self, chunk):
            self.calls += 1
            if self.calls >= fail_at:
                raise full
            return self.handle.write(chunk)

        def __getattr__(self, name):
            return getattr(self.handle, name)

    @contextlib.contextmanager
    def filling_open(*args, **kwargs):
        with real_open(*args, **kwargs) as handle:
            yield FillingUp(handle)

    monkeypatch.setattr(instance_files, "atomic_open", filling_open)
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"old\n")
    with pytest.raises(OSError) as raised:
        write_instances(iter([_small_batch(0), _small_batch(5), _small_batch(10)]), "jsonl", path)
    assert raised.value is full
    assert path.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]
    assert _no_writer_left()
