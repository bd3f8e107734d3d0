"""One small hub-layout folder per label convention: choices, gold letters, references and ids come out right."""

from __future__ import annotations

import pyarrow as pa
import pytest

from record_fixtures import build, hub_folder, record


def test_letter_with_struct_options(tmp_path):
    rows = [
        {"question": "Q0", "options": {"A": "a0", "B": "b0", "C": "c0", "D": "d0"}, "answer_idx": "C", "answer": "c0"},
        {"question": "Q1", "options": {"A": "a1", "B": "b1", "C": "c1", "D": "d1"}, "answer_idx": "A", "answer": "a1"},
    ]
    hub_folder(tmp_path, "owner/fixture", {"test": rows}, fmt="jsonl")
    rec = record({
        "input_template": "{{ question }}\n{% for k, v in options.items() %}{{ k }}. {{ v }}\n{% endfor %}",
        "choices": {"struct": "options"},
        "label": {"encoding": "letter", "column": "answer_idx", "letters": ["A", "B", "C", "D"]},
        "references": ["answer"],
    })
    out, _ = build(rec, tmp_path)
    assert [i.id for i in out] == ["fixture/fixture/test/0", "fixture/fixture/test/1"]
    assert out[0].choices == ["a0", "b0", "c0", "d0"]
    assert [i.answer for i in out] == ["C", "A"]
    assert out[0].prompt == ("Q0\n\nA. a0\nB. b0\nC. c0\nD. d0\n\n"
                             "Answer with the letter of the correct option (A, B, C or D).")
    assert out[0].input == "Q0"  # the stem: harnesses list the choices themselves
    assert out[0].gold.model_dump() == {"kind": "choice", "letter": "C", "index": 2, "value": "c0", "lower": None,
                                        "upper": None}
    assert out[0].references == ["c0"]
    assert out[0].tasks == ["answer_questions"] and out[0].split == "test" and out[0].source_index == 0


def test_zero_based_index_with_unlabeled_marker(tmp_path):
    rows = [
        {"question": f"Q{i}", "opa": "w", "opb": "x", "opc": "y", "opd": "z", "cop": cop}
        for i, cop in enumerate([0, 3, -1, 2, -1])
    ]
    hub_folder(tmp_path, "owner/fixture", {"test": rows})
    rec = record({
        "choices": {"columns": ["opa", "opb", "opc", "opd"]},
        "label": {"encoding": "index", "column": "cop", "base": 0, "count": 4, "unlabeled": -1},
    })
    out, report = build(rec, tmp_path)
    assert [i.answer for i in out] == ["A", "D", "C"]
    assert [i.source_index for i in out] == [0, 1, 3]
    assert [i.id for i in out][-1] == "fixture/fixture/test/3"
    assert out[0].choices == ["w", "x", "y", "z"]
    assert report.tallies[0].unlabeled == 2 and report.skipped == 0


def test_one_based_index_from_csv(tmp_path):
    rows = [{"question": "Q0", "o1": "p", "o2": "q", "o3": "r", "gold": 1},
            {"question": "Q1", "o1": "p", "o2": "q", "o3": "r", "gold": 3}]
    hub_folder(tmp_path, "owner/fixture", {"test": rows}, fmt="csv")
    rec = record({"choices": {"columns": ["o1", "o2", "o3"]},
                  "label": {"encoding": "index", "column": "gold", "base": 1, "count": 3}})
    out, _ = build(rec, tmp_path)
    assert [i.answer for i in out] == ["A", "C"]
    assert out[1].choices == ["p", "q", "r"]


