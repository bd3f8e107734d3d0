"""HealthBench's two scores under two names: an Inspect log of clinreg's HealthBench task gives the authors' score
(healthbench_simple_evals_score, simple-evals' computation), imported as that metric of health_bench, never as
MedHELM's health_bench_score (medhelm 0.8.0's computation, the HELM export's); the leaderboard marks the two as
different metrics wherever they meet."""

from __future__ import annotations

import json

import pytest

from results.helpers import DATA, ROOT, invoke, needs_zstandard, write

from clinreg.results.inspect_logs import eval_members
from clinreg.scoring import medhelm

LOG = DATA / "inspect_health_bench" / "clinreg_health_bench.eval"  # recorded, see inspect_health_bench/record.py


def _imported(tmp_path):
    needs_zstandard()
    out = tmp_path / "imported.json"
    result = invoke("results", "import", "--root", ROOT, str(LOG), "-o", str(out))
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text(encoding="utf-8"))


def test_an_inspect_healthbench_log_gives_the_authors_score_under_its_own_name(tmp_path):
    doc = _imported(tmp_path)
    (score,) = doc["scores"]
    assert (score["record"], score["mapping"]) == ("health_bench", "health_bench")
    assert score["metric"] == medhelm.HEALTHBENCH_METRIC != "health_bench_score"
    assert score["value"] == pytest.approx(2.2 / 3)  # 0.2, 1.0 and 1.0: see the recorder
    header = next(member for name, member in eval_members(LOG) if name == "header.json")
    [stats] = [s["metrics"] for s in header["results"]["scores"] if s["name"] == "rubric_grader"]
    assert score["n_instances"] == stats[medhelm.HEALTHBENCH_METRIC + ":n_samples"]["value"] == 3
    assert score["stderr"] == pytest.approx(stats[medhelm.HEALTHBENCH_METRIC + ":bootstrap_std"]["value"])
    assert score["stderr"] > 0
    # the grader the run used (the model role `grader` of the recorded run), as the samples' scores recorded it
    assert score["jury"] == {"rubric": "simple-evals healthbench grader", "judges": {"grader": "mockllm/model"}}


def test_the_two_scores_are_marked_as_different_metrics_on_the_board(tmp_path):
    imported = write(tmp_path / "inspect.json", json.dumps(_imported(tmp_path)))
    helm = write(tmp_path / "helm.json", json.dumps({"clinreg_results": 1, "scores": [
        {"model": "helm-model", "record": "health_bench", "mapping": "health_bench", "metric": "health_bench_score",
         "value": 0.4, "provenance": {"harness": "helm"}}]}))
    result = invoke("leaderboard", "--root", ROOT, str(imported), str(helm), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)["data"]
    (entry,) = [e for e in data["comparability"] if e["benchmark"] == "health_bench/health_bench"]
    assert entry["differs"][0] == "metric" and "metric" in entry["what"]
    assert {s["metric"] for s in entry["sources"]} == {"health_bench_score", medhelm.HEALTHBENCH_METRIC}
    (bench,) = [b for b in data["benchmarks"] if b["key"] == "health_bench/health_bench"]
    marked = {s["model"]: s["differs"] for s in bench["scores"]}
    assert any("metric" in differs for differs in marked.values())
    assert {s["model"]: s.get("metric") for s in bench["scores"]} == {"mockllm/model": medhelm.HEALTHBENCH_METRIC,
                                                                     "helm-model": None}
    markdown = invoke("leaderboard", "--root", ROOT, str(imported), str(helm), "--format", "markdown").output
    assert f"metric ({medhelm.HEALTHBENCH_METRIC} vs health_bench_score)" in markdown \
        or f"metric (health_bench_score vs {medhelm.HEALTHBENCH_METRIC})" in markdown
    assert "| `healthbench_simple_evals_score` | 0–1 | mockllm/model |" in markdown  # the score's own metric
    # ranked apart: each is the only model of its group on the benchmark, so neither beats the other
    rows = {r["model"]: r for r in data["rows"]}
    assert any("ranked only against 0 model(s)" in note for note in rows["mockllm/model"]["jury_differs"]) \
        or any("ranked only against 0 model(s)" in note for note in rows["helm-model"]["jury_differs"])
    # --comparable-only keeps one of them on the benchmark, never both
    only = json.loads(invoke("leaderboard", "--root", ROOT, str(imported), str(helm), "--format", "json",
                             "--comparable-only").output)["data"]
    (bench,) = [b for b in only["benchmarks"] if b["key"] == "health_bench/health_bench"]
    assert len(bench["scores"]) == 1


