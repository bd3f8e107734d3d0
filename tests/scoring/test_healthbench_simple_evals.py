"""HealthBench's grading, run beside openai/simple-evals' own code (healthbench_eval.py at ee3b0318).

simple-evals is not a package on an index: point CLINREG_SIMPLE_EVALS at a checkout of it (the folder holding
healthbench_eval.py, or one holding it as simple_evals/); without it these tests skip. Only numpy and jinja2 are
needed; the modules simple-evals imports but never calls offline (blobfile, pandas, openai, tqdm, requests) are
replaced by empty ones while it loads. The cases are generated (seeded): conversations with and without a system
turn, rubrics with negative criteria and tags, and grader replies that simple-evals refuses before it reads one.
"""

from __future__ import annotations

import ast
import importlib
import os
import random
import shutil
import sys
import types
from pathlib import Path

import pytest

from clinreg.scoring import medhelm as scoring

np = pytest.importorskip("numpy")


def _simple_evals_folder() -> Path:
    found = os.environ.get("CLINREG_SIMPLE_EVALS")
    if not found:
        pytest.skip("CLINREG_SIMPLE_EVALS (a checkout of openai/simple-evals) is not set")
    folder = Path(found)
    for candidate in (folder, folder / "simple_evals"):
        if (candidate / "healthbench_eval.py").is_file():
            return candidate
    pytest.fail(f"CLINREG_SIMPLE_EVALS={found}: no healthbench_eval.py there or in simple_evals/")


@pytest.fixture(scope="module")
def se(tmp_path_factory):
    """simple-evals' healthbench_eval module, imported as the package simple_evals from a copy of the checkout."""
    pytest.importorskip("jinja2")
    source = _simple_evals_folder()
    base = tmp_path_factory.mktemp("simple-evals")
    shutil.copytree(source, base / "simple_evals", ignore=shutil.ignore_patterns(".git"))
    saved = dict(sys.modules)
    attributes = {"openai": {"OpenAI": object, "BadRequestError": Exception},
                  "tqdm": {"tqdm": lambda xs, *a, **k: xs}}
    for name in ("blobfile", "pandas", "openai", "tqdm", "requests"):
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
            for attribute, value in attributes.get(name, {}).items():
                setattr(sys.modules[name], attribute, value)
    sys.path.insert(0, str(base))
    try:
        module = importlib.import_module("simple_evals.healthbench_eval")
        yield module
    finally:
        sys.path.remove(str(base))
        for name in set(sys.modules) - set(saved):
            del sys.modules[name]
        sys.modules.update(saved)


@pytest.fixture
def sequential(monkeypatch):
    monkeypatch.setenv("debug", "1")  # simple-evals grades the criteria one after another (common.map_with_progress)


ACCEPTED = ['{"explanation": "x", "criteria_met": %s}', '```json\n{"explanation": "x", "criteria_met": %s}\n```',
            '```json{"criteria_met": %s}```', '  ```json   {"criteria_met": %s}   ```  ', '{"criteria_met": %s}\n```',
            '```json\n{"criteria_met": %s}', '{"criteria_met": true, "criteria_met": %s}',
            '{"explanation": NaN, "criteria_met": %s}']
REFUSED = ['```\n{"criteria_met": true}\n```', '```JSON\n{"criteria_met": true}\n```',
           '```jsonc {"criteria_met": true}```',
           'Here it is: {"criteria_met": true}', '{"criteria_met": true} I hope this helps',
           '```json\n{"criteria_met": true}\n```\nDone.', '{"explanation": "x", "criteria_met": tr',
           '{"criteria_met": true,}', "{'criteria_met': True}", '\ufeff{"criteria_met": true}', "",
           '{"explanation": "a\nb", "criteria_met": true}', '[{"criteria_met": true}]', '{"criteria_met": "true"}',
           '{"criteria_met": 1}', '{"criteria_met": null}', '{"explanation": "x"}', "true", "5", "null",
           '"criteria_met"', '["criteria_met"]', "I cannot tell.", "{}"]


