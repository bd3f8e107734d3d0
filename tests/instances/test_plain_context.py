"""Contexts of plain columns (batch._plain: text, booleans, nulls, signed integers, unsigned up to 32 bits) go to
orjson with the rest of the instance (InstanceBatch.plain_context); the bytes must be the standard library's, which
every instance hash and lock file depends on. Any other column keeps the json encoder for the context."""

from __future__ import annotations

import datetime as dt
import decimal

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from record_fixtures import record
from clinreg.instances import batch as batch_module
from clinreg.instances import canonical
from clinreg.instances.batch import InstanceBatch, MappingBuild
from clinreg.instances.canonical import _fast_lines, _text_lines, canonical_json

pytestmark = pytest.mark.skipif(canonical.orjson is None, reason="the fast writer needs orjson (the build extra)")

# Any text a UTF-8 column can hold: control characters, quotes and backslashes, non-ASCII, astral characters, and
# U+2028/U+2029 (which some JSON writers escape and json.dumps does not).
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["", '"', "\\", "\x00\x01\x08\x09\x0a\x0c\x0d\x1f", "\x7f\x80\x9f", "\u2028\u2029", "é中😀", "\ufeff\ufffe\uffff",
     "</script>", "\U0010ffff", "\ue000"])
PLAIN = (st.none() | st.booleans() | TEXT | st.integers(-(2**63), 2**63 - 1) | st.integers(0, 2**32 - 1)
         | st.sampled_from([0, -1, 2**31, 2**32 - 1, 2**53 + 1, -(2**63), 2**63 - 1]))
# Keys are column names: any text; orjson must sort them as Python sorts str (by code point, astral ones last).
CONTEXT = st.dictionaries(TEXT, PLAIN, max_size=5)


def _batch(contexts: list[dict]) -> InstanceBatch:
    made = InstanceBatch("d", "m", ["t"], "test", provenance={"record": "d", "z": [1, "é"]}, plain_context=True)
    for i, context in enumerate(contexts):
        made.variant.append(None if i % 2 else "v")
        made.source_index.append(i)
        made.prompt.append("p")
        made.input.append(f"input {i}")
        made.choices.append(["a", "b"])
        made.gold.append({"index": 0, "kind": "choice", "letter": "A", "lower": None, "upper": None, "value": "a"})
        made.references.append([])
        made.context.append(context)
    return made


@settings(max_examples=400, deadline=None)
@given(st.lists(CONTEXT, min_size=1, max_size=6))
def test_a_plain_context_written_by_orjson_is_the_standard_writers_bytes(contexts):
    made = _batch(contexts)
    fast = _fast_lines(made)
    assert b"".join(fast) == "".join(_text_lines(made)).encode("utf-8")
    assert [line.decode("utf-8") for line in fast] == [canonical_json(row) + "\n" for row in made.rows()]


def _json_type():
    if not hasattr(pa, "json_"):
        pytest.skip("this pyarrow has no JSON extension type")
    return pa.json_(pa.string())


PLAIN_TYPES = [pa.string(), pa.large_string(), pa.bool_(), pa.null(), pa.int8(), pa.int16(), pa.int32(), pa.int64(),
               pa.uint8(), pa.uint16(), pa.uint32()]
OTHER_TYPES = [pa.float16(), pa.float32(), pa.float64(), pa.uint64(), pa.date32(), pa.date64(), pa.timestamp("s"),
               pa.timestamp("us", tz="UTC"), pa.time64("us"), pa.duration("s"), pa.decimal128(10, 2), pa.binary(),
               pa.list_(pa.string()), pa.large_list(pa.int64()), pa.struct([("a", pa.string())]),
               pa.map_(pa.string(), pa.string()), pa.dictionary(pa.int32(), pa.float64())]


@pytest.mark.parametrize("kind", PLAIN_TYPES, ids=str)
def test_plain_column_types(kind):
    assert batch_module._plain(pa.array([None], kind)) is True


@pytest.mark.parametrize("kind", OTHER_TYPES, ids=str)
def test_other_column_types_are_not_plain(kind):
    assert batch_module._plain(pa.array([None], kind)) is False


def test_a_json_column_and_a_missing_column_are_not_plain():
    json_column = pa.ExtensionArray.from_storage(_json_type(), pa.array(['{"b": 1.5, "a": [1e16]}']))
    assert batch_module._plain(json_column) is False
    assert batch_module._plain(None) is False


# ------------------------------------------------------------------ end to end, through MappingBuild.instances


def _instances(table: pa.Table, metadata: list[str]) -> InstanceBatch:
    rec = record({"input_template": "{{ question }}", "label": {"encoding": "free_text", "column": "answer"},
                  "metadata_columns": metadata})
    build = MappingBuild(rec, rec.mappings[0])
    status, _ = build.status(table)
    return build.instances(table, "test", np.arange(table.num_rows))


VALUES = {  # values orjson would write otherwise than json.dumps (1e16, -0.0, 2**64 - 1), or not at all
    "f": pa.array([1e16, -0.0, 5e-324], pa.float64()), "u64": pa.array([2**64 - 1, 0, None], pa.uint64()),
    "day": pa.array([dt.date(2020, 1, 2)] * 3), "when": pa.array([dt.datetime(2020, 1, 2, 3, 4, 5, 6)] * 3),
    "money": pa.array([decimal.Decimal("1.10")] * 3, pa.decimal128(5, 2)), "tags": pa.array([["x", "é"], [], None]),
    "obj": pa.array([{"z": 1.5, "a": "b"}] * 3),
    "s": pa.array(["é\u2028", None, "\x1f"]), "i": pa.array([-(2**63), 2**63 - 1, None]),
    "u32": pa.array([2**32 - 1, 0, 7], pa.uint32()), "b": pa.array([True, False, None]),
    "n": pa.array([None, None, None], pa.null()), "code": pa.array(["a", "b", "a"]).dictionary_encode(),
}


@pytest.mark.parametrize("columns, plain", [
    ([], True), (["s"], True), (["s", "i", "u32", "b", "n", "code"], True), (["b", "s", "i"], True),
    (["f"], False), (["s", "u64"], False), (["day"], False), (["when", "s"], False), (["money"], False),
    (["tags"], False), (["obj"], False), (["s", "i", "b", "f"], False), (["obj.z"], False), (["obj.a"], True),
])
def test_a_builds_lines_are_the_standard_writers_whatever_its_metadata_columns(columns, plain):
    table = pa.table({"question": ["q1", "q2", "q3"], "answer": ["a1", "a2", "a3"], **VALUES})
    made = _instances(table, columns)
    assert made.plain_context is plain
    assert b"".join(_fast_lines(made)) == "".join(_text_lines(made)).encode("utf-8")


def test_a_json_column_in_the_context_keeps_the_standard_writers_bytes():
    json_column = pa.ExtensionArray.from_storage(_json_type(), pa.array(['{"b": 1e16, "a": -0.0}', None, "[1.5]"]))
    table = pa.table({"question": ["q1", "q2", "q3"], "answer": ["a1", "a2", "a3"], "meta": json_column})
    made = _instances(table, ["meta"])
    assert made.plain_context is False and made.context[0] == {"meta": {"b": 1e16, "a": -0.0}}
    assert b"".join(_fast_lines(made)) == "".join(_text_lines(made)).encode("utf-8")
