"""Rows of unexpected content: each gives valid instances or a located BuildError, never a library exception."""

from __future__ import annotations

import pyarrow as pa
import pytest

from record_fixtures import build, hub_folder, record
from clinreg.core.builderrors import BadLabel, RecordProblem, TemplateFailure
from clinreg.templating.sandbox import InputTemplate

LETTER_STRUCT = {"choices": {"struct": "options"},
                 "label": {"encoding": "letter", "column": "gold", "letters": ["A", "B", "C", "D"]}}
OPTION_ID = {"choices": {"items": "answers", "text_key": "atext", "id_key": "aid"},
             "label": {"encoding": "option_id", "column": "ra", "max_options": 5}}
INDEX = {"choices": {"columns": ["opa", "opb", "opc"]},
         "label": {"encoding": "index", "column": "cop", "base": 0, "count": 3}}


def test_whole_float_past_int64_keeps_its_float_spelling(tmp_path):
    table = pa.table({"question": ["q", "r"], "value": ["5", "6"], "lo": [4.0, 5.0], "hi": pa.array([1e19, 7.0])})
    hub_folder(tmp_path, "owner/fixture", {"test": table})
    rec = record({"label": {"encoding": "number", "column": "value", "lower_column": "lo", "upper_column": "hi"}})
    out, _ = build(rec, tmp_path)
    assert [(i.gold.lower, i.gold.upper) for i in out] == [("4", "1e+19"), ("5", "7")]


def test_list_column_read_as_option_text_is_a_record_problem(tmp_path):
    table = pa.table({"question": ["q"], "opa": pa.array([[1]]), "opb": ["b"], "opc": ["c"], "cop": [1]})
    hub_folder(tmp_path, "owner/fixture", {"test": table})
    with pytest.raises(RecordProblem,
                       match=r"fixture/fixture: choices column 'opa': a column of type list<.*cannot be read as text"):
        build(record(INDEX), tmp_path)


def test_missing_option_before_the_gold_is_a_bad_label(tmp_path):
    # opa missing moves opb up to A: a gold of B (index 1) would name opc's text.
    rows = [{"question": "q", "opa": None, "opb": "b", "opc": "c", "cop": 1},
            {"question": "r", "opa": "a", "opb": "b", "opc": None, "cop": 1}]
    hub_folder(tmp_path, "owner/fixture", {"test": rows})
    with pytest.raises(BadLabel, match=r"split 'test', row 0:"):
        build(record(INDEX), tmp_path)
    out, report = build(record(INDEX), tmp_path, on_bad_label="skip")
    assert [(i.source_index, i.choices, i.answer) for i in out] == [(1, ["a", "b"], "B")]
    assert report.skipped == 1


def _items(tmp_path, answers, ra):
    kind = pa.list_(pa.struct([("aid", pa.int64()), ("atext", pa.string())]))
    table = pa.table({"question": ["q"] * len(ra), "answers": pa.array(answers, kind), "ra": ra})
    hub_folder(tmp_path, "owner/fixture", {"test": table})


def test_null_option_text_is_left_out(tmp_path):
    _items(tmp_path, [[{"aid": 1, "atext": "a"}, {"aid": 2, "atext": None}, {"aid": 3, "atext": "c"}]], [3])
    out, _ = build(record(OPTION_ID), tmp_path)
    assert [(i.choices, i.answer) for i in out] == [(["a", "c"], "B")]


def test_gold_naming_a_null_option_text_is_a_bad_label(tmp_path):
    _items(tmp_path, [[{"aid": 1, "atext": "a"}], [{"aid": 1, "atext": "a"}, {"aid": 2, "atext": None}]], [1, 2])
    with pytest.raises(BadLabel, match=r"split 'test', row 1:"):
        build(record(OPTION_ID), tmp_path)
    out, report = build(record(OPTION_ID), tmp_path, on_bad_label="skip")
    assert [(i.source_index, i.choices, i.answer) for i in out] == [(0, ["a"], "A")]
    assert report.skipped == 1 and report.tallies[0].skipped_rows == [1]


def _struct(tmp_path, options, gold):
    kind = pa.struct([(k, pa.string()) for k in "ABCD"])
    table = pa.table({"question": ["q"] * len(gold), "options": pa.array(options, kind), "gold": gold})
    hub_folder(tmp_path, "owner/fixture", {"test": table})


def test_null_options_struct_is_a_bad_label(tmp_path):
    _struct(tmp_path, [{"A": "a", "B": "b", "C": "c", "D": "d"}, None], ["B", "B"])
    with pytest.raises(BadLabel, match=r"split 'test', row 1: column 'gold' holds 'B'; .* names an option the row has"):
        build(record(LETTER_STRUCT), tmp_path)
    out, report = build(record(LETTER_STRUCT), tmp_path, on_bad_label="skip")
    assert [(i.source_index, i.answer) for i in out] == [(0, "B")]
    assert report.skipped == 1


def test_all_rows_without_options_are_bad_labels(tmp_path):
    # Every row of the batch lacking options used to switch the check off.
    _struct(tmp_path, [None, None], ["A", "B"])
    out, report = build(record(LETTER_STRUCT), tmp_path, on_bad_label="skip")
    assert out == [] and report.skipped == 2


@pytest.mark.parametrize("source", ["{{ lipsum(1) }}", "{{ [1, 2, 3] | random }}"])
def test_sandbox_has_no_random_globals_or_filters(source):
    with pytest.raises((TemplateFailure, RecordProblem)):
        InputTemplate(source, "t").render({})


def test_sandbox_globals_are_deterministic():
    template = InputTemplate("{{ question }}", "t")
    assert "lipsum" not in template.globals and "random" not in template.environment.filters
    source = "{% set c = cycler('x', 'y') %}{% for i in range(3) %}{{ c.next() }}{% endfor %}{{ question }}"
    assert {InputTemplate(source, "t").render({"question": "q"}) for _ in range(3)} == {"xyxq"}
