"""The table of `clinreg leaderboard diff`, rendered from diff data (reports.leaderboard_diff)."""

from __future__ import annotations

import pytest

from clinreg.reports.leaderboard_diff import render_diff_table


def _data(models, unchanged=()):
    return {"old": "old.json", "new": "medhelm-2025-07-31",
            "benchmarks": {"old": 2, "new": 3, "added": ["c/c"], "removed": []},
            "cohort": {"old": 2, "new": 2, "added": [], "removed": []},
            "benchmarks_with_changed_scores": ["a/a"], "models": models, "unchanged": list(unchanged)}


def _model(name, old, new, benchmarks, cohort, scores):
    return {"model": name, "old": old, "new": new,
            "change": {"total": new - old, "benchmarks": benchmarks, "cohort": cohort, "scores": scores}}


def test_each_model_row_is_aligned_under_the_heads():
    text = render_diff_table(_data([_model("A long model name", 0.5, 0.625, 0.1, 0.0, 0.025),
                                    _model("B", 0.75, 0.5, -0.25, 0.0, 0.0)], unchanged=["C"]))
    lines = text.split("\n")
    assert lines[:2] == ["clinreg leaderboard diff: old.json -> medhelm-2025-07-31",
                         "benchmarks 2 -> 3 (+1 -0); models 2 -> 2 (+0 -0); 1 benchmark(s) with changed scores"]
    assert lines[2] == "benchmarks added: c/c"  # named, not only counted
    assert lines[3:6] == ["Model                Old    New  Change  Benchmarks  Cohort  Scores",
                          "A long model name  0.500  0.625  +0.125      +0.100  +0.000  +0.025",
                          "B                  0.750  0.500  -0.250      -0.250  +0.000  +0.000"]
    assert lines[6] == "unchanged: C"
    assert lines[7].startswith("Change = Benchmarks + Cohort + Scores, taken in that order")


def test_no_model_changed_says_why_there_is_no_table():
    data = {**_data([]), "empty_because": "no model is on both boards, so no mean win rate can be compared",
            "cohort": {"old": 1, "new": 2, "added": ["x", "y"], "removed": ["z"]}}
    lines = render_diff_table(data).split("\n")
    assert "models that joined: x, y" in lines and "models that left: z" in lines
    assert "No table: no model is on both boards, so no mean win rate can be compared." in lines
    assert not any(line.startswith(("Model ", "unchanged")) for line in lines)


def test_the_diff_carries_the_leaderboards_comparability_marks():
    marked = {**_model("A", 0.5, 0.6, 0.0, 0.1, 0.0), "differs": {"new": ["med_qa/med_qa: your run's harness"]}}
    data = {**_data([marked]), "cohort": {"old": 1, "new": 2, "added": ["mock"], "removed": []},
            "comparability": {"old": [], "new": [{"benchmark": "med_qa/med_qa", "what": "harness, instance set"}]},
            "cohort_differs": {"mock": ["med_qa/med_qa: your run's instance set (3 instances vs 1,000 instances)"]}}
    text = render_diff_table(data)
    assert "Not like for like on NEW: med_qa/med_qa (harness, instance set)" in text
    assert "Warning: mock joined the cohort with scores that are not like for like (med_qa/med_qa: your run's " \
           "instance set (3 instances vs 1,000 instances))" in text
    (row,) = [line for line in text.split("\n") if line.startswith("A ")]
    assert row.endswith("new: differs on 1")


def test_a_model_name_cannot_drive_the_terminal():
    text = render_diff_table(_data([_model("evil\x1b]0;title\x07", 0.5, 0.5, 0.0, 0.0, 0.0)], ["x\x1b[2J"]))
    assert "\x1b" not in text and "\x07" not in text


def test_a_release_stated_rate_that_differs_from_the_recomputed_one_is_named_with_both():
    model = {**_model("M", 0.5, 0.625, 0.1, 0.0, 0.025), "release_states": {"new": 0.624}}
    text = render_diff_table(_data([model]))
    assert text.split("\n")[-1] == (
        "Old and New are recomputed from the scores, so that the parts sum; where a release states its own mean win "
        "rate otherwise (as the leaderboard shows it), it says: M 0.624 on NEW (recomputed 0.625).")
    assert "recomputed" not in render_diff_table(_data([_model("M", 0.5, 0.625, 0.1, 0.0, 0.025)]))


def test_the_diff_of_two_releases_names_the_rates_each_release_states_as_its_board_shows_them():
    import json

    from clirunner import invoke
    from clinreg.cli.main import main

    def run(*args):
        result = invoke(main, list(args))
        assert result.exit_code == 0, result.output
        return json.loads(result.output)["data"]

    old, new = "medhelm-2025-05-04", "medhelm-2025-07-31"
    diff = run("leaderboard", "diff", old, new, "--format", "json")
    boards = {side: {r["model"]: r for r in run("leaderboard", rid, "--format", "json")["rows"]}
              for side, rid in (("old", old), ("new", new))}
    named = 0
    for m in diff["models"]:
        for side in ("old", "new"):
            row = boards[side][m["model"]]
            assert row["mean_win_rate_computed"] == pytest.approx(m[side])
            if round(row["mean_win_rate"], 3) != round(m[side], 3):
                assert m["release_states"][side] == row["mean_win_rate"]  # what the board shows
                named += 1
            else:
                assert side not in m["release_states"]
    assert named  # the shipped releases round some rates otherwise: the check above is not vacuous
