"""Inspect AI runs the exported tasks offline on its mock model: every built instance is a sample with our gold."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from clirunner import invoke

from clinreg.cli.main import main

from .conftest import exported
from .support import DATASETS, REPO, have, need, tool
from clinreg.exports.contents import sent_generation

pytestmark = pytest.mark.interop


@pytest.fixture(scope="module")
def inspect_export(tmp_path_factory, realdata):
    need(have("inspect_ai"), "inspect_ai is not installed")
    return exported("inspect", tmp_path_factory.mktemp("export"), realdata)


def _logs(folder):
    logs = {}
    for path in sorted(folder.glob("*.json")):
        log = json.loads(path.read_text())
        logs[log["eval"]["task"]] = log
    return logs


def test_inspect_eval_cli_runs_every_mapping_on_the_mock_model(inspect_export, built, harness_env, tmp_path):
    log_dir = tmp_path / "logs"
    tasks = [f"{inspect_export / 'clinreg_tasks.py'}@clinreg_{d}" for d in DATASETS]
    # The jury's three judges, bound as Inspect model roles (the mock model's replies are no JSON: never a rating).
    roles = [arg for name in ("gpt", "llama", "claude") for arg in ("--model-role", f"judge_{name}=mockllm/model")]
    result = subprocess.run([tool("inspect"), "eval", *tasks, "--model", "mockllm/model", *roles, "--log-format",
                             "json", "--log-dir", str(log_dir), "--no-ansi", "--max-connections", "4"],
                            env=harness_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    logs = _logs(log_dir)
    assert sorted(logs) == sorted(f"clinreg_{d}" for d in DATASETS)
    manifest = json.loads((inspect_export / "manifest.json").read_text())["mappings"]
    settings = {m["dataset"]: m["generation"] for m in manifest}
    for dataset in DATASETS:
        log = logs[f"clinreg_{dataset}"]
        assert log["status"] == "success"
        instances = built[dataset]
        samples = log["samples"]
        assert len(samples) == len(instances) > 0
        for sample in samples:
            gold = instances[sample["id"]]["gold"]
            if gold["kind"] == "choice":
                assert sample["target"] == gold["letter"]
                assert sample["choices"] == instances[sample["id"]]["choices"]
                # MedHELM's instructions, the stem and the lettered options, as HELM lays them out
                instance = instances[sample["id"]]
                options = "".join(f"{chr(65 + i)}. {o}\n" for i, o in enumerate(instance["choices"]))
                opening = settings[dataset]["instructions"]
                assert sample["input"] == f"{opening}\n\n{instance['input']}\n{options}Answer:"
            else:
                assert sample["target"] == gold["value"]
        scorers = {"med_qa": ["letter_match"], "pubmed_qa": ["letter_match"], "medcalc_bench": ["numeric_range"],
                   "aci_bench": ["jury", "reference_overlap"], "medhallu": ["letter_match"]}[dataset]
        assert [s["name"] for s in log["results"]["scores"]] == scorers
        # the record's (MedHELM's) settings, as the task's generate config
        g, config = sent_generation(settings[dataset]), log["plan"]["config"]  # what MedHELM's requests carry
        assert (config["temperature"], config["max_tokens"], config.get("stop_seqs")) == (
            g["temperature"], g["max_tokens"], g["stop"] or None), config
        assert config.get("num_choices") == (g["num_outputs"] if g["num_outputs"] > 1 else None), config


def test_a_subcategory_list_runs_all_its_mappings(inspect_export, harness_env, tmp_path):
    tasks = json.loads((inspect_export / "manifest.json").read_text())["mappings"]
    subcategory = next(s for m in tasks for s in m["subcategories"])
    members = sorted(m["name"] for m in tasks if subcategory in m["subcategories"])
    script = (
        "import sys, json; sys.path.insert(0, sys.argv[1]); import inspect_ai, clinreg_tasks as t; "
        "logs = inspect_ai.eval(t.tasks_in(sys.argv[2]), model='mockllm/model', log_dir=sys.argv[3], display='none'); "
        "print(json.dumps(sorted([l.eval.task, l.status, len(l.samples)] for l in logs)))"
    )
    result = subprocess.run([sys.executable, "-c", script, str(inspect_export), subcategory, str(tmp_path / "logs")],
                            env=harness_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    ran = json.loads(result.stdout.strip().splitlines()[-1])
    assert [name for name, _, _ in ran] == members
    counts = {m["name"]: m["instances"] for m in tasks}
    assert all(status == "success" and n == counts[name] for name, status, n in ran)


def test_every_closed_mapping_shows_the_model_one_instruction(harness_env, tmp_path):
    """The exact user message and settings Inspect sends, read back from its own log, for every closed mapping of the
    registry: MedHELM's instructions (clinreg's letter instruction where MedHELM gives none) once, the question with
    no instruction of its own, the lettered options and `Answer:`; the record's output limit and stop sequences; the
    reply scored as HELM's exact match (the mock model's default reply is no letter)."""
    from clinreg.exports.contents import LETTER_INSTRUCTION
    from clinreg.rules.labels import ANSWER_INSTRUCTION

    from .support import export_closed

    need(have("inspect_ai"), "inspect_ai is not installed")
    out, names = export_closed("inspect", tmp_path)
    manifest = {m["name"]: m for m in json.loads((out / "manifest.json").read_text())["mappings"]}
    log_dir = tmp_path / "logs"
    done = subprocess.run([tool("inspect"), "eval", *[f"{out / 'clinreg_tasks.py'}@{n}" for n in names], "--model",
                           "mockllm/model", "--log-format", "json", "--log-dir", str(log_dir), "--no-ansi",
                           "--max-connections", "4"], env=harness_env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    logs = _logs(log_dir)
    assert sorted(logs) == sorted(names)
    for name, log in logs.items():
        assert log["samples"], name
        g = sent_generation(manifest[name]["generation"])
        opening = g["instructions"] if g["adapter"] == "multiple_choice" and g.get("instructions") \
            else LETTER_INSTRUCTION
        config = log["plan"]["config"]
        assert (config["max_tokens"], config.get("stop_seqs")) == (g["max_tokens"], g["stop"] or None), name
        for sample in log["samples"]:
            (message,) = [m["content"] for m in sample["messages"] if m["role"] in ("user", "system")]
            text = message if isinstance(message, str) else " ".join(part.get("text", "") for part in message)
            assert text.startswith(opening + "\n\n") and text.count(opening) == 1, text[:300]
            assert ANSWER_INSTRUCTION.findall(text[len(opening):]) == [], f"{name}: the question has its own"
            assert text.endswith("\nAnswer:") and "\nA. " in text, text[-300:]
            assert sample["scores"]["letter_match"]["value"] == "I", sample["scores"]


# ------------------------------------------------------------------------------------------------ the jury

JURY_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
import inspect_ai, clinreg_tasks as t
from inspect_ai.model import ModelOutput, get_model

replies = json.loads(sys.argv[3])
roles = {f"judge_{name}": get_model("mockllm/model", memoize=False,
                                    custom_outputs=[ModelOutput.from_content("mockllm/model", text)] * 100)
         for name, text in replies.items()}
tasks = [getattr(t, name)() for name in sys.argv[4].split(",")]
# The evaluated model: mockllm's default output, or the text given (an empty response, say).
model = "mockllm/model" if len(sys.argv) < 6 else get_model(
    "mockllm/model", memoize=False, custom_outputs=[ModelOutput.from_content("mockllm/model", sys.argv[5])] * 100)
logs = inspect_ai.eval(tasks, model=model, model_roles=roles, log_dir=sys.argv[2], log_format="json",
                       display="none")
print(json.dumps([[log.eval.task, log.status] for log in logs]))
"""

