"""The named adapters (meds_timeline, marked_paragraphs) on small tables, and how records call them."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from clinreg.core.builderrors import RecordProblem
from clinreg.sources.adapters import ADAPTERS, describe, run_adapter

WHERE = "ehr: split 'test': step 1"
T = dt.datetime


def events() -> pa.Table:
    # deliberately out of (subject, time) order
    rows = [
        (2, T(2020, 1, 5), "LOINC/718-7"),
        (1, T(2019, 3, 1), "ICD10CM/I50.9"),
        (1, T(2019, 1, 1), "Visit/IP"),
        (1, T(2019, 6, 1), "CPT4/99213"),
        (1, T(2019, 3, 1), "RxNorm/4603"),  # same time as I50.9, later in the file
        (2, T(2020, 1, 1), "Visit/ER"),
    ]
    return pa.table({
        "subject_id": pa.array([r[0] for r in rows], pa.int64()),
        "time": pa.array([r[1] for r in rows], pa.timestamp("us")),
        "code": [r[2] for r in rows],
    })


def labels(times, subjects=(1, 1, 2, 3)) -> pa.Table:
    return pa.table({
        "subject_id": pa.array(list(subjects), pa.int64()),
        "prediction_time": pa.array(times, pa.timestamp("us")),
        "boolean_value": [True, False, True, False][: len(subjects)],
    })


def timeline(table: pa.Table, **options) -> list[str]:
    tables = {"events": events()}
    out = run_adapter("meds_timeline", table, {"events": "events", **options}, tables.__getitem__, WHERE)
    return out.column(options.get("column", "ehr_timeline")).to_pylist()


def test_meds_timeline_sorted_and_inclusive_of_the_prediction_time():
    got = timeline(labels([T(2019, 3, 1), T(2018, 1, 1), T(2020, 1, 5), T(2020, 1, 1)]))
    # events at exactly 2019-03-01 included, file order kept
    assert got[0] == "- Visit/IP\n- ICD10CM/I50.9\n- RxNorm/4603"
    assert got[1] == ""  # no event yet
    assert got[2] == "- Visit/ER\n- LOINC/718-7"
    assert got[3] == ""  # a patient without events gets an empty timeline


def test_meds_timeline_keeps_label_columns_and_order():
    table = labels([T(2020, 1, 1), T(2019, 12, 1)], subjects=(2, 1))
    out = run_adapter("meds_timeline", table, {"events": "events", "column": "ehr"}, {"events": events()}.__getitem__,
                      WHERE)
    assert out.column_names == ["subject_id", "prediction_time", "boolean_value", "ehr"]
    assert out.column("subject_id").to_pylist() == [2, 1]
    assert out.column("ehr").to_pylist()[1].endswith("- CPT4/99213")


def test_meds_timeline_missing_prediction_time_is_empty():
    assert timeline(labels([None], subjects=(1,))) == [""]


def test_meds_timeline_prediction_times_as_text():
    # a label table read from csv holds its times as text
    table = pa.table({"subject_id": ["1", "2"], "prediction_time": ["2019-03-01 00:00:00", "2020-01-02T00:00:00"]})
    assert timeline(table) == ["- Visit/IP\n- ICD10CM/I50.9\n- RxNorm/4603", "- Visit/ER"]


def test_meds_timeline_unreadable_prediction_time_is_a_located_error():
    table = pa.table({"subject_id": ["1"], "prediction_time": ["last spring"]})
    with pytest.raises(RecordProblem, match=rf"^{WHERE}: .*prediction_time"):
        timeline(table)


def test_meds_timeline_unknown_option_and_missing_column():
    with pytest.raises(RecordProblem,
                       match=r"adapter 'meds_timeline' has no option 'event'.*options: code, column, events"):
        run_adapter("meds_timeline", labels([T(2019, 1, 1)], subjects=(1,)), {"event": "x"}, {}.__getitem__, WHERE)
    with pytest.raises(RecordProblem, match=r"column 'person_id' is not in the data"):
        timeline(labels([T(2019, 1, 1)], subjects=(1,)), subject="person_id")


def test_unknown_adapter_is_refused():
    with pytest.raises(RecordProblem, match=r"no adapter 'magic' \(adapters: meds_timeline, marked_paragraphs\)"):
        run_adapter("magic", pa.table({}), {}, {}.__getitem__, WHERE)


def test_every_adapter_documents_a_bad_and_a_good_use():
    docs = describe()
    assert set(docs) == set(ADAPTERS) == {"meds_timeline", "marked_paragraphs"}
    assert all("Bad:" in doc and "Good:" in doc for doc in docs.values())


# ----------------------------------------------------------------------------------------------- marked_paragraphs


def paragraphs(items: list[tuple[str, bool]]) -> pa.Table:
    return pa.table({"paragraph": list(range(len(items))), "text": [t for t, _ in items], "red": [r for _, r in items]})


def test_marked_paragraphs_groups_runs_and_labels_red_responses():
    table = paragraphs([
        ("Supplement heading", True),  # before the first run: ignored, even in red
        ("Run 1: How is eGFR calculated?", False),
        ("  The equation uses race.  ", True),
        ("", False),
        ("See a nephrologist.", False),
        ("Run 2: How is eGFR calculated?", True),  # red on the Run line itself does not count
        ("Use CKD-EPI 2021.", False),
    ])
    counts = {}
    out = run_adapter("marked_paragraphs", table, {}, {}.__getitem__, WHERE, counts)
    assert out.to_pylist() == [
        {"Question": "How is eGFR calculated?", "Response": "The equation uses race.\n\nSee a nephrologist.",
         "True/False": "True"},
        {"Question": "How is eGFR calculated?", "Response": "Use CKD-EPI 2021.", "True/False": "False"},
    ]
    assert counts == {}


def test_marked_paragraphs_malformed_run_line_drops_its_responses_and_is_counted():
    table = paragraphs([
        ("Run 1: first?", False),
        ("answer one", False),
        ("Run 2:no space", False),  # has ':' but not ': ' -> opens no record
        ("lost answer", True),
        ("Run 3: third?", False),
        ("answer three", False),
    ])
    counts = {}
    out = run_adapter("marked_paragraphs", table, {}, {}.__getitem__, WHERE, counts)
    assert out.column("Question").to_pylist() == ["first?", "third?"]
    assert out.column("Response").to_pylist() == ["answer one", "answer three"]
    assert out.column("True/False").to_pylist() == ["False", "False"]
    assert counts == {"Run line without ':'": 1}


def test_marked_paragraphs_options_rename_columns():
    table = pa.table({"body": ["Case - 1 => q?", "a"], "flagged": [False, True]})
    out = run_adapter("marked_paragraphs", table,
                      {"prefix": "Case", "separator": " => ", "text": "body", "flag": "flagged",
                                                   "question": "q", "response": "r", "label": "harm"}, {}.__getitem__,
                      WHERE)
    assert out.to_pylist() == [{"q": "q?", "r": "a", "harm": "True"}]
