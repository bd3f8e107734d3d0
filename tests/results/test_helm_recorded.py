"""The HELM reader on what HELM itself wrote for a clinreg export (recorded by data/helm/record.py from a real run
of the export's README commands on two constant-answer test models)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from results.helpers import invoke

SUITE = Path(__file__).parent / "data" / "helm" / "suite"
ROOT = Path(__file__).resolve().parents[2]


def helm_own(metric_of):
    """{(model, mapping): (mean, instances)} as HELM's stats.json states them."""
    out = {}
    for spec_file in SUITE.glob("*/run_spec.json"):
        spec = json.loads(spec_file.read_text())
        mapping = spec["name"].split("mapping=", 1)[1].split(",", 1)[0]
        stats = json.loads((spec_file.parent / "stats.json").read_text())
        by_name = {json.dumps(s["name"], sort_keys=True): s for s in stats}
        mean = by_name[json.dumps({"name": metric_of[mapping], "split": "test"}, sort_keys=True)]["mean"]
        n = by_name[json.dumps({"name": "num_instances", "split": "test"}, sort_keys=True)]["mean"]
        out[(spec["adapter_spec"]["model"], mapping)] = (mean, n)
    return out


METRIC = {"pubmed_qa": "exact_match", "medcalc_bench": "medcalc_bench_accuracy"}


def test_run_folders_import_with_helms_scores_and_instance_counts():
    result = invoke("results", "import", "--root", ROOT, SUITE)
    assert result.exit_code == 0, result.output
    scores = {(s["model"], s["mapping"]): s for s in json.loads(result.stdout)["scores"]}
    own = helm_own(METRIC)
    assert set(scores) == set(own) and len(own) == 4
    for key, (mean, n) in own.items():
        assert scores[key]["value"] == pytest.approx(mean)
        assert scores[key]["n_instances"] == n > 1, ("stats.json counts trials; the instances come from "
                                                     "per_instance_stats")
        assert scores[key]["per_instance"]["binary"] is True
    assert scores[("clinreg-test/constant-a", "pubmed_qa")]["value"] > 0


def test_helms_leaderboard_json_imports_to_the_same_scores():
    runs = json.loads(invoke("results", "import", "--root", ROOT, SUITE).stdout)["scores"]
    board = invoke("results", "import", "--root", ROOT, SUITE / "groups" / "clinreg.json")
    assert board.exit_code == 0, board.output
    shown = json.loads(board.stdout)["scores"]
    assert sorted((s["mapping"], round(s["value"], 9)) for s in shown) == sorted(
        (s["mapping"], round(s["value"], 9)) for s in runs)
    assert {s["model"] for s in shown} == {"Constant A (test)", "Constant B (test)"}


def test_a_score_of_zero_gets_a_wilson_interval_not_a_point():
    result = invoke("leaderboard", "--root", ROOT, SUITE, "--by", "subcategory", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["data"]["rows"]
    zero = [r for r in rows if r["macro_average"] == 0]
    assert zero, "a constant model answers some benchmark wrong throughout"
    for row in rows:
        assert row["macro_interval"]["high"] > row["macro_interval"]["low"]
        if len(row["benchmarks"]) == 1:
            assert row["macro_interval"]["method"] == "wilson"
