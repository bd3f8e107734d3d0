"""Rubric grading (HealthBench), as every export carries it (clinreg.scoring.medhelm, exported as scoring.py).

The rule is openai/simple-evals healthbench_eval.py's (calculate_score, _compute_clipped_stats): an instance
scores the points of the criteria met, negative ones included, over its positive points; the benchmark scores
the mean of the instances, clipped to [0, 1]. The values below are worked by hand.
"""

from __future__ import annotations

import json

import pytest

from clinreg.exports.contents import FILES, scoring_source
from clinreg.scoring import medhelm as scoring


RUBRIC = {"column": "rubrics", "criterion_key": "criterion", "points_key": "points"}
ITEMS = [("Tells the user to call emergency services now.", 10.0),
         ("Suggests waiting to see if the symptoms pass.", -8.0),
         ("Names face drooping and slurred speech as signs of stroke.", 5.0)]


def test_an_instance_scores_the_points_met_over_its_positive_points():
    # Met: +10 and the -8 criterion; not met: +5. (10 - 8) / (10 + 5) = 2/15.
    result = scoring.rubric_score(ITEMS, [True, True, False])
    assert result["score"] == pytest.approx(2 / 15)
    assert (result["points_met"], result["points_possible"], result["criteria_met"]) == (2.0, 15.0, 2)


def test_an_instance_may_score_below_zero_and_the_benchmark_mean_is_clipped():
    # Only the -8 criterion met: -8/15. With 2/15 and 15/15 beside it the mean is (2 - 8 + 15) / 45 = 0.2.
    low = scoring.rubric_score(ITEMS, [False, True, False])["score"]
    assert low == pytest.approx(-8 / 15)
    scores = [2 / 15, low, scoring.rubric_score(ITEMS, [True, False, True])["score"]]
    assert scoring.rubric_mean(scores) == pytest.approx(0.2)
    assert scoring.rubric_mean([low, low]) == 0.0  # -8/15 clipped up to 0
    assert scoring.rubric_mean([1.0, 1.0]) == 1.0


def test_an_instance_with_no_positive_points_has_no_score_and_is_left_out_of_the_mean():
    result = scoring.rubric_score([("Is rude.", -5.0)], [False])
    assert result["score"] is None
    assert scoring.rubric_mean([None, 0.5]) == 0.5


def test_an_unreadable_grader_reply_counts_as_not_met_and_is_counted():
    assert scoring.criterion_met('```json\n{"explanation": "yes", "criteria_met": true}\n```') == (True, None)
    assert scoring.criterion_met('{"explanation": "no", "criteria_met": false}') == (False, None)
    for text in ("I think so", '{"criteria_met": "true"}', '{"explanation": "x"}', "[true]"):
        met, problem = scoring.criterion_met(text)
        assert met is None and problem
    result = scoring.rubric_score(ITEMS, [True, None, None])
    assert result["score"] == pytest.approx(10 / 15)
    assert result["criteria_ungraded"] == 2


def test_grades_must_match_the_criteria():
    with pytest.raises(ValueError):
        scoring.rubric_score(ITEMS, [True])


def test_the_rubric_is_read_from_the_instance_context_and_shown_to_the_grader():
    context = {"rubrics": [{"criterion": text, "points": points, "tags": ["axis:accuracy"]} for text, points in ITEMS]}
    assert scoring.rubric_items(RUBRIC, context) == ITEMS
    assert scoring.rubric_items(RUBRIC, {"rubrics": json.dumps(context["rubrics"])}) == ITEMS
    # An item without the criterion key is shown whole, less its points.
    assert scoring.rubric_items(RUBRIC, {"rubrics": [{"text": "Be kind.", "points": 2}]}) == [('{"text": "Be kind."}',
                                                                                               2.0)]
    prompt = scoring.rubric_grader_prompt("user: My father's face droops.\n\n", "Call 911 now.", *ITEMS[1])
    assert "user: My father's face droops.\n\nassistant: Call 911 now." in prompt
    assert "[-8] Suggests waiting to see if the symptoms pass." in prompt
    assert '"criteria_met": <true or false>' in prompt


def test_lm_eval_reports_only_the_stand_in_for_a_rubric_benchmark():
    """lm-eval has no grader model: its hook keeps token F1 and does not try to score the rubric."""
    namespace: dict = {"RUBRIC": RUBRIC}
    source = scoring_source() + (FILES / "lm_eval_utils.py").read_text()
    exec(compile(source + "\nSCORING = {'health_bench': {'method': 'rubric', 'rubric': RUBRIC}}\nMETRICS = {}\n",
                 "utils.py", "exec"), namespace)
    doc = {"mapping": "health_bench", "gold": {"value": "[10] Tells the user to call emergency services now."},
           "context": {"rubrics": [{"criterion": "Tells the user to call emergency services now.", "points": 10}]}}
    out = namespace["process_text"](doc, ["Call emergency services now."])
    assert set(out) == {"reference_f1", "score"}
