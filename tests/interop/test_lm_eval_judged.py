"""A jury benchmark run by lm-eval, judged after the run: the real lm-eval writes its --log_samples file on its
dummy model, and the Inspect export's clinreg_lm_eval_judged task applies the jury to the responses recorded there.

Every mock judge rates accuracy 4, completeness 3 and clarity 5 (the record's three axes), so each sample's jury
score is (4 + 3 + 5) / 3 = 4.0 over the three judges' nine ratings, and so is the mean.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from clirunner import invoke

from clinreg.cli.export import export

from .support import REPO, distribution_mirror, have, need, tool

pytestmark = pytest.mark.interop

SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
import inspect_ai, clinreg_tasks as t
from inspect_ai.model import ModelOutput, get_model
spec = t.MAPPINGS["clinreg_aci_bench"]["scoring"]["jury"]
ratings = dict(zip([a["id"] for a in spec["axes"]], (4, 3, 5)))
reply = json.dumps({axis: {"score": score, "explanation": "because"} for axis, score in ratings.items()})
n = int(sys.argv[4])
roles = {"judge_" + j["name"]: get_model("mockllm/model", custom_outputs=[
    ModelOutput.from_content(model="mockllm/model", content=reply) for _ in range(n)]) for j in spec["judges"]}
[log] = inspect_ai.eval(t.clinreg_lm_eval_judged(samples_file=sys.argv[3]), model="none", model_roles=roles,
                        log_dir=sys.argv[2], display="none")
if log.results is None:
    raise SystemExit(str(log.error)[-3000:])
print(json.dumps({"status": log.status, "task": log.eval.task, "metadata": log.eval.metadata,
                  "scores": {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores},
                  "samples": {s.id: [s.output.completion, s.scores["jury"].value] for s in log.samples}}))
"""


