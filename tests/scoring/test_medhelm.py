"""MedHELM's own metrics and the jury's rating rules, as every export carries them (clinreg.scoring.medhelm,
exported as scoring.py)."""

from __future__ import annotations

import sqlite3

import pytest

from clinreg.scoring import medhelm as scoring



@pytest.fixture()
def data_dir(tmp_path):
    """A small eICU-shaped SQLite database, made here, at the path an EHRSQL record names (ehr_sql/eicu.sqlite)."""
    (tmp_path / "ehr_sql").mkdir()
    conn = sqlite3.connect(tmp_path / "ehr_sql" / "eicu.sqlite")
    conn.executescript("""
        create table patient (uniquepid text, admissionweight real, hospitalid int);
        insert into patient values ('001-1', 70.5, 1), ('001-2', 82.0, 1), ('002-1', 64.0, 2);
    """)
    conn.commit()
    conn.close()
    return tmp_path


DB = {"file": "ehr_sql/eicu.sqlite", "time_limit_seconds": 2}


def test_sql_execution_compares_the_rows_of_the_two_queries(data_dir):
    gold = "select uniquepid from patient where hospitalid = 1"
    same = "SELECT uniquepid FROM patient WHERE admissionweight > 70 ORDER BY uniquepid DESC"
    assert scoring.sql_execution(same, gold, DB, data_dir=data_dir) == 1.0
    assert scoring.sql_execution(f"<sql>{same}</sql>", gold, DB, data_dir=data_dir) == 1.0
    assert scoring.sql_execution("```sql\n" + same + "\n```", gold, DB, data_dir=data_dir) == 1.0
    assert scoring.sql_execution("select uniquepid from patient", gold, DB, data_dir=data_dir) == 0.0
    assert scoring.sql_execution("select nothing from nowhere", gold, DB, data_dir=data_dir) == 0.0
    assert scoring.sql_execution("", gold, DB, data_dir=data_dir) == 0.0


# The cases below follow HELM at 63754d05: annotation/ehr_sql_annotator.py (EhrSqlAnnotator.annotate: the gold
# query's rows, else the row's `value` values) and metrics/ehr_sql_metrics.py (EhrSqlMetric.evaluate_generation:
# sets of rows compared when both are non-empty; 1 when both are empty and the raw output is empty; 0 without a
# gold query). tests/interop/test_helm_scoring.py runs HELM's own classes on the same cases.
NO_ROWS = "select uniquepid from patient where hospitalid = 9"


def test_an_unanswerable_question_expects_an_empty_output(data_dir):
    assert scoring.sql_execution("", "null", DB, data_dir=data_dir) == 1.0
    assert scoring.sql_execution("  \n", "null", DB, data_dir=data_dir) == 1.0
    assert scoring.sql_execution("select 1", "null", DB, data_dir=data_dir) == 0.0
    # Abstaining is decided on the raw output: tags or a fence with no query inside are an answer, and wrong.
    assert scoring.sql_execution("<sql></sql>", "null", DB, data_dir=data_dir) == 0.0
    assert scoring.sql_execution("```sql\n```", "null", DB, data_dir=data_dir) == 0.0
    # No database is needed to score an unanswerable question.
    assert scoring.sql_execution("", "null", DB, data_dir=data_dir / "nowhere") == 1.0


