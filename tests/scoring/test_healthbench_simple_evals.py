"""HealthBench's grading against openai/simple-evals' own code (healthbench_eval.py at ee3b0318).

What simple-evals does is recorded in data/simple_evals_healthbench/recording.json by record.py beside it, which runs
simple-evals' code (its parse_json_to_dict, HealthBenchEval.__call__ and grade_sample with its own
ChatCompletionSampler over a scripted client, _aggregate_get_clipped_mean, and simple_evals.main()'s samplers) on
generated cases. These tests compare clinreg with the recording always. With CLINREG_SIMPLE_EVALS pointing at a
checkout of simple-evals (and numpy and jinja2 installed), the recorder runs again on it and must reproduce the
recording. The grader prompts are compared byte for byte under a stand-in template (the recording carries none of
simple-evals' text) and, where simple-evals' template can be read (CLINREG_MEDHELM_WHEEL, whose annotator holds it,
or CLINREG_SIMPLE_EVALS), by the sha256 of each prompt simple-evals sent.

The bootstrap std is random in simple-evals (numpy's global generator, never seeded). The recorder seeds it; clinreg
draws the same numbers with numpy_legacy_choice(seed), so the std is compared exactly, not only what is deterministic.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
from pathlib import Path

import pytest

from clinreg.scoring import medhelm as scoring

DATA = Path(__file__).parent / "data" / "simple_evals_healthbench"
RECORDING = json.loads((DATA / "recording.json").read_text(encoding="utf-8"))
RUNS = sorted(RECORDING["runs"])


def _template() -> str | None:
    """simple-evals' grader template, from CLINREG_SIMPLE_EVALS or the medhelm wheel; None when neither is here."""
    for variable in ("CLINREG_SIMPLE_EVALS", "CLINREG_MEDHELM_WHEEL"):
        found = os.environ.get(variable)
        if found and Path(found).exists():
            return scoring.grader_template(found)
    if os.environ.get("CLINREG_REQUIRE_MEDHELM_WHEEL"):
        pytest.fail("CLINREG_REQUIRE_MEDHELM_WHEEL is set but CLINREG_MEDHELM_WHEEL names no file")
    return None


def _same(ours, theirs):
    if isinstance(theirs, float) and math.isnan(theirs):
        return isinstance(ours, float) and math.isnan(ours)
    if isinstance(theirs, dict):
        return isinstance(ours, dict) and list(ours) == list(theirs) and all(_same(ours[k], theirs[k]) for k in theirs)
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(map(_same, ours, theirs))
    return type(ours) is type(theirs) and ours == theirs


def test_a_reply_is_read_as_parse_json_to_dict_reads_it():
    kinds = {str(r["outcome"]) for r in RECORDING["replies"]}
    assert kinds == {"True", "False", "None", "crash"}  # the corpus holds every outcome simple-evals has
    for reply in RECORDING["replies"]:
        text, theirs = reply["text"], reply["outcome"]
        assert _same(scoring.grader_reply_json(text), reply["parse_json_to_dict"]), text
        ours, problem = scoring.criterion_met(text)
        if theirs == "crash":  # simple-evals stops the whole eval with a TypeError; clinreg asks again
            assert ours is None and problem, text
        else:
            assert ours is theirs, text
            assert (problem is None) == (theirs is not None), text


def test_the_grader_settings_are_simple_evals_grading_sampler():
    grader = RECORDING["settings"]["grader"]
    assert scoring.GRADER_SETTINGS == {"model": "openai/" + grader["model"], "temperature": grader["temperature"],
                                       "max_tokens": grader["max_tokens"], "system_message": grader["system_message"]}
    for run in RUNS:  # what the grader received, request by request, as simple-evals' sampler sent it
        assert RECORDING["runs"][run]["grader_request_settings"] == [
            {"model": grader["model"], "temperature": scoring.GRADER_SETTINGS["temperature"],
             "max_tokens": scoring.GRADER_SETTINGS["max_tokens"], "roles": ["system", "user"],
             "system": scoring.GRADER_SETTINGS["system_message"]}]