def _lm_eval_run(record, harness_env, tmp_path):
    """Both exports of a record, and the real lm-eval's run of it on its dummy model with --log_samples: the export
    folders, the samples file and the response lm-eval recorded for each doc id."""
    need(have("lm_eval") and have("inspect_ai"), "lm_eval and inspect_ai are not both installed")
    data = distribution_mirror(tmp_path / "data", [record])
    out = {}
    for harness in ("lm-eval", "inspect"):
        out[harness] = tmp_path / harness
        result = invoke(export, [harness, record, "--root", str(REPO), "--data-dir", str(data), "-o",
                                 str(out[harness])])
        assert result.exit_code == 0, result.stderr
    done = subprocess.run([tool("lm_eval"), "--model", "dummy", "--include_path", str(out["lm-eval"]), "--tasks",
                           f"clinreg_{record}", "--output_path", str(tmp_path / "results"), "--log_samples"],
                          env=harness_env, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    (samples_file,) = (tmp_path / "results").rglob(f"samples_clinreg_{record}_*.jsonl")
    recorded = {}
    for line in samples_file.read_text().splitlines():
        entry = json.loads(line)
        recorded[entry["doc"]["id"]] = entry["filtered_resps"][0]
    return out, samples_file, recorded


def _imported(tmp_path):
    """`clinreg results import` of the lm-eval results and the Inspect logs that judged them: the results file, and
    the model lm-eval ran."""
    from clinreg.cli.main import main

    imported = tmp_path / "imported.json"
    result = invoke(main, ["results", "import", str(tmp_path / "results"), str(tmp_path / "logs"),
                           "--root", str(REPO), "-o", str(imported)])
    assert result.exit_code == 0, result.output
    model = json.loads(next((tmp_path / "results").rglob("results_*.json")).read_text())["config"]["model"]
    return json.loads(imported.read_text()), model


def test_an_lm_eval_run_of_a_jury_benchmark_is_judged_from_its_samples_file(harness_env, tmp_path):
    out, samples_file, recorded = _lm_eval_run("aci_bench", harness_env, tmp_path)
    judged = subprocess.run([sys.executable, "-c", SCRIPT, str(out["inspect"]), str(tmp_path / "logs"),
                             str(samples_file), str(len(recorded))],
                            env=harness_env, capture_output=True, text=True, timeout=900)
    assert judged.returncode == 0, judged.stderr[-3000:]
    log = json.loads(judged.stdout.strip().splitlines()[-1])
    assert log["status"] == "success" and log["task"] == "clinreg_aci_bench_lm_eval_judged"
    assert log["metadata"]["judged_lm_eval_samples"]["file"] == samples_file.name
    # Each sample is the response lm-eval recorded, judged by the record's jury.
    assert {sid: completion for sid, (completion, _) in log["samples"].items()} == recorded
    assert all(value == pytest.approx(4.0) for _, value in log["samples"].values())
    assert log["scores"]["jury"]["jury_mean"] == pytest.approx(4.0)
    # `clinreg results import` joins the jury score to the lm-eval run: the lm-eval model, the jury's rubric and
    # judges, and the samples file judged; lm-eval's own token F1 stays a stand-in beside it.
    doc, model = _imported(tmp_path)
    (score,) = [s for s in doc["scores"] if s["record"] == "aci_bench"]
    assert (score["model"], score["value"]) == (model, pytest.approx(4.0))
    assert score["source"]["judged_lm_eval"]["file"] == samples_file.name
    assert score["jury"]["rubric"].startswith("clinreg:aci_bench/")
    assert sorted(score["jury"]["judges"]) == ["claude", "gpt", "llama"]
    assert [s["model"] for s in doc["stand_ins"]] == [model]


RUBRIC_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
import inspect_ai, clinreg_tasks as t
from inspect_ai.log import ModelEvent, resolve_sample_attachments
from inspect_ai.model import ModelOutput, ModelUsage, get_model
met = '{"explanation": "It does.", "criteria_met": true}'
outputs = [ModelOutput.from_content(model="mockllm/model", content=met) for _ in range(int(sys.argv[4]))]
for output in outputs:  # usage given, so the mock counts no tokens
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
grader = get_model("mockllm/model", custom_outputs=outputs)
[log] = inspect_ai.eval(t.clinreg_lm_eval_judged(samples_file=sys.argv[3], grader_template=sys.argv[5]),
                        model="none", model_roles={"grader": grader}, log_dir=sys.argv[2], display="none",
                        max_samples=1)
if log.results is None:
    raise SystemExit(str(log.error)[-3000:])
prompts = {}
for s in log.samples:
    s = resolve_sample_attachments(s)
    prompts[s.id] = [e.input[-1].text for e in s.events if isinstance(e, ModelEvent)]
print(json.dumps({"status": log.status, "scores": {s.name: {k: m.value for k, m in s.metrics.items()}
                                                   for s in log.results.scores},
                  "samples": {s.id: [s.output.completion, s.scores["rubric_grader"].value] for s in log.samples},
                  "prompts": prompts}))
"""


def test_an_lm_eval_run_of_healthbench_is_graded_on_the_conversations_turns(harness_env, tmp_path):
    """The grader reads each conversation as simple-evals' grader does, `role: content` turns once each (the
    record's system message first), and lm-eval's recorded response last: never the one flattened text lm-eval
    sent, whose role prefixes the grader's own would double (`user: user: ...`)."""
    from clinreg.scoring import medhelm as scoring
    from distributions.health_bench import ROWS

    out, samples_file, recorded = _lm_eval_run("health_bench", harness_env, tmp_path)
    template = tmp_path / "healthbench_eval.py"  # a stand-in with simple-evals' two placeholders
    template.write_text('GRADER_TEMPLATE = "Conversation:\\n<<conversation>>\\nItem: <<rubric_item>>"\n',
                        encoding="utf-8")
    criteria = sum(len(row["rubrics"]) for row in ROWS)
    judged = subprocess.run([sys.executable, "-c", RUBRIC_SCRIPT, str(out["inspect"]), str(tmp_path / "logs"),
                             str(samples_file), str(criteria), str(template)],
                            env=harness_env, capture_output=True, text=True, timeout=900)
    assert judged.returncode == 0, judged.stderr[-3000:]
    log = json.loads(judged.stdout.strip().splitlines()[-1])
    assert log["status"] == "success"
    assert {sid: completion for sid, (completion, _) in log["samples"].items()} == recorded
    instructions = "You are a helpful assistant."  # the record's generation instructions
    text = scoring.grader_template(template)
    for n, row in enumerate(ROWS):
        sid = f"health_bench/health_bench/test/{n}"
        turns = scoring.rubric_graded_turns(scoring.rubric_sent_turns(instructions, row["prompt"]), recorded[sid])
        assert log["prompts"][sid] == [scoring.rubric_grader_prompt(text, turns, r["criterion"], r["points"])
                                       for r in row["rubrics"]]
        assert not any("user: user:" in p for p in log["prompts"][sid])
    assert log["scores"]["rubric_grader"][scoring.HEALTHBENCH_METRIC] == pytest.approx(2.2 / 3)
    # Imported as the lm-eval model's HealthBench score, under the authors' metric name.
    doc, model = _imported(tmp_path)
    (score,) = [s for s in doc["scores"] if s["record"] == "health_bench"]
    assert (score["model"], score["metric"]) == (model, scoring.HEALTHBENCH_METRIC)
    assert score["value"] == pytest.approx(2.2 / 3)
    assert score["source"]["judged_lm_eval"]["file"] == samples_file.name
