"""HealthBench builds, exports and scores through the real Inspect AI with a mock grader, as simple-evals grades it.

The conversations are the as-distributed fixture's (tests/distributions/health_bench.py): the first has the
criteria [+10] and [-8], the second [+5] and three turns, the third [+6] and a system turn of its own. A grader that
says every criterion is met gives (10 - 8) / 10 = 0.2, 5 / 5 = 1.0 and 6 / 6 = 1.0, a clipped mean of 2.2 / 3. The
grader template is read from the medhelm 0.8.0 wheel (CLINREG_MEDHELM_WHEEL), whose annotator holds simple-evals' text.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from clirunner import invoke

from clinreg.cli.export import export
from clinreg.scoring import medhelm as scoring

from .support import REPO, distribution_mirror, have, need

pytestmark = pytest.mark.interop

SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
import inspect_ai, clinreg_tasks as t
from inspect_ai.log import ModelEvent, resolve_sample_attachments
from inspect_ai.model import ModelOutput, ModelUsage, get_model

def outputs(texts):
    made = [ModelOutput.from_content(model="mockllm/model", content=text) for text in texts]
    for output in made:  # usage given, so the mock counts no tokens
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return made

grader = get_model("mockllm/grader", custom_outputs=outputs(json.loads(sys.argv[3])))
model = get_model("mockllm/model", custom_outputs=outputs(["Call emergency services now.", "Pneumonia, amoxicillin.",
                                                          "Any fever or stiff neck?"]))
[log] = inspect_ai.eval(t.clinreg_health_bench(grader_template=sys.argv[4]), model=model,
                        model_roles={"grader": grader}, log_dir=sys.argv[2], display="none", max_samples=1)
if log.results is None: raise SystemExit(str(log.error)[-3000:])
scores = {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}
samples, sent, graded = {}, {}, []
for s in log.samples:
    s = resolve_sample_attachments(s)
    samples[s.id] = s.scores["rubric_grader"].value
    sent[s.id] = [[m.role, m.text] for m in s.messages]
    for e in s.events:
        if isinstance(e, ModelEvent) and e.model == "mockllm/grader":
            graded.append({"temperature": e.config.temperature, "max_tokens": e.config.max_tokens,
                           "roles": [m.role for m in e.input], "system": e.input[0].text, "prompt": e.input[-1].text})
print(json.dumps({"status": log.status, "scores": scores, "samples": samples, "sent": sent, "graded": graded,
                  "task_metadata": log.eval.metadata}))
"""
MET = '```json\n{"explanation": "It does.", "criteria_met": true}\n```'


@pytest.fixture(scope="module")
def wheel():
    path = os.environ.get("CLINREG_MEDHELM_WHEEL")
    need(bool(path) and os.path.isfile(path), "the medhelm 0.8.0 wheel (CLINREG_MEDHELM_WHEEL) is not here")
    return path


@pytest.fixture(scope="module")
def health_bench_export(tmp_path_factory):
    need(have("inspect_ai"), "inspect_ai is not installed")
    base = tmp_path_factory.mktemp("rubric")
    data = distribution_mirror(base / "data", ["health_bench"])
    result = invoke(export, ["inspect", "health_bench", "--root", str(REPO), "--data-dir", str(data),
                             "-o", str(base / "export")])
    assert result.exit_code == 0, result.stderr
    return base / "export"


