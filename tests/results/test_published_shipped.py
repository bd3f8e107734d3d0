"""MedHELM's published leaderboards shipped as results files: listed, put beside a run, kept apart when two
releases are read together, and still what the recorded CSVs make of them."""

from __future__ import annotations

import importlib.util
import json

import pytest

from results.helpers import DATA, ROOT, invoke, leaderboard_json

PUBLISHED = DATA / "medhelm"
INSPECT = DATA / "inspect_mockllm_med_qa.json"


def test_results_published_lists_both_releases():
    result = invoke("results", "published", "--format", "json")
    assert result.exit_code == 0, result.output
    releases = {r["id"]: r for r in json.loads(result.stdout)["data"]["releases"]}
    assert set(releases) >= {"medhelm-2025-05-04", "medhelm-2025-07-31"}
    old, new = releases["medhelm-2025-05-04"], releases["medhelm-2025-07-31"]
    assert (old["date"], old["models"], old["benchmarks"]) == ("2025-05-04", 9, 33)
    assert (new["date"], new["models"], new["benchmarks"]) == ("2025-07-31", 9, 37)
    assert new["edition"] == "helm-63754d05" and old["edition"] is None
    assert new["source"]["repository"] == "som-shahlab/medhelm"
    assert new["source"]["commit"] == "94167c5c0298f83639ff7949ee9656062df359f1"
    assert new["source"]["file"] == "data/leaderboard.csv"
    text = invoke("results", "published")
    assert text.exit_code == 0
    assert "medhelm-2025-07-31  2025-07-31  9 models x 37 benchmarks  edition helm-63754d05" in text.stdout


@pytest.mark.skipif(not PUBLISHED.exists(), reason="tests/results/data/medhelm is not here")
def test_the_shipped_files_are_what_the_recorded_csvs_make():
    spec = importlib.util.spec_from_file_location("ship", PUBLISHED / "ship.py")
    ship = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ship)
    assert ship.main_(check=True) == 0


@pytest.mark.skipif(not PUBLISHED.exists(), reason="tests/results/data/medhelm is not here")
def test_with_id_is_the_same_as_the_csv_beside():
    shipped = leaderboard_json(str(INSPECT), "--with", "medhelm-2025-07-31")
    by_csv = leaderboard_json(str(INSPECT), str(PUBLISHED / "2025-07-31" / "leaderboard.csv"))
    assert [(r["model"], r["mean_win_rate"]) for r in shipped["rows"]] == \
        [(r["model"], r["mean_win_rate"]) for r in by_csv["rows"]]
    assert "mockllm/model" in shipped["models"] and "GPT-4o (2024-05-13)" in shipped["models"]


def test_an_unknown_release_id_is_a_usage_error():
    result = invoke("leaderboard", "--root", ROOT, str(INSPECT), "--with", "medhelm-1999-01-01")
    assert result.exit_code == 2
    assert "medhelm-2025-07-31" in result.output


@pytest.mark.skipif(not PUBLISHED.exists(), reason="tests/results/data/medhelm is not here")
def test_a_hand_imported_csv_says_which_release_it_is():
    result = invoke("results", "import", "--root", ROOT, str(PUBLISHED / "2025-05-04" / "leaderboard.csv"))
    assert result.exit_code == 0, result.output
    scores = json.loads(result.stdout)["scores"]
    assert {s["provenance"]["published"]["id"] for s in scores} == {"medhelm-2025-05-04"}
    assert scores[0]["provenance"]["published"]["date"] == "2025-05-04"


@pytest.mark.parametrize("how", ["csv", "with"])
def test_two_releases_together_keep_their_scores_apart(how):
    if how == "csv" and not PUBLISHED.exists():
        pytest.skip("tests/results/data/medhelm is not here")
    args = [str(PUBLISHED / d / "leaderboard.csv") for d in ("2025-05-04", "2025-07-31")] if how == "csv" else \
        [str(INSPECT), "--with", "medhelm-2025-05-04", "--with", "medhelm-2025-07-31"]
    result = invoke("leaderboard", "--root", ROOT, *args, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["data"]
    assert "GPT-4o (2024-05-13) [medhelm-2025-05-04]" in data["models"]
    assert "GPT-4o (2024-05-13) [medhelm-2025-07-31]" in data["models"]
    rows = {r["model"]: r for r in data["rows"]}
    assert len(rows["GPT-4o (2024-05-13) [medhelm-2025-05-04]"]["benchmarks"]) == 33
    assert len(rows["GPT-4o (2024-05-13) [medhelm-2025-07-31]"]["benchmarks"]) == 37
    # each release's published win rate stays with its own rows, and is the row's mean win rate
    new, old = rows["GPT-4o (2024-05-13) [medhelm-2025-07-31]"], rows["GPT-4o (2024-05-13) [medhelm-2025-05-04]"]
    assert new["reported_mean_win_rate"] == new["mean_win_rate"] == 0.579
    assert old["reported_mean_win_rate"] == old["mean_win_rate"] == 0.563
    assert (new["source"]["id"], old["source"]["id"]) == ("medhelm-2025-07-31", "medhelm-2025-05-04")
    warnings = [line for line in result.stderr.splitlines() if "CLR967" in line]
    assert len(warnings) == 1, result.stderr
    assert "medhelm-2025-05-04" in warnings[0] and "medhelm-2025-07-31" in warnings[0]
    assert "297 score(s) of 9 model(s)" in warnings[0]