JURY_MAPPINGS = ["aci_bench", "med_dialog", "medi_qa"]


def _ratings(accuracy, middle, clarity, axis="completeness"):
    return json.dumps({"accuracy": {"score": accuracy, "explanation": "x"}, axis: {"score": middle, "explanation": "y"},
                       "clarity": {"score": clarity, "explanation": "z"}})


def _jury_run(harness_env, tmp_path, replies, mappings=JURY_MAPPINGS, response=None):
    from .support import jury_export

    out = jury_export("inspect", tmp_path, mappings)
    log_dir = tmp_path / "logs"
    done = subprocess.run([sys.executable, "-c", JURY_SCRIPT, str(out), str(log_dir), json.dumps(replies),
                           ",".join(f"clinreg_{m}" for m in mappings)] + ([] if response is None else [response]),
                          env=harness_env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out, log_dir


def test_a_jury_of_mock_judges_scores_three_benchmarks_and_imports_under_each_main_metric(harness_env, tmp_path):
    need(have("inspect_ai"), "inspect_ai is not installed")
    replies = {"gpt": _ratings(4, 5, 3), "llama": "```json\n" + _ratings(2, 3, 4) + "\n```",
               "claude": "Here is my rating: " + _ratings(5, 4, 5)}
    out, log_dir = _jury_run(harness_env, tmp_path, replies)
    expected = (4 + 5 + 3 + 2 + 3 + 4 + 5 + 4 + 5) / 9  # every judge x every axis, by hand: 35 / 9
    logs = _logs(log_dir)
    for mapping in JURY_MAPPINGS:
        log = logs[f"clinreg_{mapping}"]
        jury = next(s for s in log["results"]["scores"] if s["name"] == "jury")
        assert jury["metrics"]["jury_mean"]["value"] == pytest.approx(expected)
        assert jury["metrics"]["ratings_missing"]["value"] == 0
        sample = log["samples"][0]["scores"]["jury"]
        assert sample["metadata"]["ratings"] == {"gpt": {"accuracy": 4, "completeness": 5, "clarity": 3},
                                                 "llama": {"accuracy": 2, "completeness": 3, "clarity": 4},
                                                 "claude": {"accuracy": 5, "completeness": 4, "clarity": 5}}
        # Each judge was called once per sample, through its model role: three judge calls per instance.
        for sample in log["samples"]:
            calls = [e.get("role") for e in sample["events"] if e["event"] == "model" and e.get("role")]
            assert sorted(calls) == ["judge_claude", "judge_gpt", "judge_llama"]
    results = tmp_path / "results.json"
    done = invoke(main, ["results", "import", str(log_dir), "--root", str(REPO), "-o", str(results),
                         "--format", "json"])
    assert done.exit_code == 0, done.output
    scores = {s["mapping"]: s for s in json.loads(results.read_text())["scores"]}
    for mapping in JURY_MAPPINGS:
        assert scores[mapping]["metric"] == f"{mapping}_accuracy"
        assert scores[mapping]["value"] == pytest.approx(expected)
        assert scores[mapping]["jury"]["judges"] == {"gpt": "mockllm/model", "llama": "mockllm/model",
                                                     "claude": "mockllm/model"}
        assert scores[mapping]["jury"]["rubric"].startswith(f"clinreg:{mapping}/{mapping}@")
    # Each judge's ratings, as the scorer recorded them per sample: `clinreg results ratings`, then jury agreement.
    ratings = tmp_path / "ratings.jsonl"
    done = invoke(main, ["results", "ratings", str(log_dir), "-o", str(ratings), "--format", "json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)["data"]
    samples = sum(len(log["samples"]) for log in logs.values())
    assert summary["ratings"] == samples * 9 and summary["problems"] == [] and summary["models"] == ["mockllm/model"]
    assert summary["raters"] == ["claude", "gpt", "llama"]
    rows = [json.loads(line) for line in ratings.read_text().splitlines()]
    by_judge = {(r["rater"], r["axis"]): r["score"] for r in rows}
    assert by_judge == {("gpt", "accuracy"): 4, ("gpt", "completeness"): 5, ("gpt", "clarity"): 3,
                        ("llama", "accuracy"): 2, ("llama", "completeness"): 3, ("llama", "clarity"): 4,
                        ("claude", "accuracy"): 5, ("claude", "completeness"): 4, ("claude", "clarity"): 5}
    done = invoke(main, ["jury", "agreement", str(ratings), "--format", "json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)["data"]
    assert data["judges"] == ["claude", "gpt", "llama"] and data["instances"] == samples
    assert data["leave_one_judge_out"] is None  # one model rated: no ranking to change


def test_irregular_judge_replies_follow_medhelms_rules_and_are_counted(harness_env, tmp_path):
    """MedHELM's rules (scoring.py; tests/interop/test_helm_scoring.py runs HELM's own code on them): a reply
    lacking an axis or an explanation is dropped whole; a non-whole or off-scale score counts as int() reads it."""
    need(have("inspect_ai"), "inspect_ai is not installed")
    replies = {"gpt": "I cannot rate this.", "llama": json.dumps({"accuracy": {"score": 5}, "clarity": "good"}),
               "claude": _ratings(7, 4.7, "2")}
    _, log_dir = _jury_run(harness_env, tmp_path, replies, ["aci_bench"])
    log = _logs(log_dir)["clinreg_aci_bench"]
    jury = next(s for s in log["results"]["scores"] if s["name"] == "jury")
    samples = log["samples"]
    assert jury["metrics"]["jury_mean"]["value"] == pytest.approx(13 / 3)  # claude's 7, 4 and 2 only
    assert jury["metrics"]["ratings_missing"]["value"] == 6 * len(samples)  # gpt's 3 and llama's 3
    assert jury["metrics"]["replies_dropped"]["value"] == 2 * len(samples)
    assert jury["metrics"]["ratings_irregular"]["value"] == 3 * len(samples)
    assert jury["metrics"]["defaults_used"]["value"] == 0
    metadata = samples[0]["scores"]["jury"]["metadata"]
    assert metadata["ratings"]["claude"] == {"accuracy": 7, "completeness": 4, "clarity": 2}
    assert sorted(metadata["problems"]) == ["claude", "gpt", "llama"]
    assert "completeness: missing (the reply is dropped)" in metadata["problems"]["llama"]
    assert "accuracy: 7 is outside 1-5; it counts as it is" in metadata["problems"]["claude"]


def test_a_sample_no_judge_rated_scores_medhelms_default_and_is_counted(harness_env, tmp_path):
    need(have("inspect_ai"), "inspect_ai is not installed")
    _, log_dir = _jury_run(harness_env, tmp_path, {name: "no" for name in ("gpt", "llama", "claude")}, ["aci_bench"])
    log = _logs(log_dir)["clinreg_aci_bench"]
    jury = next(s for s in log["results"]["scores"] if s["name"] == "jury")
    assert jury["metrics"]["jury_mean"]["value"] == 1.0
    metrics = jury["metrics"]
    assert metrics["defaults_used"]["value"] == metrics["replies_dropped"]["value"] / 3 == len(log["samples"]) > 0
    results = tmp_path / "results.json"
    done = invoke(main, ["results", "import", str(log_dir), "--root", str(REPO), "-o", str(results),
                         "--format", "json"])
    assert done.exit_code == 0, done.output
    (score,) = json.loads(results.read_text())["scores"]
    assert score["value"] == 1.0 and score["n_instances"] == len(log["samples"])


def test_an_empty_response_goes_to_no_judge_and_scores_medhelms_default(harness_env, tmp_path):
    need(have("inspect_ai"), "inspect_ai is not installed")
    replies = {name: _ratings(5, 5, 5) for name in ("gpt", "llama", "claude")}
    _, log_dir = _jury_run(harness_env, tmp_path, replies, ["aci_bench"], response="  ")
    log = _logs(log_dir)["clinreg_aci_bench"]
    jury = next(s for s in log["results"]["scores"] if s["name"] == "jury")
    assert jury["metrics"]["jury_mean"]["value"] == 1.0
    assert jury["metrics"]["defaults_used"]["value"] == len(log["samples"]) > 0
    assert jury["metrics"]["replies_dropped"]["value"] == 0
    for sample in log["samples"]:
        assert not [e for e in sample["events"] if e["event"] == "model" and e.get("role")]
