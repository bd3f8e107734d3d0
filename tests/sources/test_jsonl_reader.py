"""JSON lines read through Arrow's C++ reader give exactly the table the line-by-line Python reader gives, or the
file goes the Python way (issue 26: the read step of med_qa's shape spent most of its time in json.loads)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinreg.core.model import TableSpec
from clinreg.sources.formats import jsonl

SPEC = TableSpec(files="x.jsonl")

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12),
                    st.sampled_from(["2020-01-01", "2020-01-01T10:00:00", "12:30", "1e5", "true", "\u2028", "é"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from("xyz"), inner, max_size=3)),
                      max_leaves=6)
rows = st.lists(st.dictionaries(st.sampled_from(["a", "b", "options", "answer"]), values, min_size=1, max_size=4),
                min_size=1, max_size=8)


def _both(path):
    fast = jsonl._read_jsonl_arrow(path, SPEC)
    slow = jsonl._read_jsonl_python(path, SPEC)
    return fast, slow


@pytest.mark.slow
@given(rows, st.booleans())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_arrow_path_reads_what_the_python_path_reads_or_steps_aside(tmp_path, data, blank_lines):
    path = tmp_path / "x.jsonl"
    lines = [json.dumps(r, ensure_ascii=False) for r in data]
    path.write_text(("\n\n" if blank_lines else "\n").join(lines) + "\n", encoding="utf-8")
    fast, slow = _both(path)
    if fast is not None:
        assert fast.column_names == slow.column_names
        assert fast.to_pylist() == slow.to_pylist()
    assert jsonl.read_jsonl(path, SPEC).to_pylist() == slow.to_pylist()


def test_the_real_shape_of_med_qa_goes_the_arrow_way(tmp_path):
    row = {"question": "A 23-year-old woman...", "answer": "Nitrofurantoin", "answer_idx": "D",
           "options": {"A": "Ampicillin", "B": "Ceftriaxone", "C": "Doxycycline", "D": "Nitrofurantoin"},
           "meta_info": "step1", "metamap_phrases": ["woman", "burning"]}
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(json.dumps(row) for _ in range(1000)) + "\n", encoding="utf-8")
    fast, slow = _both(path)
    assert fast is not None and fast.to_pylist() == slow.to_pylist()


def test_timestamps_long_integers_and_a_bom_go_the_python_way(tmp_path):
    path = tmp_path / "x.jsonl"
    for text in ['{"t": "2020-01-01T10:00:00"}\n', '{"n": 12345678901234567890123}\n',
                 '\ufeff{"a": 1}\n', '{"a": "x"}\n{"a": 1}\n']:
        path.write_text(text, encoding="utf-8")
        assert jsonl._read_jsonl_arrow(path, SPEC) is None
        assert jsonl.read_jsonl(path, SPEC).to_pylist() == jsonl._read_jsonl_python(path, SPEC).to_pylist()
