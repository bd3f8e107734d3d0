"""The read step's transformations on small Arrow tables: join, pick, join_list, extract, remove, render, dedupe."""

from __future__ import annotations

import pyarrow as pa
import pytest

from clinreg.core.builderrors import RecordProblem, SourceUnavailable, TemplateFailure
from clinreg.core.model import DedupeStep, ExtractStep, JoinListStep, JoinStep, PickStep, RemoveStep, RenderStep, Step
from clinreg.sources.steps import apply_steps, dedupe, extract, join, join_list, pick, remove, render

WHERE = "rec: split 'test': step 1"


def J(**kw) -> JoinStep:
    return JoinStep(**{"table": "targets", "keys": ["id"], "cardinality": "one_to_one", **kw})


NOTES = pa.table({"id": ["1", "2", "3"], "text": ["n1", "n2", "n3"]})


# ----------------------------------------------------------------------------------------------- join


def test_join_one_to_one_brings_columns_by_key():
    right = pa.table({"id": [3, 1, 2], "target": ["t3", "t1", "t2"]})  # int keys meet string keys as text
    out = join(NOTES, right, J(), WHERE, {})
    assert out.to_pylist() == [
        {"id": "1", "text": "n1", "target": "t1"}, {"id": "2", "text": "n2", "target": "t2"},
        {"id": "3", "text": "n3", "target": "t3"},
    ]


@pytest.mark.parametrize("cardinality", ["one_to_one", "many_to_one"])
def test_join_duplicate_keys_in_the_table_name_the_key(cardinality):
    right = pa.table({"id": ["1", "2", "2", "3"], "target": ["a", "b", "c", "d"]})
    with pytest.raises(SourceUnavailable,
                       match=rf"^{WHERE}: table 'targets' has 2 rows for key id='2'; `cardinality: {cardinality}`"):
        join(NOTES, right, J(cardinality=cardinality), WHERE, {})


def test_join_one_to_one_refuses_duplicate_rows_but_many_to_one_allows_them():
    left = pa.table({"id": ["1", "2", "1"], "q": ["a", "b", "c"]})
    right = pa.table({"id": ["1", "2"], "ehr": ["e1", "e2"]})
    with pytest.raises(SourceUnavailable, match=r"rows 0 and 2 share key id='1'"):
        join(left, right, J(), WHERE, {})
    assert join(left, right, J(cardinality="many_to_one"), WHERE, {}).column("ehr").to_pylist() == ["e1", "e2", "e1"]


def test_join_on_several_keys():
    left = pa.table({"a": ["1", "1"], "b": ["x", "y"]})
    right = pa.table({"a": ["1", "1"], "b": ["y", "x"], "v": ["vy", "vx"]})
    assert join(left, right, J(keys=["a", "b"]), WHERE, {}).column("v").to_pylist() == ["vx", "vy"]


def test_join_unmatched_error_names_row_and_key():
    right = pa.table({"id": ["1", "3"], "target": ["t1", "t3"]})
    with pytest.raises(SourceUnavailable, match=r"row 1 \(key id='2'\) matches no row of table 'targets'"):
        join(NOTES, right, J(), WHERE, {})


def test_join_unmatched_drop_is_counted_and_keep_leaves_nulls():
    right = pa.table({"id": ["1", "3"], "target": ["t1", "t3"]})
    counts = {"earlier": 1}
    dropped = join(NOTES, right, J(unmatched="drop"), WHERE, counts)
    assert dropped.column("id").to_pylist() == ["1", "3"] and dropped.column("target").to_pylist() == ["t1", "t3"]
    assert counts == {"earlier": 1, "no match in targets": 1}
    counts = {}
    kept = join(NOTES, right, J(unmatched="keep"), WHERE, counts)
    assert kept.column("target").to_pylist() == ["t1", None, "t3"] and counts == {}


def test_join_unmatched_keep_does_not_blank_a_listed_key_column():
    right = pa.table({"id": ["1"], "target": ["t1"]})
    kept = join(NOTES, right, J(unmatched="keep", columns=["id", "target"]), WHERE, {})
    assert kept.column("id").to_pylist() == ["1", "2", "3"]


