"""Record what openai/simple-evals' own HealthBench code does, for tests/scoring/test_healthbench_simple_evals.py.

    python tests/scoring/data/simple_evals_healthbench/record.py SIMPLE_EVALS_CHECKOUT

SIMPLE_EVALS_CHECKOUT is a checkout (or `git archive`) of openai/simple-evals at commit ee3b0318 (the folder that
holds healthbench_eval.py). The Python running this needs numpy and jinja2, and nothing of clinreg: every value
written is made by simple-evals' code. The modules simple-evals imports but never calls offline (openai, anthropic,
blobfile, pandas, tqdm, requests, human_eval, scipy) are replaced by empty ones; the OpenAI client its samplers
make is replaced by a scripted one, so simple-evals' own ChatCompletionSampler builds every request. It writes
recording.json beside this file:

- `settings`: the grading sampler and the `gpt-4.1` model sampler exactly as simple_evals.main() makes them
  (run with `--model gpt-4.1 --eval healthbench`, stopped before it evaluates);
- `replies`: a corpus of grader replies; for each, parse_json_to_dict's result and what grade_sample does with it
  (keeps true or false, asks again, or stops with a TypeError: `crash`);
- `runs`: generated cases (seeded; conversations with and without a system turn, negative criteria, rubric
  and example tags, unreadable grader replies before the one read) evaluated by HealthBenchEval.__call__ with the
  model sampler with simple-evals' system message, and with none. For each case: the messages the model was
  sent, every grader request (which criterion, the sha256 of the prompt; and, for the run, each distinct model,
  temperature, max_tokens, roles and system message the grader received), the metrics grade_sample returned,
  and the grader prompts again with a stand-in template (clinreg's words, not simple-evals': the recording
  carries no text of simple-evals' template, only its sha256). numpy's global generator is seeded with `seed`
  before __call__ (simple-evals itself never seeds it), so the aggregate's bootstrap std is repeatable.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import io
import json
import os
import platform
import random
import shutil
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMIT = "ee3b0318d8d1d9d72755a4120879be65f7c07e9e"
STUBBED = ("openai", "anthropic", "blobfile", "pandas", "tqdm", "requests", "human_eval", "scipy")
STAND_IN_TEMPLATE = ("Stand-in grader template (clinreg's words).\n\n== Conversation ==\n<<conversation>>\n\n"
                     "== Item ==\n<<rubric_item>>\n\n== End ==")
SEEDS = {"with_system_message": 53, "without_system_message": 7}
ATTEMPTS_BEFORE_READ = 4  # unreadable replies before a readable one: fewer than clinreg's bound of 5 asks

# Grader replies. {} is filled with true or false. simple-evals reads some and asks again about the others.
READ_FORMS = ['{"explanation": "x", "criteria_met": {}}', '```json\n{"explanation": "x", "criteria_met": {}}\n```',
              '```json{"criteria_met": {}}```', '  ```json   {"criteria_met": {}}   ```  ', '{"criteria_met": {}}\n```',
              '```json\n{"criteria_met": {}}', '{"criteria_met": true, "criteria_met": {}}',
              '{"explanation": NaN, "criteria_met": {}}']
OTHER_REPLIES = ['```\n{"criteria_met": true}\n```', '```JSON\n{"criteria_met": true}\n```',
                 '```jsonc {"criteria_met": true}```', 'Here it is: {"criteria_met": true}',
                 '{"criteria_met": true} I hope this helps', '```json\n{"criteria_met": true}\n```\nDone.',
                 '{"explanation": "x", "criteria_met": tr', '{"criteria_met": true,}', "{'criteria_met': True}",
                 '\ufeff{"criteria_met": true}', "", '{"explanation": "a\nb", "criteria_met": true}',
                 '[{"criteria_met": true}]', '{"criteria_met": "true"}', '{"criteria_met": 1}',
                 '{"criteria_met": null}', '{"explanation": "x"}', "true", "false", "5", "null", '"criteria_met"',
                 '["criteria_met"]', "I cannot tell.", "{}", '{"criteria_met": 1.0}', '{"criteria_met": [true]}',
                 '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[true]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
                 '```json\n```json\n{"criteria_met": true}\n```\n```', '{"criteria_met": false} ```',
                 '  \n{"criteria_met": false}\n  ', '{"CRITERIA_MET": true}', '{"criteria_met": True}']
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
SENTINEL = '{"explanation": "recorder sentinel", "criteria_met": false}'


class _Stub(types.ModuleType):
    """An empty module: any attribute is a class that accepts anything (openai.OpenAI is replaced below)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        made = type(name, (Exception,), {"__init__": lambda self, *a, **k: None})
        setattr(self, name, made)
        return made


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _Stub(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        if module.__name__ == "tqdm":
            module.tqdm = lambda xs, *a, **k: xs
        if module.__name__ == "openai":
            module.OpenAI = ScriptedClient


class ScriptedClient:
    """Stands in for openai.OpenAI: chat.completions.create(**request) asks `answer` for the reply's text."""

    def __init__(self, *args, answer=None, **kwargs):
        self.answer = answer
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self._create))

    def _create(self, **request):
        if self.answer is None:
            raise RuntimeError("no reply scripted")  # the sampler would retry for ever: never reached
        text = self.answer(request)
        message = types.SimpleNamespace(content=text)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)], usage=None)