def test_a_gold_query_without_rows_is_compared_with_the_rows_values(data_dir):
    value = {"patient_id": "001-1"}
    # The values are ['001-1'], the model's rows tuples such as ('001-1',): the two sets never match, so the
    # question scores 0, whatever the answer; abstaining no longer counts as right.
    assert scoring.sql_execution("", NO_ROWS, DB, value=value, data_dir=data_dir) == 0.0
    assert scoring.sql_execution("select '001-1'", NO_ROWS, DB, value=value, data_dir=data_dir) == 0.0
    assert scoring.sql_execution(NO_ROWS, NO_ROWS, DB, value=value, data_dir=data_dir) == 0.0
    # A table of rows with different keys fills a row's absent keys with null: they are not values.
    assert scoring.expected_values({"patient_id": "001-1", "drug_name": None}) == ["001-1"]
    # Without values, an empty output is right and a query returning nothing is not (the output is not empty).
    for value in (None, {}, {"drug_name": None}):
        assert scoring.sql_execution("", NO_ROWS, DB, value=value, data_dir=data_dir) == 1.0
        assert scoring.sql_execution(NO_ROWS, NO_ROWS, DB, value=value, data_dir=data_dir) == 0.0


def test_a_failing_gold_query_falls_back_on_the_values_too(data_dir):
    broken = "select uniquepid from no_such_table"
    assert scoring.expected_result(broken, DB, {"patient_id": "001-1"}, data_dir) == ["001-1"]
    assert scoring.sql_execution("", broken, DB, value={}, data_dir=data_dir) == 1.0
    assert scoring.sql_execution("", broken, DB, value={"patient_id": "001-1"}, data_dir=data_dir) == 0.0


def test_a_question_without_a_gold_query_scores_zero(data_dir):
    assert scoring.sql_execution("", "", DB, data_dir=data_dir) == 0.0
    assert scoring.sql_execution("select 1", "  ", DB, data_dir=data_dir) == 0.0


def test_score_text_reads_the_values_from_the_instance_context(data_dir, monkeypatch):
    monkeypatch.setenv("CLINREG_DATA_DIR", str(data_dir))
    spec = {"method": "sql_execution", "database": DB}
    assert scoring.score_text(spec, "", NO_ROWS, {"is_impossible": False, "value": {"patient_id": "001-1"}}) == 0.0
    assert scoring.score_text(spec, "", NO_ROWS, {"is_impossible": False, "value": None}) == 1.0
    assert scoring.score_text(spec, "", "null", {"is_impossible": True}) == 1.0


def test_the_predicted_result_says_when_no_query_was_written(data_dir):
    assert scoring.predicted_result("<sql> </sql>", DB, data_dir) == ([], "No query generated")
    rows, error = scoring.predicted_result("select uniquepid from patient where hospitalid = 2", DB, data_dir)
    assert rows == [("002-1",)] and error is None
    assert scoring.predicted_result("select x from nowhere", DB, data_dir)[1] == "no such table: nowhere"


def test_the_database_opens_read_only(data_dir):
    rows, error = scoring.run_query(data_dir / "ehr_sql" / "eicu.sqlite", "delete from patient", 2)
    assert rows is None and ("not authorized" in error or "readonly" in error.replace(" ", "").casefold())
    assert scoring.sql_execution("drop table patient", "select uniquepid from patient", DB, data_dir=data_dir) == 0.0
    conn = sqlite3.connect(data_dir / "ehr_sql" / "eicu.sqlite")
    assert conn.execute("select count(*) from patient").fetchone() == (3,)
    conn.close()


@pytest.mark.parametrize("query", ["attach database 'elsewhere.db' as x", "pragma query_only = off",
                                   "create table t (x)", "insert into patient values ('x', 1, 1)"])
def test_a_query_may_only_read(data_dir, tmp_path, monkeypatch, query):
    monkeypatch.chdir(tmp_path)
    rows, error = scoring.run_query(data_dir / "ehr_sql" / "eicu.sqlite", query, 2)
    assert rows is None and error
    assert not (tmp_path / "elsewhere.db").exists()


def test_a_query_that_runs_forever_stops_at_the_time_limit(data_dir):
    endless = "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n"
    rows, error = scoring.run_query(data_dir / "ehr_sql" / "eicu.sqlite", endless, 0.5)
    assert rows is None and "stopped after 0.5 s" in error  # the bound that fired


