"""The HELM export of HealthBench run beside medhelm 0.8.0's own run spec, scenario, annotator and metric.

Needs a Python whose `helm` is medhelm 0.8.0's (medhelm ships its own helm package): CLINREG_MEDHELM_PYTHON, else
the running interpreter when its helm has medhelm's HealthBench annotator. The judges are a scripted client that
answers each criterion by a rule of its own (some replies unreadable), the same for clinreg's instances and for
medhelm's: the scores must be equal, and so must the prompts the judges read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from click.testing import CliRunner

from clinreg.cli.export import export

from .support import REPO, distribution_mirror, need

pytestmark = pytest.mark.interop

SCRIPT = r"""
import json, os, sys, zlib
from types import SimpleNamespace as NS
export_dir, data_file, work = sys.argv[1:4]
sys.path.insert(0, export_dir)
import clinreg_helm as ours
from helm.benchmark.annotation.health_bench_annotator import HealthBenchAnnotator
from helm.benchmark.metrics.llm_jury_metrics import LLMJuryMetric
from helm.benchmark.run_specs.medhelm_run_specs import get_health_bench_run_spec
from helm.benchmark.scenarios.health_bench_scenario import HealthBenchScenario

mapping = next(iter(ours.MAPPINGS))
spec, theirs = ours.get_clinreg_spec(mapping), get_health_bench_run_spec()
keys = ("method", "instructions", "input_prefix", "input_suffix", "output_prefix", "output_suffix", "max_tokens",
        "temperature", "stop_sequences", "num_outputs", "max_train_instances")
adapter = {k: [getattr(spec.adapter_spec, k), getattr(theirs.adapter_spec, k)] for k in keys}
models = {n: [m.model_name, m.model_deployment] for n, m in spec.annotators[0].args["annotator_models"].items()}
their_models = {n: [m.model_name, m.model_deployment] for n, m in theirs.annotators[0].args["annotator_models"].items()}

os.makedirs(work, exist_ok=True)
scenario_dir = os.path.join(work, "medhelm")
os.makedirs(scenario_dir, exist_ok=True)
target = os.path.join(scenario_dir, HealthBenchScenario.FILENAME)
with open(data_file, encoding="utf-8") as src, open(target, "w", encoding="utf-8") as dst:
    dst.write(src.read())  # medhelm's scenario reads the file it would download, already in place
their_instances = HealthBenchScenario().get_instances(scenario_dir)
our_instances = ours.ClinregJsonlScenario(**spec.scenario_spec.args).get_instances(work)

class Client:
    def __init__(self):
        self.prompts = []
    def make_request(self, request):
        self.prompts.append(request.prompt)
        # by the whole prompt (the conversation and the rubric item sit in its middle): replies differ by criterion
        key = zlib.crc32((request.model_deployment + request.prompt).encode()) % 4
        text = ['{"explanation": "x", "criteria_met": true}', '{"explanation": "x", "criteria_met": false}',
                "I cannot tell.", '```json\n{"explanation": "x", "criteria_met": "TRUE"}\n```'][key]
        return NS(success=True, completions=[NS(text=text)], error=None)

def score(instances, run_spec, response):
    client = Client()
    annotator_args = run_spec.annotators[0].args
    annotator = HealthBenchAnnotator(auto_client=client, **annotator_args)
    metric = LLMJuryMetric(**run_spec.metric_specs[0].args)
    values = []
    for instance in instances:
        state = NS(result=NS(completions=[NS(text=response)]), instance=instance)
        annotations = {"health_bench": annotator.annotate(state)}
        [stat] = metric.evaluate_generation(run_spec.adapter_spec, NS(annotations=annotations), None, None)
        values.append([stat.name.name, stat.sum / stat.count])
    return values, client.prompts

ours_scores, our_prompts = score(our_instances, spec, "Call emergency services now.")
their_scores, their_prompts = score(their_instances, theirs, "Call emergency services now.")
print(json.dumps({"adapter": adapter, "models": [models, their_models], "scores": [ours_scores, their_scores],
                  "prompts": [our_prompts, their_prompts],
                  "messages": [[i.input.messages for i in our_instances],
                               [i.input.messages for i in their_instances]]}))
"""


def _medhelm_python() -> str:
    given = os.environ.get("CLINREG_MEDHELM_PYTHON")
    if given:
        return given
    probe = subprocess.run([sys.executable, "-c", "import helm.benchmark.annotation.health_bench_annotator"],
                           capture_output=True)
    need(probe.returncode == 0, "no Python with medhelm 0.8.0's helm (set CLINREG_MEDHELM_PYTHON)")
    return sys.executable


def test_the_helm_export_of_health_bench_scores_as_medhelm_does(tmp_path, harness_env):
    python = _medhelm_python()
    data = distribution_mirror(tmp_path / "data", ["health_bench"])
    out = tmp_path / "export"
    result = CliRunner().invoke(export, ["helm", "health_bench", "--root", str(REPO), "--data-dir", str(data),
                                         "-o", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    [data_file] = list((data / "health_bench").rglob("*.jsonl"))
    run = subprocess.run([python, "-c", SCRIPT, str(out), str(data_file), str(tmp_path / "work")], env=harness_env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    for key, (ours, theirs) in found["adapter"].items():
        assert ours == theirs, key  # chat adapter, MedHELM's instructions, tokens, temperature, stops, outputs
    assert found["models"][0] == found["models"][1] and len(found["models"][0]) == 3  # judges.yaml's three
    assert found["messages"][0] == found["messages"][1]  # the conversation as the scenario gives it
    ours, theirs = found["prompts"]
    assert ours == theirs and not any("user: user:" in p for p in ours)
    assert found["scores"][0] == found["scores"][1]
    assert len({value for _, value in found["scores"][0]}) > 1  # the scripted judges tell the instances apart
    assert {name for name, _ in found["scores"][0]} == {"health_bench_score"}