def test_option_id_letters_by_position(tmp_path):
    answers = pa.list_(pa.struct([("aid", pa.int32()), ("atext", pa.string())]))
    table = pa.table({
        "qtext": ["Q0", "Q1", "Q2"],
        "answers": pa.array([
            [{"aid": 1, "atext": "one"}, {"aid": 2, "atext": "two"}, {"aid": 3, "atext": "three"}],
            [{"aid": 7, "atext": "seven"}, {"aid": 5, "atext": "five"}],
            [{"aid": 1, "atext": "a"}, {"aid": 2, "atext": "b"}, {"aid": 3, "atext": "c"}, {"aid": 4, "atext": "d"},
             {"aid": 5, "atext": "e"}],
        ], answers),
        "ra": pa.array([2, 5, 5], pa.int32()),
    })
    hub_folder(tmp_path, "owner/fixture", {"test": table})
    rec = record({
        "input_template": "{{ qtext }}",
        "choices": {"items": "answers", "text_key": "atext", "id_key": "aid"},
        "label": {"encoding": "option_id", "column": "ra", "max_options": 5},
    })
    out, _ = build(rec, tmp_path)
    assert [i.answer for i in out] == ["B", "B", "E"]
    assert out[1].choices == ["seven", "five"]
    assert out[2].choices == ["a", "b", "c", "d", "e"]


def test_string_set_with_fixed_choices(tmp_path):
    rows = [{"question": "Q0", "final_decision": "yes", "long_answer": "L0", "pubid": 11},
            {"question": "Q1", "final_decision": "maybe", "long_answer": "L1", "pubid": 12}]
    hub_folder(tmp_path, "owner/fixture", {"test": rows})
    rec = record({
        "choices": {"fixed": ["yes", "no", "maybe"]},
        "label": {"encoding": "string_set", "column": "final_decision", "map": {"yes": "A", "no": "B", "maybe": "C"}},
        "references": ["long_answer"],
        "metadata_columns": ["pubid"],
    })
    out, _ = build(rec, tmp_path)
    assert [i.answer for i in out] == ["A", "C"]
    assert out[0].choices == ["yes", "no", "maybe"]
    assert out[1].references == ["L1"] and out[1].context == {"pubid": 12}
    assert out[1].gold.value == "maybe" and out[1].gold.index == 2


def test_coded_values_compare_as_strings(tmp_path):
    rows = [{"note": "n0", "label": 1}, {"note": "n1", "label": 0}, {"note": "n2", "label": 2}]
    hub_folder(tmp_path, "owner/fixture", {"test": rows}, fmt="csv")
    rec = record({
        "input_template": "{{ note }}",
        "choices": {"fixed": ["present", "absent", "uncertain"]},
        "label": {"encoding": "coded", "column": "label", "map": {"1": "A", "0": "B", "2": "C"}},
    })
    out, _ = build(rec, tmp_path)
    assert [i.answer for i in out] == ["A", "B", "C"]
    assert [i.input for i in out] == ["n0", "n1", "n2"]


def test_coded_without_choices_names_classes_by_source_value(tmp_path):
    hub_folder(tmp_path, "owner/fixture", {"test": [{"question": "q", "flag": 1}]})
    rec = record({"label": {"encoding": "coded", "column": "flag", "map": {"0": "A", "1": "B"}}})
    out, _ = build(rec, tmp_path)
    assert out[0].choices == ["0", "1"] and out[0].answer == "B"


def test_boolean_column(tmp_path):
    hub_folder(tmp_path, "owner/fixture", {"test": [{"question": "q0", "ok": True}, {"question": "q1", "ok": False}]})
    rec = record({
        "choices": {"fixed": ["true", "false"]},
        "label": {"encoding": "boolean", "column": "ok", "map": {"true": "A", "false": "B"}},
    })
    out, _ = build(rec, tmp_path)
    assert [i.answer for i in out] == ["A", "B"]


def test_number_with_tolerance(tmp_path):
    rows = [{"question": "q0", "value": "10"}, {"question": "q1", "value": "-200.5"},
            {"question": "q2", "value": "03/04/2021"}]
    hub_folder(tmp_path, "owner/fixture", {"test": rows})
    rec = record({"label": {"encoding": "number", "column": "value", "absolute_tolerance": 1,
                            "relative_tolerance": 0.05}})
    out, _ = build(rec, tmp_path)
    assert [i.gold.value for i in out] == ["10", "-200.5", "03/04/2021"] and all(i.gold.kind == "number" for i in out)
    assert all(i.answer is None and i.choices == [] and i.references == [] and i.context == {} for i in out)
    assert (out[0].gold.lower, out[0].gold.upper) == ("9.0", "11.0")
    assert float(out[1].gold.lower) == pytest.approx(-210.525) and float(out[1].gold.upper) == pytest.approx(-190.475)
    assert (out[2].gold.lower, out[2].gold.upper) == (None, None)