def test_join_columns_empty_only_filters_rows():
    right = pa.table({"id": ["2"], "target": ["t2"]})
    counts = {}
    out = join(NOTES, right, J(unmatched="drop", columns=[]), WHERE, counts)
    assert out.column_names == ["id", "text"] and out.to_pylist() == [{"id": "2", "text": "n2"}]
    assert counts == {"no match in targets": 2}


def test_join_unknown_column_is_a_record_problem():
    right = pa.table({"id": ["1", "2", "3"], "target": ["a", "b", "c"]})
    with pytest.raises(RecordProblem,
                       match=r"column of table 'targets' 'nope' is not in the data \(columns: id, target\)"):
        join(NOTES, right, J(columns=["nope"]), WHERE, {})
    with pytest.raises(RecordProblem, match="key column of the table 'targets' 'hadm_id' is not in the data"):
        join(pa.table({"hadm_id": ["1"]}), right, J(keys=["hadm_id"]), WHERE, {})


def test_join_suffix_and_empty_suffix():
    right = pa.table({"id": ["1", "2", "3"], "text": ["r1", "r2", "r3"]})
    suffixed = join(NOTES, right, J(), WHERE, {})
    assert (suffixed.column("text").to_pylist() == ["n1", "n2", "n3"]
            and suffixed.column("text_right").to_pylist() == ["r1", "r2", "r3"])
    assert join(NOTES, right, J(suffix="_t"), WHERE, {}).column_names == ["id", "text", "text_t"]
    replaced = join(NOTES, right, J(suffix=""), WHERE, {})
    assert replaced.column_names == ["id", "text"] and replaced.column("text").to_pylist() == ["r1", "r2", "r3"]


def test_join_one_to_many_all_and_first():
    right = pa.table({"id": ["1", "2", "1", "1"], "report": ["a", "b", None, "c"], "n": [1, 2, 3, 4]})
    counts = {}
    every = join(NOTES, right, J(cardinality="one_to_many", unmatched="keep", separator=" | "), WHERE, counts)
    assert every.column("report").to_pylist() == ["a | c", "b", None]
    assert every.column("n").to_pylist() == ["1 | 3 | 4", "2", None]  # joined as text
    first = join(NOTES, right, J(cardinality="one_to_many", unmatched="keep", many="first"), WHERE, {})
    assert first.column("report").to_pylist() == ["a", "b", None] and first.column("n").to_pylist() == [1, 2, None]


# ----------------------------------------------------------------------------------------------- pick, join_list


ANSWERS = pa.table({"answers": pa.array([
    [{"rank": "2", "meta": {"src": "web"}, "text": "second"}, {"rank": "1", "meta": {"src": "nih"}, "text": "first"}],
    [{"rank": "1", "meta": {"src": "web"}, "text": "only"}],
    [],
    None,
])})


def test_pick_matches_text_numbers_against_a_number():
    out = pick(ANSWERS, PickStep(column="best", list="answers", where={"rank": 1}, value="text"), WHERE)
    assert out.column("best").to_pylist() == ["first", "only", None, None]


def test_pick_on_a_nested_field_and_whole_item():
    out = pick(ANSWERS, PickStep(column="nih", list="answers", where={"meta.src": "nih"}, value="text"), WHERE)
    assert out.column("nih").to_pylist() == ["first", None, None, None]
    whole = pick(ANSWERS, PickStep(column="item", list="answers", where={"rank": "2"}), WHERE)
    assert whole.column("item").to_pylist()[0] == {"rank": "2", "meta": {"src": "web"}, "text": "second"}


def test_pick_numeric_field_against_a_string():
    table = pa.table({"xs": pa.array([[{"k": 1, "v": "a"}, {"k": 2, "v": "b"}]])})
    assert pick(table, PickStep(column="v", list="xs", where={"k": "2"}, value="v"),
                WHERE).column("v").to_pylist() == ["b"]


