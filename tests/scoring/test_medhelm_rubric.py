"""Rubric grading (HealthBench), as every export carries it (clinreg.scoring.medhelm, exported as scoring.py).

The rule is openai/simple-evals healthbench_eval.py's (calculate_score, _compute_clipped_stats): an instance
scores the points of the criteria met, negative ones included, over its positive points; the benchmark scores
the mean of the instances, clipped to [0, 1]. The values below are worked by hand; tests/scoring/
test_healthbench_simple_evals.py runs simple-evals' own code beside these functions.
"""

from __future__ import annotations

import json

import pytest

from clinreg.exports.contents import FILES, scoring_source
from clinreg.scoring import medhelm as scoring


RUBRIC = {"column": "rubrics", "criterion_key": "criterion", "points_key": "points"}
ITEMS = [("Tells the user to call emergency services now.", 10, ["axis:completeness"]),
         ("Suggests waiting to see if the symptoms pass.", -8, ["axis:accuracy"]),
         ("Names face drooping and slurred speech as signs of stroke.", 5, ["axis:accuracy"])]


def test_an_instance_scores_the_points_met_over_its_positive_points():
    # Met: +10 and the -8 criterion; not met: +5. (10 - 8) / (10 + 5) = 2/15.
    result = scoring.rubric_score(ITEMS, [True, True, False])
    assert result["score"] == pytest.approx(2 / 15)
    assert (result["points_met"], result["points_possible"], result["criteria_met"]) == (2, 15, 2)
    # simple-evals' per-instance metrics: the score, each example tag, and each rubric tag with positive points.
    tagged = scoring.rubric_score(ITEMS, [True, True, False], ["theme:emergency_referrals"])["metrics"]
    assert tagged == pytest.approx({"overall_score": 2 / 15, "theme:emergency_referrals": 2 / 15,
                                    "axis:completeness": 1.0, "axis:accuracy": -8 / 5})


def test_an_instance_may_score_below_zero_and_the_benchmark_mean_is_clipped():
    # Only the -8 criterion met: -8/15. With 2/15 and 15/15 beside it the mean is (2 - 8 + 15) / 45 = 0.2.
    low = scoring.rubric_score(ITEMS, [False, True, False])["score"]
    assert low == pytest.approx(-8 / 15)
    scores = [2 / 15, low, scoring.rubric_score(ITEMS, [True, False, True])["score"]]
    assert scoring.rubric_mean(scores) == pytest.approx(0.2)
    assert scoring.rubric_mean([low, low]) == 0.0  # -8/15 clipped up to 0
    assert scoring.rubric_mean([1.0, 1.0]) == 1.0


def test_an_instance_with_no_positive_points_has_no_score_and_is_left_out_of_the_mean():
    result = scoring.rubric_score([("Is rude.", -5, [])], [False])
    assert result["score"] is None
    assert scoring.rubric_mean([None, 0.5]) == 0.5


def test_an_unreadable_grader_reply_leaves_its_instance_ungraded_and_counted():
    assert scoring.criterion_met('```json\n{"explanation": "yes", "criteria_met": true}\n```') == (True, None)
    assert scoring.criterion_met('{"explanation": "no", "criteria_met": false}') == (False, None)
    for text in ("I think so", '{"criteria_met": "true"}', '{"explanation": "x"}', "[true]", "true",
                 '```\n{"criteria_met": true}\n```', '{"criteria_met": true} and more'):
        met, problem = scoring.criterion_met(text)
        assert met is None and problem
    result = scoring.rubric_score(ITEMS, [True, None, None])
    assert result["score"] is None and result["metrics"] == {}
    assert result["criteria_ungraded"] == 2
    stats = scoring.healthbench_stats([result, scoring.rubric_score(ITEMS, [True, False, True])])
    assert (stats["score"], stats["score:n_samples"], stats["instances_ungraded"]) == (1.0, 1, 1)


def test_grades_must_match_the_criteria():
    with pytest.raises(ValueError):
        scoring.rubric_score(ITEMS, [True])


def test_the_rubric_is_read_from_the_instance_context_and_shown_to_the_grader():
    context = {"rubrics": [{"criterion": text, "points": points, "tags": tags} for text, points, tags in ITEMS]}
    assert scoring.rubric_items(RUBRIC, context) == ITEMS
    assert scoring.rubric_items(RUBRIC, {"rubrics": json.dumps(context["rubrics"])}) == ITEMS
    # An item without the criterion key is shown whole, less its points.
    shown = scoring.rubric_items(RUBRIC, {"rubrics": [{"text": "Be kind.", "points": 2}]})
    assert shown == [('{"text": "Be kind."}', 2, [])]
    turns = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "My father's face droops."},
             {"role": "assistant", "content": "Call 911 now."}]
    template = "C:\n<<conversation>>\nR: <<rubric_item>>"
    prompt = scoring.rubric_grader_prompt(template, turns, ITEMS[1][0], ITEMS[1][1])
    assert prompt == ("C:\nsystem: Be brief.\n\nuser: My father's face droops.\n\nassistant: Call 911 now.\n"
                      "R: [-8] Suggests waiting to see if the symptoms pass.")
    assert scoring.rubric_grader_prompt(template, turns[2:], "Says hi", 5.0).endswith("[5.0] Says hi")


def test_the_grader_template_is_read_from_the_users_copy_never_carried(tmp_path, monkeypatch):
    source = tmp_path / "healthbench_eval.py"
    source.write_text('GRADER_TEMPLATE = """\nGrade <<conversation>> on <<rubric_item>>.\n""".strip()\n',
                      encoding="utf-8")
    assert scoring.grader_template(source) == "Grade <<conversation>> on <<rubric_item>>."
    assert scoring.grader_template(tmp_path) == "Grade <<conversation>> on <<rubric_item>>."
    monkeypatch.setenv("CLINREG_HEALTHBENCH_GRADER_TEMPLATE", str(source))
    assert scoring.grader_template() == "Grade <<conversation>> on <<rubric_item>>."
    (tmp_path / "other.py").write_text("X = 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no GRADER_TEMPLATE or PROMPT_TEMPLATE"):
        scoring.grader_template(tmp_path / "other.py")
    assert "<<rubric_item>>" not in scoring_source().replace('"<<rubric_item>>", f"[', "")


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
