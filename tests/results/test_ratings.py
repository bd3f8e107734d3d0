"""`clinreg results ratings` on HELM's own jury run folders (recorded, see data/helm_jury/record.py), and what
`clinreg jury agreement` makes of them; inputs with no jury ratings, twice-given runs and broken files."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.main import main
from clinreg.scoring.ratings import read_ratings

DATA = Path(__file__).parent / "data"
SUITE = DATA / "helm_jury" / "suite"
# The recording's test judges (tests/interop/test_helm.py): (accuracy, completeness, clarity) for an A and a B answer.
JUDGES = {"judge-1": {"A": (4, 5, 3), "B": (3, 3, 3)}, "judge-2": {"A": (2, 3, 4), "B": (5, 5, 5)},
          "judge-3": {"A": (5, 4, 5), "B": (4, 4, 4)}}
AXES = ("accuracy", "completeness", "clarity")
MODELS = ["clinreg-test/constant-a", "clinreg-test/constant-b"]


def _ratings(*args):
    return invoke(main, ["results", "ratings", *map(str, args)])


def test_helms_jury_runs_give_every_kept_rating_by_judge_and_model(tmp_path):
    out = tmp_path / "ratings.csv"
    done = _ratings(SUITE, "-o", out, "--format", "json")
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)["data"]
    assert summary["raters"] == sorted(JUDGES) and summary["models"] == MODELS and summary["problems"] == []
    assert summary["ratings"] == 2 * 3 * 3 * 3 and summary["instances"] == 6 and len(summary["runs"]) == 2
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(rows[0]) == ["instance_id", "rater", "rater_kind", "axis", "score", "model", "judge_model", "benchmark"]
    assert {r["benchmark"] for r in rows} == {"clinreg:mapping=aci_bench"}
    for row in rows:
        assert row["instance_id"].startswith("aci_bench/aci_bench/")
        assert float(row["score"]) == JUDGES[row["rater"]][row["model"][-1].upper()][AXES.index(row["axis"])]
        assert row["judge_model"] == f"clinreg-test/{row['rater']}"
    # The instances each model answered are the same ones, so the two models' ratings pair up by instance.
    assert {r["instance_id"] for r in rows if r["model"] == MODELS[0]} == {r["instance_id"] for r in rows
                                                                           if r["model"] == MODELS[1]}


def test_jury_agreement_on_the_written_file_leaves_each_judge_out(tmp_path):
    out = tmp_path / "ratings.jsonl"
    assert _ratings(SUITE, "-o", out).exit_code == 0
    assert [json.loads(line)["rater"] for line in out.read_text().splitlines()][0:9:3] == sorted(JUDGES)
    assert len(read_ratings(out)) == 54  # the file jury agreement reads, JSON lines for -o *.jsonl
    done = invoke(main, ["jury", "agreement", str(out), "--format", "json"])
    assert done.exit_code == 0, done.output
    loo = json.loads(done.stdout)["data"]["leave_one_judge_out"]
    # By hand: A's nine ratings sum to 35, B's to 36; without judge-2, A 26/6 and B 21/6 swap places.
    assert loo["scores"] == pytest.approx({MODELS[0]: 35 / 9, MODELS[1]: 36 / 9})
    assert {j["judge"]: j["kendall_tau"] for j in loo["left_out"]} == {"judge-1": 1.0, "judge-2": -1.0, "judge-3": 1.0}
    without = {j["judge"]: j["scores_without"] for j in loo["left_out"]}
    assert without["judge-2"] == pytest.approx({MODELS[0]: 26 / 6, MODELS[1]: 21 / 6})
    text = invoke(main, ["jury", "agreement", str(out)])
    assert "without judge-2: Kendall's tau -1.000" in text.output


def test_without_o_the_csv_goes_to_stdout():
    done = _ratings(SUITE)
    assert done.exit_code == 0
    assert done.stdout.splitlines()[0] == "instance_id,rater,rater_kind,axis,score,model,judge_model,benchmark"
    assert len(done.stdout.splitlines()) == 55


def test_runs_without_a_jury_write_nothing_and_say_why(tmp_path):
    out = tmp_path / "ratings.csv"
    done = _ratings(DATA / "helm" / "suite", DATA / "inspect_mockllm_med_qa.eval", "-o", out)
    assert done.exit_code == 1
    assert not out.exists()
    assert "no LLM-jury annotator" not in done.stderr  # 4 runs and groups/clinreg.json: skipped, and counted
    assert "note: 5 run(s) or file(s) found in the folders given hold no jury ratings; skipped" in done.stderr
    one = sorted(p for p in (DATA / "helm" / "suite").iterdir() if (p / "run_spec.json").is_file())[0]
    named = _ratings(one)  # a run named on its own: said why
    assert named.exit_code == 1 and "no LLM-jury annotator with annotator models: not a jury run" in named.stderr
    assert "inspect_mockllm_med_qa.eval: no sample holds a jury scorer's ratings" in done.stderr
    assert "no jury ratings in these runs; nothing written" in done.stderr


def test_a_run_given_twice_is_read_once_and_said(tmp_path):
    run = next(p for p in sorted(SUITE.iterdir()) if p.is_dir())
    done = _ratings(run, run, "-o", tmp_path / "r.csv", "--format", "json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)["data"]
    assert data["ratings"] == 27
    assert len(data["problems"]) == 27 and "is rated again by judge-1" in data["problems"][0]


def test_a_broken_scenario_state_is_a_located_warning_not_a_traceback(tmp_path):
    runs = tmp_path / "suite"
    shutil.copytree(SUITE, runs)
    broken = sorted(runs.iterdir())[0] / "scenario_state.json"
    broken.write_text(broken.read_text()[:500], encoding="utf-8")
    done = _ratings(runs, "-o", tmp_path / "r.csv")
    assert done.exit_code == 0, done.output  # the other model's run is still read
    assert f"clinreg: warning: {broken}:13:5: not valid JSON" in done.stderr
    assert len(list(csv.DictReader((tmp_path / "r.csv").open()))) == 27


def test_a_missing_run_is_a_usage_error(tmp_path):
    assert _ratings(tmp_path / "nope").exit_code == 2


# ---------------------------------------------------------------------------------------------------- Inspect

INSPECT = DATA / "inspect_jury" / "clinreg_aci_bench.eval"  # recorded, see inspect_jury/record.py
MOCK = {"gpt": (4, 5, 3), "llama": (2, 3, 4), "claude": (5, 4, 5)}


def test_an_inspect_jury_log_gives_each_judges_ratings_from_the_samples(tmp_path):
    from results.helpers import needs_zstandard

    needs_zstandard()
    out = tmp_path / "ratings.csv"
    done = _ratings(INSPECT, "-o", out, "--format", "json")
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)["data"]
    assert summary["runs"] == [{"file": str(INSPECT), "harness": "inspect", "model": "mockllm/model",
                                "task": "clinreg_aci_bench", "instances": 2, "ratings": 18}]
    # The three judges are one mock model: each judge's name stays its own rater.
    assert summary["raters"] == ["claude", "gpt", "llama"] and summary["notes"] == []
    for row in csv.DictReader(out.open(encoding="utf-8")):
        assert float(row["score"]) == MOCK[row["rater"]][AXES.index(row["axis"])]
        assert row["judge_model"] == "mockllm/model" and row["model"] == "mockllm/model"
    data = json.loads(invoke(main, ["jury", "agreement", str(out), "--format", "json"]).stdout)["data"]
    assert data["instances"] == 2 and data["leave_one_judge_out"] is None  # one model: no ranking
    # Every judge gives the same rating to every instance: no variance between targets, so no ICC.
    assert data["overall"]["judges"]["targets_scored_by_every_judge"] == 6


def test_a_folder_holding_both_harnesses_runs_is_read_whole(tmp_path):
    from results.helpers import needs_zstandard

    needs_zstandard()
    folder = tmp_path / "runs"
    shutil.copytree(SUITE, folder / "helm")
    shutil.copy(INSPECT, folder / "inspect.eval")
    done = _ratings(folder, "--format", "json", "-o", tmp_path / "r.csv")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)["data"]
    assert data["ratings"] == 54 + 18 and data["problems"] == []
    assert sorted(r["harness"] for r in data["runs"]) == ["helm", "helm", "inspect"]


def test_two_benchmarks_numbering_instances_alike_are_kept_apart(tmp_path):
    """HELM numbers every scenario's instances id0, id1, ...: a suite with two jury benchmarks keeps both runs'
    ratings (no "rated again"); jury agreement keeps their instances apart, and reads one alone with --benchmark."""
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    for run in sorted(SUITE.iterdir()):
        twin = suite / run.name.replace("aci_bench", "other_bench")
        shutil.copytree(run, twin)
        spec = twin / "run_spec.json"
        spec.write_text(spec.read_text(encoding="utf-8").replace("mapping=aci_bench", "mapping=other_bench"),
                        encoding="utf-8")
    out = tmp_path / "ratings.csv"
    done = _ratings(suite, "-o", out, "--format", "json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["data"]["problems"] == []
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 2 * 54
    assert {r["benchmark"] for r in rows} == {"clinreg:mapping=aci_bench", "clinreg:mapping=other_bench"}
    pooled = invoke(main, ["jury", "agreement", str(out), "--format", "json"])
    assert pooled.exit_code == 0, pooled.output
    data = json.loads(pooled.stdout)["data"]
    # Two benchmarks' id0, id1, ... are different instances: twice the targets, never one pooled rating pair.
    assert data["instances"] == 2 * 6 and data["benchmarks"] == ["clinreg:mapping=aci_bench",
                                                                 "clinreg:mapping=other_bench"]
    assert "pooled over 2 benchmarks" in invoke(main, ["jury", "agreement", str(out)]).output
    one = invoke(main, ["jury", "agreement", str(out), "--benchmark", "clinreg:mapping=other_bench",
                        "--format", "json"])
    assert one.exit_code == 0, one.output
    loo = json.loads(one.stdout)["data"]["leave_one_judge_out"]
    assert {j["judge"]: j["kendall_tau"] for j in loo["left_out"]} == {"judge-1": 1.0, "judge-2": -1.0, "judge-3": 1.0}
    missing = invoke(main, ["jury", "agreement", str(out), "--benchmark", "nope"])
    assert missing.exit_code == 2 and "no ratings of benchmark 'nope'" in missing.stderr