def load(checkout: Path, workdir: Path):
    """simple-evals' modules, imported as the package simple_evals from a copy of the checkout."""
    shutil.copytree(checkout, workdir / "simple_evals", ignore=shutil.ignore_patterns(".git"))
    sys.meta_path.insert(0, _StubFinder())
    sys.path.insert(0, str(workdir))
    names = ("healthbench_eval", "simple_evals", "types", "sampler.chat_completion_sampler")
    return types.SimpleNamespace(**{n.split(".")[-1]: importlib.import_module("simple_evals." + n) for n in names})


class _Stop(Exception):
    pass


def main_samplers(se):
    """The grading sampler and the gpt-4.1 model sampler as simple_evals.main() makes them for HealthBench."""
    seen = {}

    class Capture:
        def __init__(self, grader_model, **kwargs):
            seen["grader"], seen["eval_kwargs"] = grader_model, kwargs

        def __call__(self, sampler):
            seen["model"] = sampler
            raise _Stop

    saved, se.simple_evals.HealthBenchEval = se.simple_evals.HealthBenchEval, Capture
    saved_argv, sys.argv = sys.argv, ["simple_evals", "--model", "gpt-4.1", "--eval", "healthbench"]
    saved_env = {k: os.environ.get(k) for k in KEY_VARIABLES}
    os.environ.update({k: "unused: the client is scripted" for k in KEY_VARIABLES})  # some samplers assert one
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(_Stop):
            se.simple_evals.main()
    finally:
        se.simple_evals.HealthBenchEval, sys.argv = saved, saved_argv
        for k, v in saved_env.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    return seen["grader"], seen["model"]


def sampler_settings(sampler):
    return {"class": type(sampler).__name__, "model": sampler.model, "temperature": sampler.temperature,
            "max_tokens": sampler.max_tokens, "system_message": sampler.system_message}


def outcome_of(se, text):
    """What grade_sample does with one grader reply: True or False kept, None asked again, 'crash' stopped."""
    calls = []

    def grader(messages):
        calls.append(messages)
        reply = text if len(calls) == 1 else SENTINEL
        return se.types.SamplerResponse(response_text=reply, actual_queried_message_list=messages,
                                        response_metadata={})

    ev = object.__new__(se.healthbench_eval.HealthBenchEval)
    ev.grader_model = grader
    item = se.healthbench_eval.RubricItem("Replies.", 1, [])
    try:
        _, _, graded = ev.grade_sample([{"role": "user", "content": "Hi."}], "Hello.", [], [item])
    except TypeError:
        return "crash"
    return graded[0]["criteria_met"] if len(calls) == 1 else None


def reply_corpus(se):
    texts = [form.replace("{}", value) for form in READ_FORMS for value in ("true", "false")] + OTHER_REPLIES
    out = []
    with contextlib.redirect_stdout(io.StringIO()):
        for text in texts:
            parsed = se.healthbench_eval.parse_json_to_dict(text)
            out.append({"text": text, "parse_json_to_dict": parsed, "outcome": outcome_of(se, text)})
    return out


