"""Property tests: no input makes a results reader raise; every problem becomes a located finding."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinreg.core.store import load_registry
from clinreg.results.index import BenchmarkIndex
from clinreg.results.accumulate import Reading
from clinreg.results.detect import read_source
from results.helpers import ROOT

INDEX = BenchmarkIndex(load_registry(ROOT))
CELLS = st.one_of(st.sampled_from(["MedQA - EM", "Mean win rate", "MTSampl...", "Model", "-", "", "nan", "1e999",
                                   "0.5", "4.2", '"', '""', ",", "MIMIC-BHC - Jury Score", "\ufeff"]),
                  st.text(max_size=12))
JSON = st.recursive(st.none() | st.booleans() | st.floats(allow_nan=False, allow_infinity=False) | st.integers()
                    | st.text(max_size=10) | st.sampled_from(["clinreg_med_qa", "exact_match,none", "success"]),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                        st.sampled_from(["results", "eval", "task", "model", "status", "version", "scores",
                                         "metrics", "value", "clinreg_results", "n-samples", "config",
                                         "clinreg_med_qa", "exact_match,none", "name",
                                         "accuracy"]) | st.text(max_size=6),
                        inner, max_size=5), max_leaves=20)


def check(reading: Reading) -> None:
    for d in reading.findings.diagnostics:
        assert d.code.startswith("CLR96") and d.line >= 1 and d.column >= 1
    for s in reading.scores:
        assert isinstance(s.value, float)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(CELLS, min_size=1, max_size=5), max_size=5))
def test_any_csv_gives_findings_not_exceptions(tmp_path, rows):
    path = tmp_path / "board.csv"
    path.write_text("\n".join(",".join(r) for r in rows), encoding="utf-8")
    reading = Reading(INDEX)
    read_source(reading, path)
    check(reading)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=JSON)
def test_any_json_gives_findings_not_exceptions(tmp_path, doc):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    reading = Reading(INDEX)
    read_source(reading, path)
    check(reading)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300))
def test_any_bytes_as_an_eval_log_give_findings_not_exceptions(tmp_path, data):
    path = tmp_path / "log.eval"
    path.write_bytes(b"PK\x03\x04" + data)
    reading = Reading(INDEX)
    read_source(reading, path)
    check(reading)


# The skeleton scan finds JSON strings with an unrolled pattern: the per-character alternation it replaced kept
# backtracking state for every character, so one 60 MiB string took 20 s and 7 GiB (issue 21, class 6).
_CHARACTER_BY_CHARACTER = __import__("re").compile(r'"(?:[^"\\]|\\.)*"')


@given(st.text(alphabet='"\\a{}[]:, ', max_size=60))
@settings(max_examples=400, deadline=None)
def test_the_unrolled_string_pattern_finds_what_the_plain_one_found(text):
    from clinreg.results.strictinput import _JSON_STRING

    assert _JSON_STRING.findall(text) == _CHARACTER_BY_CHARACTER.findall(text)


def test_one_long_string_is_scanned_in_linear_memory():
    import tracemalloc

    from clinreg.results.strictinput import parse_json

    text = '{"pad": "' + "a" * (16 << 20) + '"}'
    tracemalloc.start()
    assert parse_json(text) == {"pad": "a" * (16 << 20)}
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 200 << 20, peak >> 20  # the time is in bench/bench_results.py
