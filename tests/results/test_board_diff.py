"""`clinreg leaderboard diff OLD NEW`: each model's change in mean win rate, split into benchmark set, cohort and
scores, the parts summing to the change."""

from __future__ import annotations

import json

import pytest

from clinreg.results.published import published_file
from results.helpers import DATA, ROOT, invoke, leaderboard_json

INSPECT = DATA / "inspect_mockllm_med_qa.json"


def diff(old, new, fmt="json"):
    result = invoke("leaderboard", "diff", str(old), str(new), "--root", ROOT, "--format", fmt)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["data"] if fmt == "json" else result.stdout


def mwr(*args) -> dict[str, float]:
    # the diff splits the mean win rate computed from the scores (a release's row shows the release's stated one)
    return {r["model"]: r["mean_win_rate_computed"] for r in leaderboard_json(*map(str, args))["rows"]}


def test_between_the_two_releases_every_part_sums_to_the_change():
    data = diff("medhelm-2025-05-04", "medhelm-2025-07-31")
    assert len(data["benchmarks"]["added"]) == 4 and "med_qa/med_qa" in data["benchmarks"]["added"]
    assert data["cohort"]["added"] == [] and data["cohort"]["removed"] == []
    old = mwr(published_file("medhelm-2025-05-04"))
    new = mwr(published_file("medhelm-2025-07-31"))
    assert len(data["models"]) + len(data["unchanged"]) == 9
    for m in data["models"]:
        change = m["change"]
        assert change["benchmarks"] + change["cohort"] + change["scores"] == pytest.approx(change["total"], abs=1e-12)
        assert change["total"] == pytest.approx(new[m["model"]] - old[m["model"]], abs=1e-12)
        assert (m["old"], m["new"]) == (old[m["model"]], new[m["model"]])
        assert change["cohort"] == 0  # the same nine models
    assert any(m["change"]["benchmarks"] != 0 for m in data["models"])


def test_a_model_added_to_the_cohort_moves_the_others(tmp_path):
    """The release alone, then the release with an Inspect run beside (as `results import` writes it)."""
    after = tmp_path / "after.json"
    result = invoke("results", "import", "--root", ROOT, str(published_file("medhelm-2025-07-31")), str(INSPECT),
                    "-o", str(after))
    assert result.exit_code == 0, result.output
    data = diff("medhelm-2025-07-31", after)
    assert data["cohort"]["added"] == ["mockllm/model"]
    for m in data["models"]:
        change = m["change"]
        assert change["benchmarks"] == 0
        assert change["cohort"] != 0 and change["scores"] == pytest.approx(0, abs=1e-12)
        assert change["benchmarks"] + change["cohort"] + change["scores"] == pytest.approx(change["total"], abs=1e-12)


def test_the_table_shows_the_parts():
    text = diff("medhelm-2025-05-04", "medhelm-2025-07-31", fmt="table")
    assert "Model" in text and "Benchmarks" in text and "Cohort" in text and "Scores" in text
    assert "benchmarks 33 -> 37 (+4 -0); models 9 -> 9 (+0 -0)" in text


def test_an_unknown_side_is_a_usage_error():
    result = invoke("leaderboard", "diff", "medhelm-1999-01-01", "medhelm-2025-07-31", "--root", ROOT)
    assert result.exit_code == 2
