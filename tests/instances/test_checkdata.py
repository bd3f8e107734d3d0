"""`clinreg check-data` and `build` on the rows themselves: empty records (CLR905) and a failing template (CLR906)."""

from __future__ import annotations

import json

from clirunner import run

from clinreg.cli.build import build, check_data
from record_fixtures import hub_folder, record_dict, write_root

MCQ = {
    "input_template": "{{ question }}",
    "choices": {"columns": ["opa", "opb"]},
    "label": {"encoding": "index", "column": "cop", "base": 0, "count": 2, "unlabeled": -1, "positive": "B"},
    "metadata_columns": ["qid"],
}
EMPTY = {"question": None, "opa": None, "opb": None, "cop": None, "qid": None}


def _rows(n):
    return [{"question": f"q{i}", "opa": "x", "opb": "y", "cop": i % 2, "qid": i} for i in range(n)]


def _line(root, number):
    return (root / "registry/datasets/fixture.yaml").read_text(encoding="utf-8").splitlines()[number - 1]


def test_empty_records_at_the_end_of_a_split_are_a_located_warning_and_build_skips_them_when_asked(tmp_path):
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"test": _rows(4) + [EMPTY, EMPTY]})
    root = write_root(tmp_path, [record_dict(MCQ)])
    checked = run(check_data, "fixture", "--root", root, "--data-dir", data, "--format", "json")
    assert checked.exit_code == 0, checked.output  # a warning
    (diag,) = json.loads(checked.stdout)["data"]["diagnostics"]
    assert (diag["code"], diag["severity"]) == ("CLR905", "warning")
    assert "2 empty record(s) (rows 4, 5)" in diag["message"] and "column: cop" in _line(root, diag["line"])
    refused = run(build, "fixture", "--root", root, "--data-dir", data, "-o", tmp_path / "all.jsonl")
    assert refused.exit_code == 1 and "rows 4, 5" in refused.output
    skipped = run(build, "fixture", "--root", root, "--data-dir", data, "-o", tmp_path / "some.jsonl",
                  "--on-bad-label", "skip", "--quiet")
    assert skipped.exit_code == 0, skipped.output
    assert len((tmp_path / "some.jsonl").read_text(encoding="utf-8").splitlines()) == 4


def test_a_template_the_sandbox_refuses_is_a_located_error_in_check_data_and_build(tmp_path):
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"test": _rows(4)})
    root = write_root(tmp_path, [record_dict({**MCQ, "input_template": "{{ question.__class__ }}"})])
    checked = run(check_data, "fixture", "--root", root, "--data-dir", data, "--format", "json")
    assert checked.exit_code == 1, checked.output
    (diag,) = json.loads(checked.stdout)["data"]["diagnostics"]
    assert (diag["code"], diag["severity"]) == ("CLR906", "error")
    assert "unsafe" in diag["message"] and "input_template:" in _line(root, diag["line"])
    built = run(build, "fixture", "--root", root, "--data-dir", data, "-o", tmp_path / "out.jsonl", "--format", "json")
    assert built.exit_code == 1 and "Traceback" not in built.output
    error = json.loads(built.output)["data"]
    assert error["code"] == "CLR906" and "unsafe" in error["message"], error
    assert not (tmp_path / "out.jsonl").exists()