def make_cases(seed, count, corpus):
    """Generated cases; every criterion has a marker ⟦case.item⟧ the scripted grader finds its replies by."""
    rng = random.Random(seed)
    unread = [r["text"] for r in corpus if r["outcome"] is None]
    tags = ["axis:accuracy", "axis:completeness", "axis:communication", "level:example", "level:cluster"]
    themes = ["theme:emergency_referrals", "theme:context_seeking", "physician_agreed_category:enough-context"]
    cases = []
    for n in range(count):
        prompt = [{"role": "system", "content": f"Case {n}: you answer health questions."}] \
            if rng.random() < 0.4 else []
        for turn in range(rng.choice([1, 1, 3, 5])):
            text = rng.choice([f"turn {turn} of case {n}", f"Turn {turn}:\nline two\n\nafter a blank line",
                               f"turn {turn} holds <<rubric_item>> and <<conversation>> literally",
                               f"turn {turn}: fièvre 39 °C — 3 jours?"])
            prompt.append({"role": "user" if turn % 2 == 0 else "assistant", "content": text})
        rubric = []
        for i in range(rng.randint(1, 7)):
            points = rng.choice([-10, -8, -5, -2, 1, 2, 3, 5, 7, 10, 5.0, 2.5])
            rubric.append({"criterion": f"⟦{n}.{i}⟧ " + rng.choice(["States the dose.", "Says <<conversation>>.",
                                                                     "Asks for context; then [advises]."]),
                           "points": points, "tags": rng.sample(tags, rng.randint(0, 3))})
        rubric[0]["points"] = abs(rubric[0]["points"]) or 1
        replies = {}
        for item in rubric:
            value = rng.choice(["true", "false"])
            before = rng.sample(unread, rng.randint(0, ATTEMPTS_BEFORE_READ)) if rng.random() < 0.4 else []
            replies[item["criterion"]] = before + [rng.choice(READ_FORMS).replace("{}", value)]
        cases.append({"prompt_id": f"case-{n}", "prompt": prompt, "rubrics": rubric,
                      "example_tags": rng.sample(themes, rng.randint(0, 2)), "response": f"Reply to case {n}.",
                      "grader_replies": replies})
    return cases


def marker(text, cases):
    for case in cases:
        for item in case["rubrics"]:
            if item["criterion"] in text:
                return case, item
    raise AssertionError("no criterion in the grader prompt")


def run(se, grader, model_sampler, cases, seed):
    """HealthBenchEval.__call__ over the cases, with scripted model and grader replies; what each part did."""
    he = se.healthbench_eval
    queues = {item["criterion"]: list(case["grader_replies"][item["criterion"]])
              for case in cases for item in case["rubrics"]}
    requests = {case["prompt_id"]: [] for case in cases}  # [criterion index, sha256 of the prompt] of each ask
    settings = []  # every distinct request setting the grader received
    sent = {}

    def grader_answer(request):
        content = request["messages"][-1]["content"]
        case, item = marker(content, cases)
        setting = {"model": request["model"], "temperature": request["temperature"],
                   "max_tokens": request["max_tokens"], "roles": [m["role"] for m in request["messages"]],
                   "system": request["messages"][0]["content"] if request["messages"][0]["role"] == "system" else None}
        if setting not in settings:
            settings.append(setting)
        requests[case["prompt_id"]].append([case["rubrics"].index(item), hashlib.sha256(content.encode()).hexdigest()])
        return queues[item["criterion"]].pop(0)

    def model_answer(request):  # the cases are evaluated in order: the first unanswered one this prompt ends
        [case] = [c for c in cases if request["messages"][-len(c["prompt"]):] == c["prompt"]
                  and c["prompt_id"] not in sent][:1]
        sent[case["prompt_id"]] = request["messages"]
        return case["response"]

    grader, model_sampler = copy.copy(grader), copy.copy(model_sampler)
    grader.client, model_sampler.client = ScriptedClient(answer=grader_answer), ScriptedClient(answer=model_answer)
    ev = object.__new__(he.HealthBenchEval)
    ev.examples = [{"prompt_id": c["prompt_id"], "prompt": copy.deepcopy(c["prompt"]),
                    "example_tags": c["example_tags"],
                    "rubrics": [he.RubricItem.from_dict(item) for item in c["rubrics"]]} for c in cases]
    ev.n_threads, ev.grader_model, ev.physician_completions_mode = 1, grader, None
    graded = []
    original = ev.grade_sample

    def grade_sample(**kwargs):
        metrics, text, items = original(**kwargs)
        graded.append({"prompt": kwargs["prompt"], "metrics": metrics,
                       "criteria_met": [item["criteria_met"] for item in items]})
        return metrics, text, items

    ev.grade_sample = grade_sample
    import numpy as np

    np.random.seed(seed)
    with contextlib.redirect_stdout(io.StringIO()):
        result = ev(model_sampler)
    # The grader prompts again, with the stand-in template in place of simple-evals' text.
    stand_in = {}
    saved, he.GRADER_TEMPLATE = he.GRADER_TEMPLATE, STAND_IN_TEMPLATE
    try:
        for case, done in zip(cases, graded):
            prompts = []

            def collect(messages, prompts=prompts):
                prompts.append(messages[-1]["content"])
                return se.types.SamplerResponse(response_text='{"criteria_met": true}',
                                                actual_queried_message_list=messages, response_metadata={})

            ev.grader_model = collect
            original(prompt=done["prompt"], response_text=case["response"], example_tags=case["example_tags"],
                     rubric_items=[he.RubricItem.from_dict(item) for item in case["rubrics"]])
            stand_in[case["prompt_id"]] = prompts
    finally:
        he.GRADER_TEMPLATE = saved
    per_case = [{"prompt_id": case["prompt_id"], "sent_to_model": sent[case["prompt_id"]],
                 "grader_conversation": done["prompt"] + [{"content": case["response"], "role": "assistant"}],
                 "grader_requests": requests[case["prompt_id"]], "grader_prompts_stand_in": stand_in[case["prompt_id"]],
                 "criteria_met": done["criteria_met"], "metrics": done["metrics"],
                 "score": meta["score"]}
                for case, done, meta in zip(cases, graded, result.metadata["example_level_metadata"])]
    aggregate = {"score": float(result.score), "metrics": {k: float(v) for k, v in result.metrics.items()}}
    return {"seed": seed, "model_sampler": sampler_settings(model_sampler), "grader_request_settings": settings,
            "cases": cases, "results": per_case,
            "aggregate": aggregate}


