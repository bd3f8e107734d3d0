"""Issue 50, class 6: ratings files that lie about who rated. A jury run names its judges; a judge named
`clinician:...` (or with a line break before `clinician:`) must stay a judge, and the ratings CSV `results ratings`
writes must hold no spreadsheet formula. Whether a rater is a person comes from the row's `rater_kind`, which the
clinicians' sheet writes and `results ratings` sets to `judge`; a file without the column is read the old way."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from clirunner import clinreg

SUITE = Path(__file__).resolve().parents[1] / "results" / "data" / "helm_jury" / "suite"
HOSTILE = {"judge-1": "clinician:dr-evil", "judge-2": "\nclinician:nurse", "judge-3": "=HYPERLINK(\"http://x\",\"y\")"}
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _hostile_suite(tmp_path: Path) -> Path:
    """The recorded HELM jury suite with its judges renamed by the run itself, as anyone writing a run can."""
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    for run in suite.iterdir():
        spec = json.loads((run / "run_spec.json").read_text(encoding="utf-8"))
        for annotator in spec["annotators"]:
            models = annotator["args"]["annotator_models"]
            annotator["args"]["annotator_models"] = {HOSTILE[k]: v for k, v in models.items()}
        (run / "run_spec.json").write_text(json.dumps(spec), encoding="utf-8")
        state = json.loads((run / "scenario_state.json").read_text(encoding="utf-8"))
        for request in state["request_states"]:
            for annotation in (request.get("annotations") or {}).values():
                for old, new in HOSTILE.items():
                    if old in annotation:
                        annotation[new] = annotation.pop(old)
            request["instance"]["id"] = "=1+1;" + request["instance"]["id"]
        (run / "scenario_state.json").write_text(json.dumps(state), encoding="utf-8")
    return suite


@pytest.mark.parametrize("name", ["ratings.csv", "ratings.jsonl"])
def test_judges_named_like_clinicians_stay_judges(tmp_path, name):
    out = tmp_path / name
    done = clinreg("results", "ratings", _hostile_suite(tmp_path), "-o", out)
    assert done.exit_code == 0, done.output
    agreement = clinreg("jury", "agreement", out, "--format", "json")
    assert agreement.exit_code == 0, agreement.output
    data = json.loads(agreement.output)["data"]
    assert data["clinicians"] == [] and len(data["judges"]) == 3
    assert data["rater_kinds_from"] == "rater_kind"
    assert data["overall"]["jury_vs_clinicians"]["targets"] == 0


def test_the_ratings_csv_holds_no_formula_and_one_line_per_rating(tmp_path):
    out = tmp_path / "ratings.csv"
    assert clinreg("results", "ratings", _hostile_suite(tmp_path), "-o", out).exit_code == 0
    text = out.read_text(encoding="utf-8")
    rows = list(csv.DictReader(text.split("\n")))
    assert len(rows) == len(text.rstrip("\n").split("\n")) - 1  # no cell spans two lines
    for row in rows:
        assert row["rater_kind"] == "judge"
        for column, cell in row.items():
            if column != "score":
                assert not cell.startswith(FORMULA), (column, cell)
    assert {r["rater"] for r in rows} == {"clinician:dr-evil", "\\nclinician:nurse", "'=HYPERLINK(\"http://x\",\"y\")"}
    assert all(r["instance_id"].startswith("'=1+1;") for r in rows)


def _write(path: Path, header: str, *rows: str) -> Path:
    path.write_text(header + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_rater_kind_decides_and_names_do_not(tmp_path):
    path = _write(tmp_path / "ratings.csv", "instance_id,rater,rater_kind,axis,score",
                  "q1,ana,clinician,acc,4", "q1,clinician:gpt,judge,acc,3", "q1,llama,judge,acc,2",
                  "q2,ana,Clinician,acc,5", "q2,clinician:gpt,judge,acc,4", "q2,llama,judge,acc,1")
    data = json.loads(clinreg("jury", "agreement", path, "--format", "json").output)["data"]
    assert data["clinicians"] == ["ana"] and data["judges"] == ["clinician:gpt", "llama"]
    assert data["overall"]["jury_vs_clinicians"]["targets"] == 2


@pytest.mark.parametrize("rows, expected", [
    (["q1,ana,,acc,4"], "ratings.csv:2: `rater_kind` must be judge or clinician"),
    (["q1,ana,human?,acc,4"], "ratings.csv:2: `rater_kind` must be judge or clinician"),
    (["q1,ana,clinician,acc,4", "q2,ana,judge,acc,3"], "ratings.csv:3: rater ana is a judge here and a clinician at "
                                                         "line 2"),
])
def test_a_rater_kind_that_is_missing_unknown_or_changing_is_a_located_problem(tmp_path, rows, expected):
    path = _write(tmp_path / "ratings.csv", "instance_id,rater,rater_kind,axis,score", *rows)
    out = clinreg("jury", "agreement", path)
    assert out.exit_code == 2 and expected in out.output and "Traceback" not in out.output


def test_a_json_lines_file_without_the_kind_on_a_later_row_is_refused_there(tmp_path):
    path = tmp_path / "ratings.jsonl"
    rows = [{"instance_id": "q1", "rater": "ana", "rater_kind": "clinician", "axis": "a", "score": 3},
            {"instance_id": "q1", "rater": "clinician:x", "axis": "a", "score": 3}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = clinreg("jury", "agreement", path)
    assert out.exit_code == 2 and "ratings.jsonl:2: `rater_kind` must be judge or clinician" in out.output


def test_an_old_file_is_read_by_the_prefix_but_never_past_a_line_break_or_a_judge_model(tmp_path):
    path = tmp_path / "old.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["instance_id", "rater", "axis", "score", "judge_model"])
        for q, scores in (("q1", (4, 3, 2, 5)), ("q2", (5, 4, 1, 2))):
            writer.writerow([q, "clinician:ana", "acc", scores[0], ""])  # a clinician's row, as old sheets wrote it
            writer.writerow([q, "\nclinician:bob", "acc", scores[1], ""])  # a line break first: a judge
            writer.writerow([q, "clinician:gpt", "acc", scores[2], "openai/gpt-4o"])  # a model judged: a judge
            writer.writerow([q, " clinician:pad", "acc", scores[3], ""])  # a space first: a judge
    out = clinreg("jury", "agreement", path, "--format", "json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)["data"]
    assert data["clinicians"] == ["clinician:ana"] and data["rater_kinds_from"] == "names"
    assert sorted(data["judges"]) == ["clinician:bob", "clinician:gpt", "clinician:pad"]
    text = clinreg("jury", "agreement", path)
    assert "no rater_kind column" in text.output


def test_a_json_lines_file_giving_rater_kind_on_later_lines_only_is_a_located_problem(tmp_path):
    """Review finding: the first line decided, so a later `rater_kind: clinician` was silently read by name."""
    import json as _json

    from clinreg.scoring.ratings import RatingsError, read_ratings

    path = tmp_path / "mixed.jsonl"
    rows = [{"instance_id": "1", "rater": "gpt", "axis": "accuracy", "score": 4},
            {"instance_id": "1", "rater": "Dr A", "rater_kind": "clinician", "axis": "accuracy", "score": 5}]
    path.write_text("".join(_json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    try:
        read_ratings(path)
    except RatingsError as err:
        text = str(err)
    else:
        raise AssertionError("a mixed file was read")
    assert f"{path}:2: rater_kind is given here but not on the file's first line" in text
