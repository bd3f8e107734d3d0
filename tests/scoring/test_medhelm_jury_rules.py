"""The jury's rules for irregular replies, as every export carries them (clinreg.scoring.medhelm, exported as
scoring.py): MedHELM's.

Each expected value is read from HELM's code at the pinned commit 63754d05:
- annotation/model_as_judge.py, LLMAsJuryAnnotator: `annotate` (an empty response is sent to no judge),
  `_sanitize_model_response` (the text from the first `{` to the last `}`), `_annotate_with_model` (one `}`
  added when the JSON reader expects a `,`; any other error drops the reply) and `_validate_annotation` (every
  axis, each with `score` and `explanation`, or the reply is dropped);
- metrics/llm_jury_metrics.py, LLMJuryMetric.evaluate_generation: int() of every entry's score of every used
  reply, the mean of them all, else `default_score`;
- run_specs/medhelm_run_specs.py: every MedHELM jury run spec passes default_score=1.0.
tests/interop/test_helm_scoring.py runs HELM's own classes over the same cases.
"""

from __future__ import annotations

import json

import pytest

from clinreg.scoring import medhelm as scoring


AXES = ("accuracy", "completeness", "clarity")
JURY = {"rubric": "The model wrote a visit note.", "scale": [1, 5], "shows": ["input", "response", "reference"],
        "axes": [{"id": axis, "question": "?"} for axis in AXES],
        "judges": [{"name": name} for name in ("gpt", "llama", "claude")]}


def reply(*scores, explanation=True, **extra):
    """A judge's JSON reply: one entry per axis, in order, with the given scores."""
    entries = {axis: {"score": score, "explanation": "because"} if explanation else {"score": score}
               for axis, score in zip(AXES, scores)}
    return json.dumps(entries | extra)


def test_the_score_is_the_mean_of_every_judges_rating_on_every_axis():
    result = scoring.jury_score(JURY, "a note", {"gpt": reply(4, 5, 3), "llama": reply(2, 3, 4),
                                                 "claude": reply(5, 4, 5)})
    assert result["score"] == pytest.approx(35 / 9)  # 4+5+3 + 2+3+4 + 5+4+5 = 35, over 9 ratings
    assert (result["ratings_missing"], result["replies_dropped"], result["ratings_irregular"],
            result["default_used"]) == (0, 0, 0, False)


@pytest.mark.parametrize("text, why", [
    (reply(4, 5), "clarity: missing (the reply is dropped)"),  # _validate_annotation: key missing
    (reply(4, 5, 3, explanation=False), "accuracy: no explanation (the reply is dropped)"),  # subkey missing
    (json.dumps({"accuracy": {"explanation": "x"}, "completeness": {"score": 3, "explanation": "x"},
                 "clarity": {"score": 3, "explanation": "x"}}), "accuracy: no score (the reply is dropped)"),
    (json.dumps({"accuracy": 4, "completeness": 4, "clarity": 4}),
     "accuracy: not an object with a score and an explanation (the reply is dropped)"),  # `in` on an int raises
])
def test_a_reply_lacking_an_axis_or_an_explanation_is_dropped_whole(text, why):
    ratings, problems = scoring.read_ratings(JURY, text)
    assert ratings == {} and why in problems
    # The other judges' ratings alone make the score: (2+3+4 + 4+3+2) / 6.
    result = scoring.jury_score(JURY, "a note", {"gpt": text, "llama": reply(2, 3, 4), "claude": reply(4, 3, 2)})
    assert result["score"] == 3.0 and result["replies_dropped"] == 1 and result["ratings_missing"] == 3


def test_a_non_whole_score_is_cut_towards_zero():
    # LLMJuryMetric appends int(val["score"]): int(4.7) == 4, int("4") == 4, int(-0.5) == 0, int(True) == 1.
    ratings, problems = scoring.read_ratings(JURY, reply(4.7, "4", -0.5))
    assert ratings == {"accuracy": 4, "completeness": 4, "clarity": 0}
    assert problems == ["accuracy: 4.7 is not a JSON whole number; it counts as 4",
                        "completeness: '4' is not a JSON whole number; it counts as 4",
                        "clarity: -0.5 is not a JSON whole number; it counts as 0"]
    assert scoring.read_ratings(JURY, reply(True, 5.0, " 3 "))[0] == {"accuracy": 1, "completeness": 5, "clarity": 3}
    result = scoring.jury_score(JURY, "a note", {"gpt": reply(4.7, "4", -0.5)})
    assert result["score"] == pytest.approx(8 / 3) and result["ratings_irregular"] == 3


def test_a_score_off_the_scale_counts_as_it_is():
    ratings, problems = scoring.read_ratings(JURY, reply(7, 0, 5))
    assert ratings == {"accuracy": 7, "completeness": 0, "clarity": 5}
    assert problems == ["accuracy: 7 is outside 1-5; it counts as it is",
                        "completeness: 0 is outside 1-5; it counts as it is"]
    assert scoring.jury_score(JURY, "a note", {"gpt": reply(7, 0, 5)})["score"] == 4.0


