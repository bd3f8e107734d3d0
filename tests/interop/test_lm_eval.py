"""lm-evaluation-harness loads the exported tasks and groups in its own TaskManager and runs them on its dummy model."""

from __future__ import annotations

import json
import subprocess

import pytest

from .conftest import exported
from .support import DATASETS, have, need, tool
from clinreg.exports.contents import sent_generation

pytestmark = pytest.mark.interop


@pytest.fixture(scope="module")
def lm_export(tmp_path_factory, realdata):
    need(have("lm_eval"), "lm_eval is not installed")
    return exported("lm-eval", tmp_path_factory.mktemp("export"), realdata)


def test_task_manager_loads_tasks_and_groups_with_our_gold(lm_export, built, harness_env, monkeypatch):
    for key in ("HF_HOME", "HF_DATASETS_CACHE"):
        monkeypatch.setenv(key, harness_env[key])
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(lm_export))
    names = set(manager.all_tasks)
    manifest = json.loads((lm_export / "manifest.json").read_text())
    subcategories = {s for m in manifest["mappings"] for s in m["subcategories"]}
    categories = {c for m in manifest["mappings"] for c in m["categories"]}
    assert {f"clinreg_{d}" for d in DATASETS} <= names
    assert {f"clinreg_{s}" for s in subcategories} | {f"clinreg_{c}" for c in categories} <= names
    tasks = manager.load([f"clinreg_{d}" for d in DATASETS])["tasks"]
    for sub in subcategories:
        members = sorted(m["name"] for m in manifest["mappings"] if sub in m["subcategories"])
        assert sorted(manager.load([f"clinreg_{sub}"])["group_map"][f"clinreg_{sub}"]) == members
    generation = {m["dataset"]: m["generation"] for m in manifest["mappings"]}
    for dataset in DATASETS:
        task = tasks[f"clinreg_{dataset}"]
        docs = list(task.test_docs())
        instances = built[dataset]
        assert len(docs) == len(instances)
        g = sent_generation(generation[dataset])  # what MedHELM's requests carry
        # every task generates, with the record's (MedHELM's) settings as lm-eval reads them
        assert task.OUTPUT_TYPE == "generate_until"
        assert task.config.generation_kwargs == {"until": g["stop"], "do_sample": False,
                                                 "temperature": g["temperature"], "max_gen_toks": g["max_tokens"]}
        for doc in docs:
            gold = instances[doc["id"]]["gold"]
            target = task.doc_to_target(doc)
            if gold["kind"] == "choice":  # HELM's exact match on the letter, after the regex filter
                assert target == gold["letter"]
                wrong = next(letter for letter in "ABCDE" if letter != gold["letter"])
                assert task.process_results(doc, [gold["letter"]])["exact_match"] == 1.0
                assert task.process_results(doc, [wrong])["exact_match"] == 0.0
                assert task.process_results(doc, ["[invalid]"])["exact_match"] == 0.0
            else:
                assert target == gold["value"]


def test_lm_eval_cli_runs_a_subcategory_group_on_the_dummy_model(lm_export, built, harness_env, tmp_path):
    manifest = json.loads((lm_export / "manifest.json").read_text())
    subcategory = next(s for m in manifest["mappings"] for s in m["subcategories"] if m["dataset"] == "medcalc_bench")
    others = [f"clinreg_{d}" for d in DATASETS
              if subcategory not in next(m["subcategories"] for m in manifest["mappings"] if m["dataset"] == d)]
    out = tmp_path / "results"
    result = subprocess.run([tool("lm_eval"), "--model", "dummy", "--include_path", str(lm_export), "--tasks",
                             ",".join([f"clinreg_{subcategory}", *others]), "--output_path", str(out)],
                            env=harness_env, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    (path,) = out.rglob("results_*.json")
    results = json.loads(path.read_text())
    for dataset in DATASETS:
        assert results["n-samples"][f"clinreg_{dataset}"]["effective"] == len(built[dataset])
        assert "score,none" in results["results"][f"clinreg_{dataset}"]
    assert "score,none" in results["groups"][f"clinreg_{subcategory}"]


def test_every_closed_mapping_shows_the_model_one_instruction(harness_env, tmp_path):
    """The exact context and generation settings lm-eval sends, read back from its --log_samples output, for every
    closed mapping of the registry: MedHELM's instructions (clinreg's letter instruction where MedHELM gives none)
    once, then the question with no instruction of its own, the lettered options and `Answer:`; the record's stop
    sequences and output limit; the reply through the regex filter (the dummy model's `lol` is no letter)."""
    from clinreg.exports.contents import LETTER_INSTRUCTION
    from clinreg.rules.labels import ANSWER_INSTRUCTION

    from .support import export_closed

    need(have("lm_eval"), "lm_eval is not installed")
    out, names = export_closed("lm-eval", tmp_path)
    manifest = {m["name"]: m for m in json.loads((out / "manifest.json").read_text())["mappings"]}
    done = subprocess.run([tool("lm_eval"), "--model", "dummy", "--include_path", str(out), "--tasks", ",".join(names),
                           "--output_path", str(tmp_path / "results"), "--log_samples"],
                          env=harness_env, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = set()
    for path in (tmp_path / "results").rglob("samples_*.jsonl"):
        name = path.name[len("samples_"):].rsplit("_", 1)[0]
        seen.add(name)
        g = sent_generation(manifest[name]["generation"])
        opening = g["instructions"] if g["adapter"] == "multiple_choice" and g.get("instructions") \
            else LETTER_INSTRUCTION
        for line in path.read_text().splitlines():
            sample = json.loads(line)
            (args,) = sample["arguments"].values()  # one generation request per doc
            context, kwargs = args["arg_0"], args["arg_1"]
            assert context.startswith(opening + "\n\n") and context.count(opening) == 1, context[:400]
            assert ANSWER_INSTRUCTION.findall(context[len(opening):]) == [], f"{name}: the question has its own"
            assert context.endswith("\nAnswer:") and "\nA. " in context, context[-300:]
            assert kwargs["until"] == g["stop"] and kwargs["max_gen_toks"] == g["max_tokens"], kwargs
            assert sample["filtered_resps"] == ["[invalid]"] and sample["exact_match"] == 0.0, sample["resps"]
    assert seen == set(names)