def _graded_turns(run, case):
    """The conversation clinreg's rubric grader reads for a case: the record's instructions (the model sampler's system
    message in the recording) sent first, as the Inspect export's solver sends them, the case's turns, the reply."""
    system = RECORDING["runs"][run]["model_sampler"]["system_message"]
    return scoring.rubric_graded_turns(scoring.rubric_sent_turns(system, case["prompt"]), case["response"])


def _met(case):
    """clinreg's reading of each criterion's replies, asked at most GRADER_ATTEMPTS times, and the asks it took."""
    met, asks = [], []
    for item in case["rubrics"]:
        hit, replies = None, case["grader_replies"][item["criterion"]][:scoring.GRADER_ATTEMPTS]
        for reply in replies:
            hit, _ = scoring.criterion_met(reply)
            if hit is not None:
                break
        met.append(hit)
        asks.append(replies.index(reply) + 1 if hit is not None else len(replies))
    return met, asks


@pytest.mark.parametrize("run", RUNS)
def test_the_model_and_the_grader_see_the_conversation_simple_evals_builds(run):
    recorded = RECORDING["runs"][run]
    system = recorded["model_sampler"]["system_message"]
    with_system_turn = 0
    for case, result in zip(recorded["cases"], recorded["results"]):
        assert scoring.rubric_sent_turns(system, case["prompt"]) == result["sent_to_model"]
        assert _graded_turns(run, case) == result["grader_conversation"]
        with_system_turn += case["prompt"][0]["role"] == "system"
        items = scoring.rubric_items({"column": "rubrics"}, case)
        prompts = [scoring.rubric_grader_prompt(RECORDING["stand_in_template"], _graded_turns(run, case), c, p)
                   for c, p, _ in items]
        assert prompts == result["grader_prompts_stand_in"]  # byte for byte, in the rubric's order
    assert with_system_turn and with_system_turn < len(recorded["cases"])


@pytest.mark.parametrize("run", RUNS)
def test_each_grader_prompt_is_the_one_simple_evals_sent(run):
    template = _template()
    if template is None:
        pytest.skip("simple-evals' template is not here (CLINREG_MEDHELM_WHEEL or CLINREG_SIMPLE_EVALS)")
    assert hashlib.sha256(template.encode()).hexdigest() == RECORDING["template_sha256"]
    recorded = RECORDING["runs"][run]
    for case, result in zip(recorded["cases"], recorded["results"]):
        items = scoring.rubric_items({"column": "rubrics"}, case)
        digests = [hashlib.sha256(scoring.rubric_grader_prompt(template, _graded_turns(run, case), c, p).encode())
                   .hexdigest() for c, p, _ in items]
        # every ask simple-evals made, re-asks included, with the prompt clinreg sends for that criterion
        _, asks = _met(case)
        assert result["grader_requests"] == [[i, digests[i]] for i, n in enumerate(asks) for _ in range(n)]


@pytest.mark.parametrize("run", RUNS)
def test_scores_tags_clipped_mean_and_bootstrap_std_equal_simple_evals(run):
    recorded = RECORDING["runs"][run]
    ours = []
    for case, result in zip(recorded["cases"], recorded["results"]):
        met, _ = _met(case)
        assert met == result["criteria_met"]
        graded = scoring.rubric_score(scoring.rubric_items({"column": "rubrics"}, case), met, case["example_tags"])
        assert graded["score"] == pytest.approx(result["score"], rel=1e-12, abs=1e-15)
        assert list(graded["metrics"]) == list(result["metrics"])  # simple-evals' names, in its order
        assert graded["metrics"] == pytest.approx(result["metrics"], rel=1e-12, abs=1e-15)
        ours.append(graded)
    stats = scoring.healthbench_stats(ours, seed=recorded["seed"])
    theirs = recorded["aggregate"]
    assert stats.pop("score") == pytest.approx(theirs["score"], rel=1e-12)
    assert (stats.pop("instances_ungraded"), stats.pop("criteria_ungraded")) == (0, 0)
    assert list(stats) == list(theirs["metrics"])
    assert stats == pytest.approx(theirs["metrics"], rel=1e-9, abs=1e-12)  # bootstrap std included: the same draws
    tags = {k.split(":")[0] for k in stats if not k.startswith("overall_score")}
    assert {"theme", "axis", "level"} <= tags
    # Another seed draws other resamples: the std is the draws', not a constant.
    other = scoring.healthbench_stats(ours, seed=recorded["seed"] + 1)
    assert other["score:bootstrap_std"] != pytest.approx(theirs["metrics"]["score:bootstrap_std"], rel=1e-9)