def test_a_reply_cut_short_of_its_final_brace_is_read_with_one_brace_added():
    whole = reply(4, 3, 2)
    assert scoring.read_ratings(JURY, whole[:-1]) == ({"accuracy": 4, "completeness": 3, "clarity": 2}, [])
    # Cut one brace further, the text ends at completeness's brace: read with a brace added, clarity is missing.
    ratings, problems = scoring.read_ratings(JURY, whole[:-2])
    assert ratings == {} and problems == ["clarity: missing (the reply is dropped)"]
    # Cut inside clarity's explanation, likewise: the text read still ends at completeness's brace.
    assert scoring.read_ratings(JURY, whole[:-5]) == ({}, ["clarity: missing (the reply is dropped)"])
    # Cut inside a string before any `}`: the reader does not expect a `,` there, so no brace is added.
    ratings, problems = scoring.read_ratings(JURY, whole[:whole.index("because") + 3])
    assert (ratings == {}
            and problems[0].startswith("the reply holds no readable JSON object (JSONDecodeError: Unterminated string"))


def test_the_reply_is_read_from_its_first_brace_to_its_last():
    assert scoring.read_ratings(JURY, "Here you are:\n```json\n" + reply(4, 3, 2) + "\n```\nThanks.")[0] == {
        "accuracy": 4, "completeness": 3, "clarity": 2}
    # Two objects: the text between the first `{` and the last `}` is no JSON object, so the reply is dropped.
    assert scoring.read_ratings(JURY, reply(4, 3, 2) + " or " + reply(5, 5, 5))[0] == {}
    assert scoring.read_ratings(JURY, "I would give it a four.")[0] == {}
    assert scoring.read_ratings(JURY, "[4, 3, 2]")[1] == ["the reply is a JSON list, not an object"]


def test_every_entry_of_a_used_reply_counts_not_only_the_axes():
    ratings, problems = scoring.read_ratings(JURY, reply(4, 4, 4, overall={"score": 1}))
    assert ratings == {"accuracy": 4, "completeness": 4, "clarity": 4, "overall": 1}
    assert problems == ["overall: not an axis of the jury; its rating 1 counts"]
    assert scoring.jury_score(JURY, "a note", {"gpt": reply(4, 4, 4, overall={"score": 1})})["score"] == 13 / 4


@pytest.mark.parametrize("text", [reply("4/5", 4, 4), reply(None, 4, 4), reply("4.5", 4, 4), reply([4], 4, 4),
                                  reply(4, 4, 4, overall="fine"), reply(4, 4, 4, overall={"explanation": "x"})])
def test_a_reply_helms_metric_cannot_read_is_dropped(text):
    """LLMJuryMetric raises on these (int() of "4/5", None, "4.5" or a list; `val["score"]` of a string or of an
    object without a score), which stops HELM's run; the shared rules drop the reply and say why."""
    ratings, problems = scoring.read_ratings(JURY, text)
    assert ratings == {} and problems[0].endswith("(the reply is dropped)")


def test_an_instance_with_no_usable_reply_scores_medhelms_default():
    result = scoring.jury_score(JURY, "a note", {"gpt": None, "llama": "no JSON here", "claude": reply(4, 5)})
    assert result["score"] == 1.0 and result["default_used"] is True
    assert result["replies_dropped"] == 3 and result["ratings_missing"] == 9
    assert result["problems"]["gpt"] == ["no reply"]
    assert scoring.mean_rating({"gpt": {}, "llama": {}}) == 1.0 == scoring.JURY_DEFAULT_SCORE
    assert scoring.mean_rating({"gpt": {}}, default=None) is None  # for callers who tell the two apart


@pytest.mark.parametrize("response", ["", "   ", "\n\t", None])
def test_an_empty_response_is_sent_to_no_judge_and_scores_the_default(response):
    assert scoring.empty_response(response)
    result = scoring.jury_score(JURY, response, {})
    assert result["score"] == 1.0 and result["default_used"] is True
    assert result["replies_dropped"] == 0 and result["ratings_missing"] == 9
    # Even replies given anyway are not read: MedHELM asks no judge.
    assert scoring.jury_score(JURY, response, {"gpt": reply(5, 5, 5)})["score"] == 1.0


def test_the_counts_add_up_over_a_mixed_jury():
    result = scoring.jury_score(JURY, "a note", {"gpt": reply(4, 5, 3), "llama": reply(4, 5),
                                                 "claude": reply(7, 4.7, "2")})
    assert result["score"] == pytest.approx((4 + 5 + 3 + 7 + 4 + 2) / 6)
    assert (result["ratings_missing"], result["replies_dropped"], result["ratings_irregular"]) == (3, 1, 3)
    assert (result["ratings"]["llama"] == {}
            and result["ratings"]["claude"] == {"accuracy": 7, "completeness": 4, "clarity": 2})