def record(checkout: Path) -> dict:
    """The whole recording of simple-evals at `checkout` (as written to recording.json)."""
    import jinja2
    import numpy as np

    saved_modules, saved_path, saved_finders = dict(sys.modules), list(sys.path), list(sys.meta_path)
    saved_debug = os.environ.get("debug")
    os.environ["debug"] = "1"  # common.map_with_progress: one criterion after another, in the rubric's order
    try:
        with tempfile.TemporaryDirectory() as workdir:
            se = load(checkout, Path(workdir))
            grader, model_sampler = main_samplers(se)
            corpus = reply_corpus(se)
            plain = copy.copy(model_sampler)
            plain.system_message = None  # a sampler with no system message (simple-evals' default)
            template = se.healthbench_eval.GRADER_TEMPLATE
            runs = {"with_system_message": run(se, grader, model_sampler, make_cases(SEEDS["with_system_message"], 40,
                                                                                     corpus),
                                               SEEDS["with_system_message"]),
                    "without_system_message": run(se, grader, plain, make_cases(SEEDS["without_system_message"], 12,
                                                                                corpus),
                                                  SEEDS["without_system_message"])}
    finally:
        sys.modules.clear()
        sys.modules.update(saved_modules)
        sys.path[:], sys.meta_path[:] = saved_path, saved_finders
        if saved_debug is None:
            os.environ.pop("debug", None)
        else:
            os.environ["debug"] = saved_debug
    return {"about": "made by record.py beside this file, by running openai/simple-evals' own code; do not edit",
            "simple_evals": {"repository": "openai/simple-evals", "commit": COMMIT},
            "recorded_with": {"python": platform.python_version(), "numpy": np.__version__,
                              "jinja2": jinja2.__version__},
            "template_sha256": hashlib.sha256(template.encode()).hexdigest(),
            "stand_in_template": STAND_IN_TEMPLATE,
            "settings": {"grader": sampler_settings(grader), "model": sampler_settings(model_sampler)},
            "replies": corpus, "runs": runs}


def main() -> None:
    if len(sys.argv) != 2 or not (Path(sys.argv[1]) / "healthbench_eval.py").is_file():
        raise SystemExit(__doc__.split("\n\n")[1])
    recording = record(Path(sys.argv[1]))
    text = json.dumps(recording, indent=1, ensure_ascii=False) + "\n"
    (HERE / "recording.json").write_text(text, encoding="utf-8")
    print(f"wrote {HERE / 'recording.json'} ({len(text)} characters)")


if __name__ == "__main__":
    main()
