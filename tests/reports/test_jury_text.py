"""The text of `clinreg jury agreement`, rendered from agreement data (reports.jury_text)."""

from __future__ import annotations

from clinreg.scoring import Rating, jury_agreement
from clinreg.reports.jury_text import jury_agreement_lines

SCORES = {("t1", "accuracy"): (4, 5, 4), ("t2", "accuracy"): (2, 3, 2), ("t3", "accuracy"): (5, 4, 5),
          ("t1", "clarity"): (3, 3, 4), ("t2", "clarity"): (4, 2, 4)}


def _ratings(models=("m1",), benchmark="b1"):
    out = []
    for model in models:
        for (instance, axis), (a, b, clinician) in SCORES.items():
            for rater, score in (("judge-a", a), ("judge-b", b), ("clinician:x", clinician)):
                out.append(Rating(instance, rater, axis, float(score), model, benchmark,
                                  clinician=rater.startswith("clinician:")))
    return out


def test_one_model_one_benchmark_two_axes():
    lines = jury_agreement_lines(jury_agreement(_ratings()))
    assert lines[0] == "2 judge(s): judge-a, judge-b; 1 clinician(s); 3 instance(s); axes: accuracy, clarity"
    assert lines[1] == "all axes: 5 target(s)"
    assert not any(line.startswith("pooled over") for line in lines)
    assert "axis accuracy: 3 target(s)" in lines and "axis clarity: 2 target(s)" in lines  # per axis: more than one
    assert any(line.startswith("  bias of judge-a: ") and line.endswith(" against the clinicians") for line in lines)
    assert lines[-1] == "leave one judge out: needs a model column naming at least two rated models, and two judges"


def test_pooled_benchmarks_and_the_ranking_without_each_judge():
    ratings = _ratings(("m1", "m2")) + [r.__class__(r.instance_id, r.rater, r.axis, r.score, r.model, "b2",
                                                                     r.clinician)
                                         for r in _ratings(("m1", "m2"))]
    lines = jury_agreement_lines(jury_agreement(ratings))
    assert "pooled over 2 benchmarks (b1, b2); --benchmark NAME reads one alone" in lines
    assert "leave one judge out (2 models):" in lines
    assert [line.split(":")[0] for line in lines[-2:]] == ["  without judge-a", "  without judge-b"]


def test_a_judge_name_cannot_drive_the_terminal():
    ratings = [Rating(r.instance_id, "judge-\x1b[31m" if r.rater == "judge-a" else r.rater, r.axis, r.score,
                      r.model, r.benchmark, r.clinician) for r in _ratings()]
    text = "\n".join(jury_agreement_lines(jury_agreement(ratings)))
    assert "\x1b" not in text and "judge-" in text