def test_number_with_range_columns(tmp_path):
    rows = [{"Question": "q", "Ground Truth Answer": "12.5", "Lower Limit": "11.875", "Upper Limit": "13.125",
             "Row Number": 4}]
    hub_folder(tmp_path, "owner/fixture", {"test": rows})
    rec = record({
        "input_template": "{{ row['Question'] }}",
        "label": {"encoding": "number", "column": "Ground Truth Answer", "lower_column": "Lower Limit",
                  "upper_column": "Upper Limit"},
        "metadata_columns": ["Row Number"],
    })
    out, _ = build(rec, tmp_path)
    assert out[0].references == [] and out[0].context == {"Row Number": 4}
    assert (out[0].gold.value, out[0].gold.lower, out[0].gold.upper) == ("12.5", "11.875", "13.125")


def test_free_text_references(tmp_path):
    rows = [{"src": "[doctor] hi", "tgt": "NOTE 1", "file": "D1"},
            {"src": "[doctor] bye", "tgt": "NOTE 2", "file": "D2"}]
    hub_folder(tmp_path, "owner/fixture", {"test1": rows[:1], "test2": rows[1:]}, fmt="jsonl")
    rec = record({"input_template": "{{ src }}", "label": {"encoding": "free_text", "column": "tgt"},
                  "metadata_columns": ["file"]},
                 splits=["test1", "test2"])
    out, _ = build(rec, tmp_path)
    assert [i.id for i in out] == ["fixture/fixture/test1/0", "fixture/fixture/test2/0"]
    assert [i.gold.value for i in out] == ["NOTE 1", "NOTE 2"] and [i.references for i in out] == [[], []]
    assert [i.gold.kind for i in out] == ["text", "text"]
    assert [i.answer for i in out] == [None, None] and out[1].context == {"file": "D2"}


def test_variants_yield_one_instance_each(tmp_path):
    rows = [{"Question": "Q0", "Ground Truth": "right", "Hallucinated Answer": "wrong", "Knowledge": ["k1", "k2"]}]
    hub_folder(tmp_path, "owner/fixture", {"test": rows})
    rec = record({
        "input_template": "{{ Question }}|{{ Knowledge | join(',') }}|{{ answer }}",
        "label": {"encoding": "coded", "map": {"0": "A", "1": "B"}, "positive": "1"},
        "variants": [
            {"id": "factual", "columns": {"answer": "Ground Truth"}, "label": "0"},
            {"id": "hallucinated", "columns": {"answer": "Hallucinated Answer"}, "label": "1"},
        ],
    })
    out, _ = build(rec, tmp_path)
    assert [i.id for i in out] == ["fixture/fixture/test/0/factual", "fixture/fixture/test/0/hallucinated"]
    assert [i.input for i in out] == ["Q0|k1,k2|right", "Q0|k1,k2|wrong"]
    assert [i.answer for i in out] == ["A", "B"] and [i.variant for i in out] == ["factual", "hallucinated"]


def test_free_text_variants_read_their_reference_through_the_named_column(tmp_path):
    """DischargeMe: one row, two targets; each variant names the column the free-text label reads."""
    rows = [{"text": "note", "bhc": "course text", "di": "instructions text"}]
    hub_folder(tmp_path, "owner/fixture", {"test": rows})
    rec = record({
        "input_template": "{{ text }}: write the {{ variant | replace('_', ' ') }}",
        "label": {"encoding": "free_text", "column": "target"},
        "variants": [
            {"id": "brief_hospital_course", "columns": {"target": "bhc"}},
            {"id": "discharge_instructions", "columns": {"target": "di"}},
        ],
    })
    out, _ = build(rec, tmp_path)
    assert [i.input for i in out] == ["note: write the brief hospital course", "note: write the discharge instructions"]
    assert [i.gold.value for i in out] == ["course text", "instructions text"]
    assert [i.answer for i in out] == [None, None] and [i.choices for i in out] == [[], []]
