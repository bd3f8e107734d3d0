"""Issue 39: model output is untrusted input to the scorers every export carries (harness_files/scoring.py).

A model's SQL, a judge's reply and the model's response are written by whoever controls the model: each ends in a
score or a named problem, within bounds clinreg sets, never in a traceback or the memory of the machine.
"""

from __future__ import annotations

import importlib.util
import shutil
import sqlite3
from pathlib import Path

import pytest

from clinreg.exports.report import FILES
from clinreg.rules.engine import validate

_spec = importlib.util.spec_from_file_location("clinreg_export_scoring_hardening", FILES / "scoring.py")
scoring = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scoring)

REPO = Path(__file__).resolve().parents[2]
# Python 3.10 cannot set SQLite's value length: there, SQLite's memory as a whole is bounded instead.
VALUE_BOUND = hasattr(sqlite3.Connection, "setlimit")
HEAP_PROBLEM = f"more than {scoring.MAX_SQL_HEAP_BYTES} bytes of memory in SQLite"


@pytest.fixture()
def database(tmp_path):
    (tmp_path / "ehr_sql").mkdir()
    conn = sqlite3.connect(tmp_path / "ehr_sql" / "eicu.sqlite")
    conn.executescript("create table patient (uniquepid text); insert into patient values ('001-1');")
    conn.commit()
    conn.close()
    return tmp_path / "ehr_sql" / "eicu.sqlite"


# ------------------------------------------------------------------------------------------ item 1: SQL results


@pytest.mark.parametrize("query, problem", [
    ("SELECT zeroblob(800000000)", f"a value longer than {scoring.MAX_SQL_VALUE_BYTES} bytes"),
    ("with recursive r(s) as (select 'xx' union all select s || s from r limit 40) select length(s) from r",
     f"a value longer than {scoring.MAX_SQL_VALUE_BYTES} bytes"),
    ("with recursive r(i) as (select 1 union all select i + 1 from r limit 200) select zeroblob(1000000) from r",
     f"more than {scoring.MAX_SQL_RESULT_BYTES} bytes of results"),
], ids=["one-huge-blob", "doubling-string", "many-large-rows"])
def test_a_query_making_huge_values_ends_in_a_named_problem(database, query, problem):
    import tracemalloc

    tracemalloc.start()
    rows, error = scoring.run_query(database, query, 10)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert rows is None and error == (problem if VALUE_BOUND or "results" in problem else HEAP_PROBLEM)
    assert peak < scoring.MAX_SQL_RESULT_BYTES + (64 << 20), peak >> 20


def test_printf_past_the_value_bound_gives_no_value_not_a_gigabyte(database):
    # SQLite's printf gives NULL once its text would pass the bound: the answer has no rows to match, and the
    # memory is never spent (the 2.9 GB).
    rows, error = scoring.run_query(database, "SELECT printf('%.*c', 99999999, 'x')", 10)
    assert (error, rows) == ((None, [(None,)]) if VALUE_BOUND else (HEAP_PROBLEM, None))


def test_ordinary_queries_are_unchanged(database):
    assert scoring.run_query(database, "select uniquepid, length(uniquepid) from patient", 2) == ([("001-1", 5)], None)


# ------------------------------------------------------------------------------------------ item 2: the database path


@pytest.mark.parametrize("name", ["../outside/secret.sqlite", "/etc/secret.sqlite", "ehr_sql/../../secret.sqlite",
                                  "C:/secret.sqlite", "~/secret.sqlite", "ehr_sql\\..\\..\\secret.sqlite"])
def test_a_database_file_outside_the_data_folder_is_refused_at_scoring(tmp_path, name):
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "outside").mkdir()
    sqlite3.connect(tmp_path / "outside" / "secret.sqlite").close()
    with pytest.raises(scoring.SqlScoringError, match="not a plain path inside the data folder"):
        scoring.database_path({"file": name}, data)
    with pytest.raises(scoring.SqlScoringError):
        scoring.sql_execution("select 1", "select 1", {"file": name}, data_dir=data)


def test_a_database_file_outside_the_data_folder_fails_validate(tmp_path):
    root = tmp_path / "registry-copy"
    shutil.copytree(REPO / "registry", root / "registry")
    for extra in ("taxonomy", "clinreg.yaml"):
        if (REPO / extra).is_dir():
            shutil.copytree(REPO / extra, root / extra)
        elif (REPO / extra).exists():
            shutil.copy(REPO / extra, root / extra)
    record = root / "registry" / "datasets" / "ehr_sql.yaml"
    text = record.read_text(encoding="utf-8")
    assert "file: ehr_sql/eicu.sqlite" in text
    record.write_text(text.replace("file: ehr_sql/eicu.sqlite", "file: ../outside/secret.sqlite"), encoding="utf-8")
    found = [d for d in validate(root).diagnostics if d.code == "CLR703"]
    assert len(found) == 1 and found[0].severity == "error" and found[0].file.endswith("ehr_sql.yaml")
    assert "'../outside/secret.sqlite' is refused: it climbs out with '..'" in found[0].message

