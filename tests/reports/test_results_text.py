"""The summaries the results commands print, rendered from their data (reports.results_text, reports.problems)."""

from __future__ import annotations

from clinreg.reports.problems import problem_lines
from clinreg.reports.results_text import (
    export_summary_lines, import_summary_text, published_lines, ratings_summary_text,
)
from clinreg.results.summaries import published_rows


def test_an_import_summary_counts_what_was_left_out():
    summary = {"scores": 5, "models": ["a", "b"], "benchmarks": ["x/x"], "refused": [{}, {}], "stand_ins": 1}
    assert import_summary_text(summary) == ("5 score(s) for 2 model(s) on 1 benchmark(s); 2 refused (see the warnings "
                                            "above); 1 score(s) on another metric than the benchmark's kept beside, "
                                            "not ranked (lm-eval's token overlap, medhelm's configurable jury_score)")
    clean = {**summary, "refused": [], "stand_ins": 0}
    assert import_summary_text(clean) == "5 score(s) for 2 model(s) on 1 benchmark(s)"


def test_an_export_and_a_ratings_summary():
    summary = {"files": ["a", "b"], "scores": 3, "left_out": [{"what": "intervals", "count": 2, "why": "no field"}]}
    assert export_summary_lines(summary, "out", "hf-eval-results") == [
        "wrote 2 file(s) for 3 score(s) to out (hf-eval-results)", "left out: intervals (2): no field"]
    ratings = {"ratings": 4, "raters": ["j1", "j\x1b2"], "models": ["m"], "instances": 2, "runs": ["r1", "r2"]}
    text = ratings_summary_text(ratings)
    assert text.startswith("4 rating(s) by 2 judge(s) (j1, j") and text.endswith("of 1 model(s) on 2 instance(s), "
                                                                                  "from 2 run(s)")
    assert "\x1b" not in text


def test_the_published_list_has_one_line_per_shipped_release():
    rows = published_rows()
    lines = published_lines(rows)
    assert [line.split("  ")[0] for line in lines] == [r["id"] for r in rows] == ["medhelm-2025-05-04",
                                                                                  "medhelm-2025-07-31"]
    assert all("som-shahlab/medhelm@" in line and ":data/leaderboard.csv" in line for line in lines)


def test_problem_lines_stop_at_the_limit_and_count_the_rest():
    assert problem_lines("error", [f"p{i}" for i in range(3)], limit=2) == [
        "clinreg: error: p0", "clinreg: error: p1", "clinreg: error: ... and 1 more"]
    assert problem_lines("note", []) == []
    assert problem_lines("warning", ["bad\x1b[2J"]) == ["clinreg: warning: bad\\x1b[2J"]  # escaped, not obeyed