def _run(export_dir, tmp_path, replies, env, wheel):
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(export_dir), str(tmp_path / "logs"), json.dumps(replies),
                             wheel], env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_health_bench_scores_as_simple_evals_with_its_grader_settings(health_bench_export, harness_env, tmp_path,
                                                                       wheel):
    out = _run(health_bench_export, tmp_path, [MET] * 4, harness_env, wheel)
    assert out["status"] == "success"
    assert out["samples"] == {"health_bench/health_bench/test/0": pytest.approx(0.2),
                              "health_bench/health_bench/test/1": pytest.approx(1.0),
                              "health_bench/health_bench/test/2": pytest.approx(1.0)}
    stats = out["scores"]["rubric_grader"]
    assert stats[scoring.HEALTHBENCH_METRIC] == pytest.approx(2.2 / 3)
    assert stats[scoring.HEALTHBENCH_METRIC + ":n_samples"] == 3
    assert stats[scoring.HEALTHBENCH_METRIC + ":bootstrap_std"] > 0
    assert stats["theme:emergency_referrals"] == pytest.approx(0.2) and stats["axis:completeness"] == 1.0
    assert (stats["instances_ungraded"], stats["criteria_ungraded"]) == (0, 0)
    assert "health_bench_score" not in stats  # MedHELM's name, another computation
    # The multi-turn conversation goes as chat messages, after the record's system message.
    assert out["sent"]["health_bench/health_bench/test/1"] == [
        ["system", "You are a helpful assistant."], ["user", "Summarise this discharge note for the GP."],
        ["assistant", "Please paste the note."],
        ["user", "Admitted with community-acquired pneumonia, treated with amoxicillin, discharged on day 4."],
        ["assistant", "Pneumonia, amoxicillin."]]
    # A conversation with a system turn of its own: the record's system message goes first, as simple-evals'
    # sampler sends its own (rubric_sent_turns, checked against simple-evals' code in tests/scoring).
    prompt = [{"role": "system", "content": "You answer for a clinic's nurse line."},
              {"role": "user", "content": "I have had a mild headache since this morning. Do I need to be seen today?"}]
    sent = scoring.rubric_graded_turns(scoring.rubric_sent_turns("You are a helpful assistant.", prompt),
                                       "Any fever or stiff neck?")
    assert out["sent"]["health_bench/health_bench/test/2"] == [[t["role"], t["content"]] for t in sent]
    # The grader: simple-evals' settings and system message; its prompt is the template filled as simple-evals fills it.
    assert len(out["graded"]) == 4
    template = scoring.grader_template(wheel)
    for call in out["graded"]:
        assert (call["temperature"], call["max_tokens"], call["roles"]) == (0.5, 2048, ["system", "user"])
        assert call["system"] == "You are a helpful assistant."
    turns = [{"role": r, "content": c} for r, c in out["sent"]["health_bench/health_bench/test/1"]]
    assert out["graded"][2]["prompt"] == scoring.rubric_grader_prompt(
        template, turns, "States the diagnosis and the antibiotic given.", 5)
    assert out["graded"][3]["prompt"] == scoring.rubric_grader_prompt(
        template, sent, "Asks about red-flag symptoms such as fever or a stiff neck.", 6)
    assert out["task_metadata"]["scoring"]["rubric"]["grader"]["model"] == "openai/gpt-4.1-2025-04-14"


def test_an_unreadable_reply_is_asked_again(health_bench_export, harness_env, tmp_path, wheel):
    out = _run(health_bench_export, tmp_path, ["I cannot tell.", "```JSON\n{}\n```", MET] * 4, harness_env, wheel)
    assert out["scores"]["rubric_grader"][scoring.HEALTHBENCH_METRIC] == pytest.approx(2.2 / 3)
    assert len(out["graded"]) == 12


def test_replies_unread_after_the_bound_leave_the_samples_ungraded_never_not_met(health_bench_export, harness_env,
                                                                               tmp_path, wheel):
    out = _run(health_bench_export, tmp_path, ["I cannot tell."] * (4 * scoring.GRADER_ATTEMPTS), harness_env, wheel)
    stats = out["scores"]["rubric_grader"]
    assert (stats["instances_ungraded"], stats["criteria_ungraded"]) == (3, 4)
    assert math.isnan(stats[scoring.HEALTHBENCH_METRIC])
    assert len(out["graded"]) == 4 * scoring.GRADER_ATTEMPTS
