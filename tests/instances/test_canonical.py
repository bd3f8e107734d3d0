"""The batch writer of canonical JSON (issue 41) against the instance-by-instance writer it replaced.

Both of its paths (orjson's, and the standard library's used without orjson or for an instance orjson refuses)
must give exactly the bytes `canonical_json(row) + "\\n"` gives for every instance, and the bytes the old writer
gave: instance hashes, lock files and every fixture depend on them.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinreg.instances import canonical
from clinreg.instances.batch import InstanceBatch
from clinreg.instances.canonical import (
    _CANONICAL, _quote, canonical_chunks, canonical_json, canonical_lines, hash_instances,
)


def old_canonical_lines(batches):
    """The writer before issue 41, instance by instance (kept here as the reference)."""
    def text(value):
        return "null" if value is None else _quote(value)

    def texts(values):
        return "[" + ",".join(map(_quote, values)) + "]"

    def gold_json(gold):
        index = gold["index"]
        return (f'{{"index":{"null" if index is None else index},"kind":{_quote(gold["kind"])},'
                f'"letter":{text(gold["letter"])},'
                f'"lower":{text(gold["lower"])},"upper":{text(gold["upper"])},"value":{text(gold["value"])}}}')

    for batch in batches:
        stem = f"{batch.dataset}/{batch.mapping}/{batch.split}/"
        dataset, mapping, split = _quote(batch.dataset), _quote(batch.mapping), _quote(batch.split)
        tasks = texts(batch.tasks)
        provenance = _CANONICAL.encode(batch.provenance)
        for variant, index, prompt, txt, choices, gold, refs, context in zip(
            batch.variant, batch.source_index, batch.prompt, batch.input, batch.choices, batch.gold, batch.references,
            batch.context,
        ):
            instance_id = f"{stem}{index}" if variant is None else f"{stem}{index}/{variant}"
            yield (
                f'{{"answer":{text(gold["letter"])},"choices":{texts(choices)},'
                f'"context":{_CANONICAL.encode(context) if context else "{}"},"dataset":{dataset},'
                f'"gold":{gold_json(gold)},'
                f'"id":{_quote(instance_id)},"input":{_quote(txt)},"mapping":{mapping},"prompt":{_quote(prompt)},'
                f'"provenance":{provenance},"references":{texts(refs)},"source_index":{index},"split":{split},'
                f'"tasks":{tasks},"variant":{text(variant)}}}\n'
            )


# Text with what JSON escapes (quotes, backslashes, control characters), non-ASCII, U+2028 and astral characters.
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30) | st.sampled_from(
    ["", '"', "\\", "\x00\x1f\x7f", "\u2028\u2029", "é中😀", "</script>", "A. x\nB. y"]
)
KEY = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
# Context values come from the data: floats (signed zero, exponents, subnormals), integers past 2^53 and 2^64,
# dates, decimals, bytes, nested lists and objects.
SCALAR = (
    st.none() | st.booleans() | TEXT
    | st.integers() | st.integers(min_value=2**53 - 2,
                                  max_value=2**53 + 2) | st.sampled_from([2**63, -(2**63) - 1, 2**64, 10**40])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.0, -0.0, 1e16, 1e-7, 5e-324, 1.7976931348623157e308, 0.1, 1 / 3, 123456789012345678.0])
    | st.dates() | st.datetimes() | st.times() | st.decimals(allow_nan=False,
                                                             allow_infinity=False) | st.binary(max_size=8)
    | st.timedeltas()
)
VALUE = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEY, inner, max_size=3),
                     max_leaves=8)
GOLD = st.fixed_dictionaries({
    "index": st.none() | st.integers(min_value=0, max_value=25), "kind": st.sampled_from(["choice", "number", "text"]),
    "letter": st.none() | st.sampled_from("ABCDE"), "lower": st.none() | TEXT, "upper": st.none() | TEXT,
    "value": st.none() | TEXT,
})
INSTANCE = st.tuples(
    st.none() | TEXT, st.integers(min_value=0, max_value=2**70), TEXT, TEXT, st.lists(TEXT, max_size=4), GOLD,
    st.lists(TEXT, max_size=3), st.dictionaries(KEY, VALUE, max_size=3),
)
PROVENANCE = st.fixed_dictionaries({
    "record": TEXT, "registry_release": st.none() | TEXT, "instance_schema": st.integers(0, 9),
    "source": st.dictionaries(KEY, st.none() | TEXT, max_size=3),
})


@st.composite
def batches(draw):
    made = []
    for _ in range(draw(st.integers(1, 3))):
        batch = InstanceBatch(draw(TEXT), draw(TEXT), draw(st.lists(TEXT, max_size=3)), draw(TEXT),
                              provenance=draw(PROVENANCE))
        for variant, index, prompt, text, choices, gold, refs, context in draw(st.lists(INSTANCE, max_size=4)):
            batch.variant.append(variant)
            batch.source_index.append(index)
            # An open task without an instruction: its prompt is its input, the same object (written once).
            batch.prompt.append(text if draw(st.booleans()) else prompt)
            batch.input.append(text)
            batch.choices.append(choices)
            batch.gold.append(gold)
            batch.references.append(refs)
            batch.context.append(context)
        made.append(batch)
    return made


def _encodable(batches) -> bool:
    try:
        for batch in batches:
            for row in batch.rows():
                canonical_json(row)
    except (TypeError, ValueError):
        return False
    return True


@pytest.fixture(params=["orjson", "standard library"])
def writer(request, monkeypatch):
    if request.param == "orjson":
        pytest.importorskip("orjson")
    else:
        monkeypatch.setattr(canonical, "orjson", None)
    return request.param


@settings(max_examples=300, deadline=None)
@given(made=batches())
def test_every_line_is_the_canonical_json_of_its_instance_and_what_the_old_writer_wrote(made):
    expected = list(old_canonical_lines(made)) if _encodable(made) else None
    for path in ("orjson", "standard library"):
        saved = canonical.orjson
        if path == "standard library":
            canonical.orjson = None
        elif saved is None:
            continue
        try:
            if expected is None:  # the old writer refuses these (a value JSON cannot hold); so must the new one
                with pytest.raises((TypeError, ValueError)):
                    list(canonical_lines(made))
                continue
            lines = list(canonical_lines(made))
            chunks = list(canonical_chunks(made))
            digest = hash_instances(made)
        finally:
            canonical.orjson = saved
        assert lines == expected, path
        assert lines == [canonical_json(row) + "\n" for batch in made for row in batch.rows()], path
        assert b"".join(chunk for chunk, _ in chunks) == "".join(expected).encode("utf-8"), path
        assert [n for _, n in chunks] == [len(batch) for batch in made]
        assert digest == (hashlib.sha256("".join(expected).encode("utf-8")).hexdigest(), len(expected))


def _batch(context=None, index=7, prompt="p", variant=None) -> InstanceBatch:
    batch = InstanceBatch("d", "m", ["t"], "test", provenance={"record": "d"})
    batch.variant, batch.source_index, batch.prompt, batch.input = [variant], [index], [prompt], ["i"]
    batch.choices, batch.references, batch.context = [["a", "b"]], [[]], [context or {}]
    batch.gold = [{"index": 0, "kind": "choice", "letter": "A", "lower": None, "upper": None, "value": "a"}]
    return batch


@pytest.mark.parametrize("context", [
    {"f": 1e16}, {"f": -0.0}, {"f": 5e-324}, {"big": 2**64}, {"big": 2**53 + 1}, {"d": dt.date(2020, 1, 2)},
    {"t": dt.datetime(2020, 1, 2, 3, 4, 5, 6)}, {"n": decimal.Decimal("1.10")}, {"b": b"\x00\xff"},
    {"nested": {"z": [1.5, None, "é"], "a": {"y": True}}},
])
def test_context_values_orjson_writes_otherwise_are_written_as_json_dumps_writes_them(writer, context):
    line = next(canonical_lines([_batch(context)]))
    assert json.loads(line)["context"] == json.loads(canonical_json(context))
    assert line == list(old_canonical_lines([_batch(context)]))[0]


def test_an_instance_orjson_refuses_is_written_by_the_standard_library(writer):
    # A source index past 64 bits: orjson refuses it, json writes it.
    made = [_batch(index=2**70, variant="v\u2028")]
    assert list(canonical_lines(made)) == list(old_canonical_lines(made))


def test_a_value_json_cannot_hold_is_refused_by_both_writers(writer):
    with pytest.raises(ValueError):
        list(canonical_lines([_batch({"x": float("nan")})]))
    with pytest.raises(TypeError):
        list(canonical_lines([_batch({"x": object()})]))
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate cannot be UTF-8
        list(canonical_chunks([_batch(prompt="\ud800")]))


def test_a_prompt_that_is_its_input_is_written_as_the_standard_library_writes_it_even_when_orjson_refuses_it():
    pytest.importorskip("orjson")
    for text, index in (("ok", 7), ("line\nbreak \"quoted\" \u2028 é 😀", 7), ("past 64 bits", 2**70)):
        batch = _batch(index=index)  # orjson refuses an index past 64 bits: the row is the standard library's
        batch.input, batch.prompt = [text], [text]  # one object: the writer escapes it once for both fields
        fast = b"".join(chunk for chunk, _ in canonical_chunks([batch]))
        saved, canonical.orjson = canonical.orjson, None
        try:
            standard = b"".join(chunk for chunk, _ in canonical_chunks([batch]))
        finally:
            canonical.orjson = saved
        assert fast == standard
        assert fast.count(canonical_json(text).encode("utf-8")) == 2