def test_pick_booleans_match_booleans_and_their_text_only():
    table = pa.table({"xs": [[{"k": "1", "v": "one"}, {"k": "TRUE", "v": "text"}],
                             [{"k": "0", "v": "zero"}, {"k": "false", "v": "no"}]]})
    assert pick(table, PickStep(column="v", list="xs", where={"k": True}, value="v"),
                WHERE).column("v").to_pylist() == ["text", None]
    assert pick(table, PickStep(column="v", list="xs", where={"k": False}, value="v"),
                WHERE).column("v").to_pylist() == [None, "no"]
    flags = pa.table({"xs": [[{"k": True, "v": "bool"}, {"k": False, "v": "f"}]]})
    assert pick(flags, PickStep(column="v", list="xs", where={"k": 1}, value="v"),
                WHERE).column("v").to_pylist() == [None]
    assert pick(flags, PickStep(column="v", list="xs", where={"k": "true"}, value="v"),
                WHERE).column("v").to_pylist() == ["bool"]


def test_pick_missing_list_column():
    with pytest.raises(RecordProblem, match="list column 'nope' is not in the data"):
        pick(ANSWERS, PickStep(column="x", list="nope"), WHERE)


def test_join_list():
    table = pa.table({"codes": pa.array([["I10", None, "E11"], [], None])})
    out = join_list(table, JoinListStep(column="codes_text", list="codes", separator=";"), WHERE)
    assert out.column("codes_text").to_pylist() == ["I10;E11", "", None]
    already = pa.table({"codes": ["I10, E11"]})
    assert join_list(already, JoinListStep(column="c", list="codes"), WHERE).column("c").to_pylist() == ["I10, E11"]


# ----------------------------------------------------------------------------------------------- extract, remove


def test_extract_first_matching_pattern_wins():
    table = pa.table({"note": ["HPI: pain\nPLAN: rest\nmore", "Assessment and plan: fluids", "nothing here", None]})
    spec = ExtractStep(column="note", patterns=[r"(?s)^(?P<before>.*?)PLAN:\s*(?P<plan>[^\n]*)",
                                                r"(?i)plan:\s*(?P<plan>.*)"])
    out = extract(table, spec, WHERE)
    assert out.column("plan").to_pylist() == ["rest", "fluids", None, None]
    assert out.column("before").to_pylist() == ["HPI: pain\n", None, None, None]


def test_extract_needs_a_named_group_and_a_valid_regex():
    table = pa.table({"note": ["x"]})
    with pytest.raises(RecordProblem, match=r"has no named group"):
        extract(table, ExtractStep(column="note", patterns=["(x)"]), WHERE)
    with pytest.raises(RecordProblem, match=r"does not compile"):
        extract(table, ExtractStep(column="note", patterns=["(?P<a>x"]), WHERE)


def test_extract_refuses_a_repetition_nested_in_another():
    table = pa.table({"note": ["aaaa"]})
    with pytest.raises(RecordProblem, match=r"repeats `\+` inside another repetition.*CLR714"):
        extract(table, ExtractStep(column="note", patterns=[r"^(?P<a>(a+)+)$"]), WHERE)
    # possessive and atomic inner parts cannot backtrack: allowed
    out = extract(table, ExtractStep(column="note", patterns=[r"^(?P<a>(?:a++)+)$", r"(?P<b>(?>a+)+)"]), WHERE)
    assert out.column("a").to_pylist() == ["aaaa"]


def test_a_slow_match_stops_the_build_naming_the_row(monkeypatch):
    """A pattern the static check lets through can still backtrack for long (overlapping alternatives in a
    repetition); the time limit interrupts it and names the row."""

    import clinreg.sources.steps as steps

    monkeypatch.setattr(steps, "MATCH_SECONDS", 0.3)
    slow = r"^(?P<x>(?:a|a)*)$"  # (a|a)* tries 2^n ways on a text of n a's followed by a mismatch
    assert steps.nested_repetition(slow) is None, "the static check does not catch this one"
    table = pa.table({"note": ["quick", "a" * 60 + "!"]})
    with pytest.raises(RecordProblem, match=r"ran for more than 0.3 s on row 1"):  # the bound that fired
        extract(table, ExtractStep(column="note", patterns=[slow]), WHERE)