def test_a_missing_database_stops_scoring_instead_of_counting_zeros(tmp_path, monkeypatch):
    monkeypatch.delenv("CLINREG_DATA_DIR", raising=False)
    with pytest.raises(scoring.SqlScoringError, match="CLINREG_DATA_DIR"):
        scoring.sql_execution("select 1", "select 1", DB)
    with pytest.raises(scoring.SqlScoringError, match="no database at"):
        scoring.sql_execution("select 1", "select 1", DB, data_dir=tmp_path)
    monkeypatch.setenv("CLINREG_DATA_DIR", str(tmp_path))
    with pytest.raises(scoring.SqlScoringError, match="ehr_sql/eicu.sqlite"):
        scoring.score_text({"method": "sql_execution", "database": DB}, "select 1", "select 1")


def test_billing_codes_are_scored_by_code_set_f1():
    gold = "I10,E119,N179"
    assert scoring.code_set_f1("I10, E119, N179", gold) == 1.0
    # Two of three right, one wrong: precision 2/3, recall 2/3.
    assert scoring.code_set_f1("Codes: **I10**, E119 and Z00.", gold) == pytest.approx(2 / 3)
    assert scoring.code_set_f1("I10 I10 I10", gold) == pytest.approx(2 * 1 / (1 + 3))  # duplicates count once
    assert scoring.code_set_f1("no codes at all", gold) == 0.0
    assert scoring.icd10_codes("J45.909. and J96.01") == {"J45.909", "J96.01"}


def test_medec_scores_the_error_flag_only():
    correction = "3 The patient was given amoxicillin."
    assert scoring.error_flag_hit("CORRECT", "CORRECT") == 1.0
    assert scoring.error_flag_hit("CORRECT", "CORRECT.") == 1.0
    assert scoring.error_flag_hit("5 Some other fix.", correction) == 1.0  # flagged, even at the wrong sentence
    assert scoring.error_flag_hit("The text is CORRECT", "CORRECT") == 0.0  # only exactly CORRECT says no error
    assert scoring.error_flag_hit("CORRECT", correction) == 0.0


JURY = {"rubric": "The model wrote a visit note.", "scale": [1, 5], "shows": ["input", "response", "reference"],
        "axes": [{"id": "accuracy", "question": "Right?"}, {"id": "completeness", "question": "All there?"},
                 {"id": "clarity", "question": "Clear?"}]}


def test_the_judge_is_shown_what_the_jury_says_and_asked_for_json():
    prompt = scoring.jury_prompt(JURY, "the conversation", "the note", "the reference note")
    assert "The model wrote a visit note." in prompt
    assert "<input>\nthe conversation\n</input>" in prompt
    assert "<response>\nthe note\n</response>" in prompt and "<reference>\nthe reference note\n</reference>" in prompt
    assert "- completeness: All there?" in prompt and "from 1 (very poor) to 5 (excellent)" in prompt
    without_reference = scoring.jury_prompt(dict(JURY, shows=["input", "response"]), "note", "rewrite", "note")
    assert "<reference>" not in without_reference


def test_helm_runs_a_scoring_only_where_helm_has_its_classes():
    """A jury or metric without HELM classes (a benchmark HELM does not run) exports to HELM with token F1 as
    its reported stat, never a metric no class computes."""
    from clinreg.exports.contents import MappingExport
    from clinreg.exports.helm import helm_scores, main_metric

    jury = {"method": "jury", "jury": {"helm_annotator": "helm.benchmark.annotation.x_annotator.XAnnotator"}}
    assert helm_scores(jury) and not helm_scores({"method": "jury", "jury": {}})
    assert helm_scores({"method": "code_set_f1", "helm_metric": "m.M"}) and not helm_scores({"method": "error_flag"})
    export = MappingExport("d", "m", "text", "data/d/m.jsonl", 1, "public", [], [], "x_accuracy", jury)
    assert main_metric(export) == "x_accuracy"
    export.scoring = {"method": "jury", "jury": {}}
    assert main_metric(export) == "f1_score"
