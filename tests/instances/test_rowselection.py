"""A mapping's filters and caps as data: expressions in the row sandbox, caps across batches, counts by reason."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from clinreg.core.model import Mapping
from clinreg.core.builderrors import RecordProblem, TemplateFailure
from clinreg.instances.rowselection import RowSelection
from clinreg.templating.rowfilters import FilterExpression

WHERE = "rec/map"


def mapping(filters=(), cap=None) -> Mapping:
    return Mapping.model_validate({
        "id": "m", "tasks": ["t"], "splits": ["test"], "input_template": "{{ q }}",
        "label": {"encoding": "free_text", "column": "a"}, "metric": {"name": "jury"},
        "filters": [{"keep": k, "why": w} for k, w in filters], **({"cap": cap} if cap else {}),
    })


def keep(expression: str, table: pa.Table) -> list[bool]:
    return FilterExpression(expression, "why", WHERE).keep(table, "test", 0).tolist()


def test_image_is_none():
    table = pa.table({"image": ["a.png", None, ""], "q": ["1", "2", "3"]})
    assert keep("image is none", table) == [False, True, False]


def test_filters_and_string_methods():
    table = pa.table({"Answer": ["  yes ", "   ", None], "QC": ["TRUE", "TRUE", "FALSE"]})
    assert keep("Answer | trim", table.slice(0, 2)) == [True, False]
    assert keep("QC == 'TRUE'", table) == [True, True, False]
    assert keep("row['QC'] != 'TRUE'", table) == [False, False, True]


def test_numbers_keep_their_type():
    table = pa.table({"n": pa.array([1, 5, None], pa.int64())})
    assert keep("n is not none and n > 2", table) == [False, True, False]


@pytest.mark.parametrize("expression", ["{{ x }}", "x }} {{ y", "{% if x %}1{% endif %}", "x\nor y", "x {# c #}",
                                        "x" * 1001])
def test_expressions_with_delimiters_or_newlines_are_refused(expression):
    with pytest.raises(RecordProblem, match=rf"^{WHERE}: filter .* must be one Jinja expression on one line"):
        FilterExpression(expression, "why", WHERE)


def test_missing_column_is_a_record_problem_naming_it():
    table = pa.table({"image": [None]})
    with pytest.raises(RecordProblem, match=r"filter 'images is none and q' reads 'images', 'q', not in the data"):
        keep("images is none and q", table)


def test_dotted_struct_column_counts_as_present():
    table = pa.table({"meta": pa.array([{"ok": "y"}, {"ok": "n"}])})
    assert keep("meta.ok == 'y'", table) == [True, False]


def test_failing_expression_names_split_and_row():
    table = pa.table({"x": ["a", "b", None]})
    with pytest.raises(TemplateFailure, match=rf"^{WHERE}: split 'dev', row 12: filter .x\.upper\(\) == 'A'. failed"):
        FilterExpression("x.upper() == 'A'", "why", WHERE).keep(table, "dev", 10)


def test_sandbox_applies_to_filters():
    with pytest.raises(TemplateFailure):
        keep("x.__class__.__mro__", pa.table({"x": ["a"]}))


def test_later_filters_see_only_rows_the_earlier_ones_kept():
    # The usual guard: `Answer is not none` first, then a test that would fail on a missing answer.
    selection = RowSelection(mapping([("Answer is not none", "no answer"), ("Answer.strip() != ''", "blank answer")]),
                             WHERE)
    table = pa.table({"Answer": ["yes", None, "  ", "no"]})
    assert selection.keep(table, "test", 0).tolist() == [True, False, False, True]
    assert selection.dropped == {"no answer": 1, "blank answer": 1}


def test_dropped_counts_by_reason_across_batches():
    selection = RowSelection(mapping([("image is none", "HELM skips questions with an image"),
                                      ("q", "empty question")]), WHERE)
    first = pa.table({"image": [None, "i", None], "q": ["a", "b", ""]})
    second = pa.table({"image": ["j", None], "q": ["", "c"]})
    assert selection.keep(first, "test", 0).tolist() == [True, False, False]
    assert selection.keep(second, "test", 3).tolist() == [False, True]
    # a row dropped by the first filter is counted once, under the first reason
    assert selection.dropped == {"HELM skips questions with an image": 2, "empty question": 1}


def test_cap_per_group_spans_batches_and_counts_after_filters():
    selection = RowSelection(mapping([("keep == 'y'", "not kept")], cap={"per": "condition", "rows": 2}), WHERE)
    first = pa.table({"condition": ["a", "a", "b", "a"], "keep": ["y", "n", "y", "y"]})
    second = pa.table({"condition": ["a", "b", "b", "c"], "keep": ["y", "y", "y", "y"]})
    assert selection.keep(first, "test", 0).tolist() == [True, False, True, True]
    assert selection.keep(second, "test", 4).tolist() == [False, True, False, True]
    assert selection.dropped == {"not kept": 1, "over 2 per condition": 2}


def test_cap_column_missing():
    selection = RowSelection(mapping(cap={"per": "condition", "rows": 1}), WHERE)
    with pytest.raises(RecordProblem, match=r"cap column 'condition' is not in the data \(columns: x\)"):
        selection.keep(pa.table({"x": ["1"]}), "test", 0)


def test_no_filters_no_cap_is_inactive():
    selection = RowSelection(mapping(), WHERE)
    assert not selection.active
    assert np.all(selection.keep(pa.table({"x": ["1", "2"]}), "test", 0))