def test_remove_takes_out_every_occurrence():
    table = pa.table({"note": ["a HOSPITAL COURSE b HOSPITAL COURSE", "keep", None],
                      "course": ["HOSPITAL COURSE", " ", "x"]})
    out = remove(table, RemoveStep(column="note", values=["course"], replacement="[removed]"), WHERE)
    assert out.column("note").to_pylist() == ["a [removed] b [removed]", "keep", None]


# ----------------------------------------------------------------------------------------------- render, dedupe


def test_render_builds_a_column_from_the_row():
    table = pa.table({"Error Flag": ["0", "1"], "Sentence": ["", "The dose is 5 mg."], "id": ["3", "4"]})
    spec = RenderStep(column="ref",
                      template="{{ 'CORRECT' if row['Error Flag'] == '0' else id ~ ' ' ~ row['Sentence'] }}")
    assert render(table, spec, WHERE).column("ref").to_pylist() == ["CORRECT", "4 The dose is 5 mg."]


def test_render_failure_names_the_row():
    table = pa.table({"a": ["x", None]})
    with pytest.raises(TemplateFailure, match=rf"^{WHERE}: row 1: render 'b' failed"):
        render(table, RenderStep(column="b", template="{{ a.upper() }}"), WHERE)


def test_render_is_sandboxed():
    table = pa.table({"a": ["x"]})
    with pytest.raises(TemplateFailure):
        render(table, RenderStep(column="b", template="{{ a.__class__.__mro__ }}"), WHERE)


def test_dedupe_first_and_last():
    table = pa.table({"prompt": ["p", "q", "p", "r", "q"], "label": ["1", "2", "3", "4", "5"]})
    counts = {}
    first = dedupe(table, DedupeStep(columns=["prompt"]), WHERE, counts)
    assert first.to_pylist() == [{"prompt": "p", "label": "1"}, {"prompt": "q", "label": "2"},
                                 {"prompt": "r", "label": "4"}]
    assert counts == {"duplicate prompt": 2}
    last = dedupe(table, DedupeStep(columns=["prompt"], values_from="last"), WHERE, {})
    assert last.to_pylist() == [{"prompt": "p", "label": "3"}, {"prompt": "q", "label": "5"},
                                {"prompt": "r", "label": "4"}]
    unique = pa.table({"prompt": ["a", "b"]})
    assert dedupe(unique, DedupeStep(columns=["prompt"]), WHERE, counts) is unique


# ----------------------------------------------------------------------------------------------- apply_steps


def test_apply_steps_in_order_reading_join_tables_by_name():
    targets = pa.table({"id": ["1", "2"], "course": ["C1", "C2"]})
    steps = [
        Step(join={"table": "targets", "keys": ["id"], "cardinality": "one_to_one", "unmatched": "drop"}),
        Step(remove={"column": "text", "values": ["course"]}),
        Step(render={"column": "prompt", "template": "[{{ text }}]"}),
    ]
    table = pa.table({"id": ["1", "2", "3"], "text": ["a C1 b", "C2", "c"]})
    asked = []
    counts = {}
    out = apply_steps(table, steps, lambda name: asked.append(name) or targets, "rec: split 'test'", counts)
    assert out.column("prompt").to_pylist() == ["[a  b]", "[]"] and asked == ["targets"]
    assert counts == {"no match in targets": 1}


def test_apply_steps_names_the_failing_step():
    steps = [Step(dedupe={"columns": ["id"]}), Step(extract={"column": "missing", "patterns": ["(?P<a>x)"]})]
    with pytest.raises(RecordProblem, match=r"^rec: split 'test': step 2: column 'missing' is not in the data"):
        apply_steps(NOTES, steps, lambda name: None, "rec: split 'test'", {})