def _simple_evals_reads(se, text):
    """simple-evals' decision on one reply: the boolean it keeps, None when it asks again, or 'crash'."""
    answer = se.parse_json_to_dict(text)
    try:
        if "criteria_met" in answer and (answer["criteria_met"] is True or answer["criteria_met"] is False):
            return answer["criteria_met"]
    except TypeError:
        return "crash"
    return None


def test_a_reply_is_read_as_parse_json_to_dict_reads_it(se):
    replies = [form % value for form in ACCEPTED for value in ("true", "false")] + REFUSED
    for text in replies:
        theirs, (ours, problem) = _simple_evals_reads(se, text), scoring.criterion_met(text)
        if theirs == "crash":  # simple-evals stops the whole eval; clinreg asks again
            assert ours is None and problem, text
        else:
            assert ours is theirs, text
            assert (problem is None) == (theirs is not None), text
    assert sum(scoring.criterion_met(t)[0] is None for t in REFUSED) == len(REFUSED)


def test_the_template_is_simple_evals_text_and_medhelm_holds_the_same(se):
    assert scoring.grader_template(_simple_evals_folder()) == se.GRADER_TEMPLATE
    assert scoring.grader_template(_simple_evals_folder() / "healthbench_eval.py") == se.GRADER_TEMPLATE
    wheel = os.environ.get("CLINREG_MEDHELM_WHEEL")
    if wheel and Path(wheel).is_file():
        assert scoring.grader_template(wheel) == se.GRADER_TEMPLATE


def test_the_grader_settings_are_simple_evals(se):
    sampler = importlib.import_module("simple_evals.sampler.chat_completion_sampler")
    parameters = __import__("inspect").signature(sampler.ChatCompletionSampler).parameters
    defaults = {p: v.default for p, v in parameters.items()}
    tree = ast.parse((_simple_evals_folder() / "simple_evals.py").read_text(encoding="utf-8"))
    [call] = [node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
              and getattr(node.targets[0], "id", None) == "grading_sampler"]
    keywords = {k.arg: k.value for k in call.keywords}
    assert "temperature" not in keywords and scoring.GRADER_SETTINGS["temperature"] == defaults["temperature"]
    assert scoring.GRADER_SETTINGS["max_tokens"] == ast.literal_eval(keywords["max_tokens"])
    assert scoring.GRADER_SETTINGS["model"] == "openai/" + ast.literal_eval(keywords["model"])
    assert keywords["system_message"].id == "OPENAI_SYSTEM_MESSAGE_API"
    assert scoring.GRADER_SETTINGS["system_message"] == sampler.OPENAI_SYSTEM_MESSAGE_API


def _cases(seed, count=40):
    """Generated conversations, rubrics and grader reply sequences (unreadable replies before the one read)."""
    rng = random.Random(seed)
    tags, themes = ["axis:accuracy", "axis:completeness", "level:example", "level:cluster"], ["theme:a", "theme:b"]
    cases = []
    for n in range(count):
        prompt = [{"role": "system", "content": "You are a helpful assistant."}] if rng.random() < 0.5 else []
        for turn in range(rng.choice([1, 3])):
            prompt.append({"role": "user" if turn % 2 == 0 else "assistant", "content": f"turn {turn} of case {n}"})
        rubric = [{"criterion": f"criterion {i} of case {n}", "points": rng.choice([-10, -6, -3, 1, 2, 5, 7, 10]),
                   "tags": rng.sample(tags, rng.randint(0, 2))} for i in range(rng.randint(1, 6))]
        rubric[0]["points"] = abs(rubric[0]["points"])
        replies = {}
        for item in rubric:
            value = rng.choice(["true", "false"])
            crashing = ("true", "5", "null", '"criteria_met"', '["criteria_met"]')  # simple-evals stops on these
            bad = rng.sample([r for r in REFUSED if r not in crashing],
                             rng.randint(0, scoring.GRADER_ATTEMPTS - 1))
            replies[item["criterion"]] = bad + [rng.choice(ACCEPTED) % value]
        cases.append({"prompt": prompt, "response": f"reply {n}", "rubric": rubric,
                      "example_tags": rng.sample(themes, rng.randint(0, 2)), "replies": replies})
    return cases