def test_the_numpy_draws_are_numpys():
    """numpy_legacy_choice(seed) against numpy's own np.random.seed + np.random.choice, where numpy is here."""
    np = pytest.importorskip("numpy")
    for seed in (0, 53, 2**32 - 1):
        for n in (1, 2, 3, 5, 40, 100):
            values = [i / 4 for i in range(n)]
            np.random.seed(seed)
            draw = scoring.numpy_legacy_choice(seed)
            for _ in range(3):
                assert draw(values, n) == [float(v) for v in np.random.choice(values, n)]


def test_a_criterion_unread_after_the_bound_is_ungraded_and_its_instance_left_out():
    recorded = RECORDING["runs"][RUNS[0]]
    case, other = json.loads(json.dumps(recorded["cases"][:2]))
    first = case["rubrics"][0]["criterion"]
    unread = [r["text"] for r in RECORDING["replies"] if r["outcome"] is None]
    case["grader_replies"][first] = unread[:scoring.GRADER_ATTEMPTS] + ['{"criteria_met": true}']
    met, asks = _met(case)
    assert met[0] is None and asks[0] == scoring.GRADER_ATTEMPTS  # simple-evals would ask a sixth time
    result = scoring.rubric_score(scoring.rubric_items({"column": "rubrics"}, case), met, case["example_tags"])
    assert result["score"] is None and result["criteria_ungraded"] == 1 and result["metrics"] == {}
    graded = scoring.rubric_score(scoring.rubric_items({"column": "rubrics"}, other), _met(other)[0],
                                  other["example_tags"])
    stats = scoring.healthbench_stats([result, graded])
    assert (stats["instances_ungraded"], stats["criteria_ungraded"], stats["score:n_samples"]) == (1, 1, 1)
    assert stats["score"] == pytest.approx(min(1.0, max(0.0, graded["score"])))


@pytest.mark.slow
def test_the_recorder_run_on_simple_evals_reproduces_the_recording():
    found = os.environ.get("CLINREG_SIMPLE_EVALS")
    if not found:
        pytest.skip("CLINREG_SIMPLE_EVALS (a checkout of openai/simple-evals at ee3b0318) is not set")
    pytest.importorskip("numpy")
    pytest.importorskip("jinja2")
    folder = Path(found)
    folder = folder if (folder / "healthbench_eval.py").is_file() else folder / "simple_evals"
    spec = importlib.util.spec_from_file_location("record_simple_evals", DATA / "record.py")
    recorder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorder)
    fresh = json.loads(json.dumps(recorder.record(folder), ensure_ascii=False))
    for key in ("template_sha256", "settings", "replies", "stand_in_template", "simple_evals"):
        assert _same(fresh[key], RECORDING[key]), key
    for run in RUNS:
        mine, kept = fresh["runs"][run], RECORDING["runs"][run]
        assert mine["cases"] == kept["cases"] and mine["grader_request_settings"] == kept["grader_request_settings"]
        for a, b in zip(mine["results"], kept["results"]):
            assert {k: v for k, v in a.items() if k != "metrics"} == {k: v for k, v in b.items() if k != "metrics"}
            assert a["metrics"] == pytest.approx(b["metrics"], rel=1e-12)
        assert mine["aggregate"]["score"] == pytest.approx(kept["aggregate"]["score"], rel=1e-12)
        assert mine["aggregate"]["metrics"] == pytest.approx(kept["aggregate"]["metrics"], rel=1e-9)