def test_a_results_file_keeps_the_metric_and_refuses_an_unknown_one(tmp_path):
    doc = _imported(tmp_path)
    doc["scores"].append(dict(doc["scores"][0], model="other", metric="health_bench_score_v2"))
    path = write(tmp_path / "edited.json", json.dumps(doc))
    result = invoke("leaderboard", "--root", ROOT, str(path), "--format", "json")
    data = json.loads(result.stdout)["data"]
    (bench,) = [b for b in data["benchmarks"] if b["key"] == "health_bench/health_bench"]
    assert [s["model"] for s in bench["scores"]] == ["mockllm/model"]
    assert "CLR965" in result.stderr and "health_bench_score_v2" in result.stderr


def test_the_authors_score_round_trips_through_every_eval_ever_under_its_name(tmp_path):
    imported = write(tmp_path / "inspect.json", json.dumps(_imported(tmp_path)))
    out = tmp_path / "eee"
    result = invoke("results", "export", str(imported), "--root", ROOT, "--to", "every-eval-ever", "-o", str(out))
    assert result.exit_code == 0, result.output
    [record] = [json.loads(p.read_text(encoding="utf-8")) for p in out.rglob("*.json")]
    [entry] = record["evaluation_results"]
    assert entry["metric_config"]["metric_id"] == entry["metric_config"]["metric_name"] == medhelm.HEALTHBENCH_METRIC
    back = tmp_path / "back.json"
    assert invoke("results", "import", str(out), "--root", ROOT, "-o", str(back)).exit_code == 0
    (score,) = json.loads(back.read_text(encoding="utf-8"))["scores"]
    assert (score["metric"], score["value"]) == (medhelm.HEALTHBENCH_METRIC, pytest.approx(2.2 / 3))
    assert score["jury"]["judges"] == {"grader": "mockllm/model"}


def test_two_metrics_without_juries_are_never_ranked_against_each_other(tmp_path):
    """Review finding: with no jury recorded on either side, the two HealthBench scores shared one win-rate group."""
    path = write(tmp_path / "both.json", json.dumps({"clinreg_results": 1, "scores": [
        {"model": "m1", "record": "health_bench", "mapping": "health_bench", "metric": "health_bench_score",
         "value": 0.4},
        {"model": "m2", "record": "health_bench", "mapping": "health_bench", "metric": medhelm.HEALTHBENCH_METRIC,
         "value": 0.6},
        {"model": "m3", "record": "health_bench", "mapping": "health_bench", "metric": medhelm.HEALTHBENCH_METRIC,
         "value": 0.5}]}))
    result = invoke("leaderboard", "--root", ROOT, str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    rows = {r["model"]: r for r in json.loads(result.output)["data"]["rows"]}
    # m2 beats m3 (same metric) and nobody beats or loses to m1 (another metric): m2 1.0, m3 0.0, m1 alone
    assert rows["m2"]["mean_win_rate"] == 1.0 and rows["m3"]["mean_win_rate"] == 0.0
    assert rows["m1"]["mean_win_rate"] in (None, 0.0) and rows["m1"]["win_rate_columns"] == 0


def test_a_board_says_how_many_of_its_records_have_no_overlap_figures(tmp_path):
    """Review finding: a contamination note on one record read as if the others were clean."""
    result = invoke("leaderboard", "--root", ROOT, "medhelm-2025-07-31", "--format", "json")
    data = json.loads(result.output)["data"]
    from clinreg.core.store import load_registry
    from clinreg.instances.figures import contamination_view

    reg = load_registry(ROOT)
    records = {b["key"].split("/", 1)[0] for b in data["benchmarks"]}
    missing = sum(1 for r in records if contamination_view(reg, reg.datasets[r])["status"] == "not computed")
    if not missing:
        pytest.skip("every record on the board has figures here")
    assert data["overlap_not_computed"] == {"not_computed": missing, "records": len(records)}
    text = invoke("leaderboard", "--root", ROOT, "medhelm-2025-07-31").output
    assert f"split overlap not computed for {missing} of {len(records)} records" in " ".join(text.split())