def _ours(case, template):
    """clinreg's grading of one case: each criterion asked up to GRADER_ATTEMPTS times, as the Inspect scorer does."""
    turns = case["prompt"] + [{"role": "assistant", "content": case["response"]}]
    items = scoring.rubric_items({"column": "rubrics"}, {"rubrics": case["rubric"]})
    prompts, met = [], []
    for criterion, points, _ in items:
        prompts.append(scoring.rubric_grader_prompt(template, turns, criterion, points))
        hit = None
        for reply in case["replies"][criterion][:scoring.GRADER_ATTEMPTS]:
            hit, _ = scoring.criterion_met(reply)
            if hit is not None:
                break
        met.append(hit)
    return prompts, scoring.rubric_score(items, met, case["example_tags"])


def test_generated_cases_score_as_simple_evals_scores_them(se, sequential):
    template = scoring.grader_template(_simple_evals_folder())
    se_types = importlib.import_module("simple_evals.types")
    cases = _cases(53)
    theirs, ours = [], []
    for case in cases:
        sent, queue = [], {c: list(r) for c, r in case["replies"].items()}

        def grader(messages, queue=queue, sent=sent):
            [message] = messages
            sent.append(message["content"])
            criterion = message["content"].split("# Rubric item\n", 1)[1].split("\n", 1)[0].split("] ", 1)[1]
            return se_types.SamplerResponse(response_text=queue[criterion].pop(0), actual_queried_message_list=messages,
                                      response_metadata={})

        ev = object.__new__(se.HealthBenchEval)
        ev.grader_model = grader
        items = [se.RubricItem.from_dict(item) for item in case["rubric"]]
        metrics, _, _ = ev.grade_sample(case["prompt"], case["response"], case["example_tags"], items)
        theirs.append(se_types.SingleEvalResult(score=metrics["overall_score"], metrics=metrics))
        prompts, result = _ours(case, template)
        assert sorted(set(sent)) == sorted(prompts)  # byte for byte, each criterion's prompt
        assert result["metrics"] == pytest.approx(metrics) and list(result["metrics"]) == list(metrics)
        assert result["score"] == pytest.approx(metrics["overall_score"])
        ours.append(result)
    np.random.seed(11)
    reference = se._aggregate_get_clipped_mean(theirs)
    np.random.seed(11)
    stats = scoring.healthbench_stats(ours, resample=lambda values, n: np.random.choice(values, n))
    assert stats.pop("score") == pytest.approx(reference.score)
    assert (stats.pop("instances_ungraded"), stats.pop("criteria_ungraded")) == (0, 0)
    assert list(stats) == list(reference.metrics)
    assert stats == pytest.approx({k: float(v) for k, v in reference.metrics.items()}, rel=1e-9, abs=1e-12)
    assert any(k.startswith("theme:") for k in stats) and any(k.startswith("axis:") for k in stats)


def test_a_criterion_unread_after_the_bound_is_ungraded_and_its_instance_left_out(se, sequential):
    template = scoring.grader_template(_simple_evals_folder())
    [case, other] = _cases(7, count=2)
    first = case["rubric"][0]["criterion"]
    case["replies"][first] = ["I cannot tell."] * scoring.GRADER_ATTEMPTS + ['{"criteria_met": true}']
    _, result = _ours(case, template)
    assert result["score"] is None and result["criteria_ungraded"] == 1 and result["metrics"] == {}
    _, graded = _ours(other, template)
    stats = scoring.healthbench_stats([result, graded])
    assert (stats["instances_ungraded"], stats["criteria_ungraded"], stats["score:n_samples"]) == (1, 1, 1)
    assert stats["score"] == pytest.approx(min(1.0, max(0.0, graded["score"])))

