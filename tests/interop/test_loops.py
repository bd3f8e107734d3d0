"""The whole loop in Inspect AI and lm-eval, as a user runs it: `clinreg export`, the harness on two test models,
`clinreg results import` of the folder the harness wrote, then `clinreg leaderboard`. Every count and score is
checked against what the harness itself wrote (HELM's loop is in test_helm.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.export import export
from clinreg.cli.main import main

from .support import REPO, have, need, tool

pytestmark = pytest.mark.interop

# Closed (med_qa, pubmed_qa), number (medcalc_bench), free text (aci_bench) and a two-variant mapping (medhallu).
DATASETS = ["med_qa", "pubmed_qa", "medcalc_bench", "aci_bench", "medhallu"]
LIMIT = "8"


def _export(harness: str, base, realdata):
    out = base / "export"
    result = invoke(export, [harness, *DATASETS, "--root", str(REPO), "--data-dir", str(realdata),
                             "--limit", LIMIT, "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    return out, {m["name"]: m for m in json.loads((out / "manifest.json").read_text())["mappings"]}


def _import_and_rank(folder, tmp_path):
    target = tmp_path / "results.json"
    result = invoke(main, ["results", "import", str(folder), "--root", str(REPO), "-o", str(target),
                           "--format", "json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["data"]
    refused = summary["refused"]
    board = invoke(main, ["leaderboard", str(target), "--root", str(REPO), "--by", "subcategory",
                          "--format", "json"])
    assert board.exit_code == 0, board.output
    scores = {(s["model"], s["mapping"]): s for s in json.loads(target.read_text())["scores"]}
    stand_ins = json.loads(target.read_text())["stand_ins"]
    assert summary["stand_ins"] == len(stand_ins)
    return scores, refused, json.loads(board.stdout)["data"]["rows"], stand_ins


def _check_jury_defaults(scores, refused, models):
    # The mock judges never give a usable rating. Under MedHELM's rules (LLMJuryMetric with default_score=1.0,
    # as every MedHELM run spec passes it) each free-text instance then scores 1.0, so the jury benchmark has a
    # score for every model and nothing is refused.
    assert refused == []
    for model in models:
        assert scores[(model, "aci_bench")]["value"] == pytest.approx(1.0)


def test_inspect_loop(realdata, harness_env, tmp_path):
    need(have("inspect_ai"), "inspect_ai is not installed")
    out, manifest = _export("inspect", tmp_path, realdata)
    models = ["mockllm/model", "mockllm/other"]
    logs = tmp_path / "logs"
    for model in models:
        judges = [a for j in ("gpt", "llama", "claude") for a in ("--model-role", f"judge_{j}=mockllm/model")]
        done = subprocess.run([tool("inspect"), "eval", *[f"{out / 'clinreg_tasks.py'}@{n}" for n in manifest],
                               "--model",
                               model, *judges, "--log-dir", str(logs), "--no-ansi", "--max-connections", "4"],
                              env=harness_env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    scores, refused, rows, stand_ins = _import_and_rank(logs, tmp_path)
    _check_jury_defaults(scores, refused, models)
    assert stand_ins == []
    from inspect_ai.log import list_eval_logs, read_eval_log

    seen = 0
    for info in list_eval_logs(str(logs)):
        log = read_eval_log(info)
        mapping = log.eval.task[len("clinreg_"):]
        if manifest[log.eval.task]["kind"] == "text":
            # Every sample took MedHELM's default, and the scorer says so beside the score.
            by_name = {s.name: s for s in log.results.scores}
            counted = {k: m.value for s in by_name.values() for k, m in s.metrics.items()}
            assert counted["defaults_used"] == log.results.completed_samples, counted
            continue
        score = scores[(log.eval.model, mapping)]
        metrics = log.results.scores[0].metrics
        assert score["value"] == pytest.approx(metrics["accuracy"].value)
        assert score["n_instances"] == log.results.completed_samples == manifest[log.eval.task]["instances"]
        seen += 1
    assert seen == 2 * sum(1 for m in manifest.values() if m["kind"] != "text")
    assert len(scores) == 2 * len(manifest)
    assert {r["model"] for r in rows} == set(models)


def test_lm_eval_loop(realdata, harness_env, tmp_path):
    need(have("lm_eval"), "lm_eval is not installed")
    out, manifest = _export("lm-eval", tmp_path, realdata)
    models = ["test-model-a", "test-model-b"]
    results = tmp_path / "results"
    for model in models:
        done = subprocess.run([tool("lm_eval"), "--model", "dummy", "--model_args", f"pretrained={model}",
                               "--include_path", str(out), "--tasks", ",".join(manifest), "--output_path",
                               str(results / model)], env=harness_env, capture_output=True, text=True, timeout=900,
                              cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
    scores, refused, rows, stand_ins = _import_and_rank(results, tmp_path)
    # lm-eval has no judge: the free-text task's token F1 is kept beside the scores, once per model, never ranked.
    assert refused == []
    assert sorted((s["model"], s["mapping"], s["metric"]) for s in stand_ins) == \
        [(m, "aci_bench", "reference_f1") for m in models]
    metric = {"choice": "exact_match,none", "number": "range_accuracy,none"}
    for model in models:
        (path,) = (results / model).rglob("results_*.json")
        data = json.loads(path.read_text())
        for name, entry in manifest.items():
            if entry["kind"] == "text":
                kept = next(x for x in stand_ins if x["model"] == model and x["mapping"] == entry["mapping"])
                assert kept["value"] == pytest.approx(data["results"][name]["reference_f1,none"])
                continue
            score = scores[(model, entry["mapping"])]
            assert score["value"] == pytest.approx(data["results"][name][metric[entry["kind"]]])
            assert score["n_instances"] == data["n-samples"][name]["effective"] == entry["instances"]
    assert {r["model"] for r in rows} == set(models)


def test_an_unnamed_lm_eval_run_is_named_by_its_model_class(realdata, harness_env, tmp_path):
    """lm-eval names a run without --model_args with a random id; clinreg names it after the model class."""
    need(have("lm_eval"), "lm_eval is not installed")
    out, manifest = _export("lm-eval", tmp_path, realdata)
    done = subprocess.run([tool("lm_eval"), "--model", "dummy", "--include_path", str(out), "--tasks", "clinreg_med_qa",
                           "--output_path", str(tmp_path / "results")], env=harness_env, capture_output=True, text=True,
                          timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = (tmp_path / "results").rglob("results_*.json")
    assert json.loads(path.read_text())["model_name"] != "dummy"  # the random id this guards against
    result = invoke(main, ["results", "import", str(path), "--root", str(REPO)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["models"] == ["dummy"]


EVERY_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
import inspect_ai, clinreg_tasks as t
from inspect_ai.model import ModelOutput, get_model

rating = json.dumps({axis: {"score": 4, "explanation": "test"} for axis in ("accuracy", "completeness", "structure", \
"clarity")})
# Enough replies for two instances of every benchmark on two models, and no more: the lists of replies are held
# for every sample the run makes, so their length, times the benchmarks, is what the run's memory grows with (at
# 10,000 and 100,000 replies, 59 benchmarks took past 23 GB and were killed).
roles = {f"judge_{name}": get_model("mockllm/model", memoize=False,
                                    custom_outputs=[ModelOutput.from_content("mockllm/model", rating)] * 500)
         for name in ("gpt", "llama", "claude")}
# HealthBench's rubric grader: a mock that finds every criterion met.
graded = json.dumps({"explanation": "test", "criteria_met": True})
roles["grader"] = get_model("mockllm/model", memoize=False,
                            custom_outputs=[ModelOutput.from_content("mockllm/model", graded)] * 2000)
tasks = [getattr(t, name)() for name in sorted(t.MAPPINGS)]
logs = inspect_ai.eval(tasks, model=["mockllm/model", "mockllm/other"], model_roles=roles, log_dir=sys.argv[2],
                       display="none", max_tasks=4)
print(json.dumps(sorted([log.eval.task, log.eval.model, log.status] for log in logs)))
"""


