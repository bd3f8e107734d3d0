"""Inspect AI runs the exported tasks offline on its mock model: every built instance is a sample with our gold."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import exported
from .support import DATASETS, have, need, tool

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
    result = subprocess.run([tool("inspect"), "eval", *tasks, "--model", "mockllm/model", "--log-format", "json",
                             "--log-dir", str(log_dir), "--no-ansi", "--max-connections", "4"],
                            env=harness_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    logs = _logs(log_dir)
    assert sorted(logs) == sorted(f"clinreg_{d}" for d in DATASETS)
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
                # The stem goes in as input, and Inspect lists the options once, itself.
                assert sample["input"] == instances[sample["id"]]["input"]
            else:
                assert sample["target"] == gold["value"]
        scorer = {"med_qa": "choice", "pubmed_qa": "choice", "medcalc_bench": "numeric_range",
                  "aci_bench": "reference_overlap"}[dataset]
        assert [s["name"] for s in log["results"]["scores"]] == [scorer]


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
    """The exact user message Inspect sends, read back from its own log, for every closed mapping of the registry:
    Inspect's multiple-choice instruction once, none of the record's own, and the options after a blank line."""
    from clinreg.rules.labels import ANSWER_INSTRUCTION

    from .support import export_closed

    need(have("inspect_ai"), "inspect_ai is not installed")
    out, names = export_closed("inspect", tmp_path)
    log_dir = tmp_path / "logs"
    done = subprocess.run([tool("inspect"), "eval", *[f"{out / 'clinreg_tasks.py'}@{n}" for n in names], "--model",
                           "mockllm/model", "--log-format", "json", "--log-dir", str(log_dir), "--no-ansi",
                           "--max-connections", "4"], env=harness_env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    logs = _logs(log_dir)
    assert sorted(logs) == sorted(names)
    for name, log in logs.items():
        assert log["samples"], name
        for sample in log["samples"]:
            message = next(m["content"] for m in sample["messages"] if m["role"] == "user")
            text = message if isinstance(message, str) else " ".join(part.get("text", "") for part in message)
            assert text.count("Answer the following multiple choice question.") == 1, text[:300]
            assert ANSWER_INSTRUCTION.findall(text) == [], f"{name}: the question carries its own instruction"
            assert "\n\nA) " in text, text[-300:]