def test_a_leaderboard_over_every_benchmark_runs_from_exported_runs_alone(harness_env, tmp_path):
    """Every benchmark of the registry, from files shaped as distributed, exported for Inspect and run on two mock
    models with mock judges; the leaderboard is built from those logs alone, with every benchmark in it."""
    import sqlite3

    from clinreg.core.store import load_registry

    from .support import buildable_records, jury_export

    need(have("inspect_ai"), "inspect_ai is not installed")
    reg = load_registry(REPO)
    # Every record whose data can be laid out (records whose layout is not public refuse to build, by design).
    records = buildable_records()
    assert len(records) >= len(reg.datasets) - sum(1 for r in reg.datasets.values() if r.source.type == "local")
    keys = {f"{rid}/{m.id}" for rid in records for m in reg.datasets[rid].mappings}
    out = jury_export("inspect", tmp_path, records, limit=2)
    manifest = json.loads((out / "manifest.json").read_text())
    assert {f"{m['dataset']}/{m['mapping']}" for m in manifest["mappings"]} == keys and manifest["skipped"] == {}
    # The SQLite database each SQL benchmark names, made here (a stand-in of the real eICU file).
    data = tmp_path / "databases"
    for record in reg.datasets.values():
        for mapping in record.mappings:
            if mapping.scoring and mapping.scoring.database:
                path = data / mapping.scoring.database.file
                path.parent.mkdir(parents=True, exist_ok=True)
                with sqlite3.connect(path) as conn:
                    conn.execute("create table patient (uniquepid text)")
    # HealthBench's grader template is read from MedHELM's wheel (its annotator holds simple-evals' text).
    wheel = os.environ.get("CLINREG_MEDHELM_WHEEL") or ""
    need(os.path.isfile(wheel), "the medhelm 0.8.0 wheel (CLINREG_MEDHELM_WHEEL) is not here")
    logs = tmp_path / "logs"
    done = subprocess.run([sys.executable, "-c", EVERY_SCRIPT, str(out), str(logs)],
                          env={**harness_env, "CLINREG_DATA_DIR": str(data),
                               "CLINREG_HEALTHBENCH_GRADER_TEMPLATE": wheel},
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = json.loads(done.stdout.strip().splitlines()[-1])
    assert all(status == "success" for _, _, status in ran), ran
    target = tmp_path / "results.json"
    result = invoke(main, ["results", "import", str(logs), "--root", str(REPO), "-o", str(target),
                           "--format", "json"])
    assert result.exit_code == 0, result.output
    # A benchmark whose main metric no export computes (HealthBench's rubric score, SCT's panel credit, an
    # agent's success rate: records beyond MedHELM that say so) is refused by name (CLR965); MedHELM's never are.
    refused = json.loads(result.stdout)["data"]["refused"]
    by_task = {f"clinreg-{m.id.replace('_', '-')}": f"{rid}/{m.id}" for rid in records
               for m in reg.datasets[rid].mappings}
    unscored = {by_task[Path(d["file"]).name.split("_")[1]] for d in refused}
    assert all(d["code"] == "CLR965" for d in refused), refused
    assert all(not reg.datasets[key.split("/")[0]].in_medhelm for key in unscored), unscored
    keys -= unscored
    board = invoke(main, ["leaderboard", str(target), "--root", str(REPO), "--format", "json"])
    assert board.exit_code == 0, board.output
    data = json.loads(board.stdout)["data"]
    assert {b["key"] for b in data["benchmarks"]} == keys
    assert {f"{r.id}/{m.id}" for r in reg.datasets.values() if r.in_medhelm for m in r.mappings} <= keys
    rows = {r["model"]: r for r in data["rows"]}
    assert set(rows) == {"mockllm/model", "mockllm/other"}
    assert all(len(r["benchmarks"]) == len(keys) and r["mean_win_rate"] is not None for r in rows.values())
    juried = [b for b in data["benchmarks"] if b["metric"].endswith("_accuracy") and b["range"] == [1, 5]]
    assert juried and all(s["value"] == pytest.approx(4.0) for b in juried for s in b["scores"])
