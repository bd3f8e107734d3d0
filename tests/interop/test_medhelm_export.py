"""medhelm 0.8.0 runs `clinreg export medhelm` as its README says, and its run imports back into clinreg.

Needs a Python with medhelm 0.8.0 installed (it ships its own `helm` package and the `medhelm-run` command):
CLINREG_MEDHELM_PYTHON, which .ci/run sets. Without it the tests skip, unless CLINREG_REQUIRE_INTEROP=1.
The closed record runs end to end on HELM's offline `simple/model1`; the jury record's config is loaded by
medhelm's own run spec function, scenario and jury annotator (its judges are not called).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml
from clirunner import invoke

from clinreg.cli.export import export
from clinreg.cli.main import main
from clinreg.core.store import load_registry

from .support import REPO, distribution_mirror, need

pytestmark = pytest.mark.interop

LIMIT = 4

LOAD = r"""
import json, sys
from types import SimpleNamespace as NS
from helm.benchmark.annotation.model_as_judge import LLMAsJuryAnnotator
from helm.benchmark.run_specs.medhelm_run_specs import get_medhelm_configurable_benchmark_spec
from helm.benchmark.scenarios.medhelm_configurable_scenario import MedHELMConfigurableScenario
config = sys.argv[1]
spec = get_medhelm_configurable_benchmark_spec(config_path=config)
instances = MedHELMConfigurableScenario(name=spec.name, config_path=config).get_instances("unused")
args = spec.annotators[0].args
annotator = LLMAsJuryAnnotator(auto_client=None, **args)
state = NS(instance=instances[0], result=NS(completions=[NS(text="A plan. $5")]))
print(json.dumps({"name": spec.name, "groups": spec.groups, "max_tokens": spec.adapter_spec.max_tokens,
                  "metrics": [m.class_name for m in spec.metric_specs], "criteria": args["annotation_criteria"],
                  "judges": {k: [v.model_name, v.model_deployment] for k, v in args["annotator_models"].items()},
                  "prompts": [i.input.text for i in instances],
                  "golds": [i.references[0].output.text for i in instances],
                  "judge_prompt": annotator._interpolate_prompt(state)}))
"""


def _medhelm_python() -> str:
    given = os.environ.get("CLINREG_MEDHELM_PYTHON", "")
    need(bool(given) and Path(given).is_file(), "CLINREG_MEDHELM_PYTHON names no Python with medhelm 0.8.0")
    probe = subprocess.run([given, "-c", "import helm.benchmark.scenarios.medhelm_configurable_scenario"],
                           capture_output=True)
    need(probe.returncode == 0, f"{given} has no medhelm 0.8.0 (its configurable scenario does not import)")
    return given


def _export(record: str, base: Path) -> tuple[Path, list[dict]]:
    data = distribution_mirror(base / "mirror", [record])
    out = base / "export"
    result = invoke(export, ["medhelm", record, "--root", str(REPO), "--data-dir", str(data), "--limit", str(LIMIT),
                             "-o", str(out)])
    assert result.exit_code == 0, result.output
    built = invoke(main, ["build", record, "--root", str(REPO), "--data-dir", str(data), "--limit", str(LIMIT), "-q"])
    return out, [json.loads(line) for line in built.stdout.splitlines()]


def _run_readme(out: Path, python: str, env: dict[str, str]) -> tuple[Path, list[str]]:
    """The README's medhelm-run and helm-summarize, from the folder it names, on simple/model1; the run folder and
    the import command."""
    text = (out / "README.md").read_text(encoding="utf-8")
    commands = [line for line in text.split("```\n", 1)[1].split("```", 1)[0].splitlines() if line.strip()]
    assert commands[0] == f"cd {out.resolve()}" and commands[1].startswith("medhelm-run ")
    assert commands[2] == "helm-summarize --suite clinreg --auto-generate-schema"
    for command in commands[1:3]:
        argv = shlex.split(command.replace("MODEL", "simple/model1"))
        argv[0] = str(Path(python).parent / argv[0])
        done = subprocess.run(argv, cwd=out, env=env, capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [run] = [p for p in (out / "benchmark_output" / "runs" / "clinreg").iterdir() if (p / "run_spec.json").is_file()]
    return run, shlex.split(commands[3])


def test_a_closed_record_runs_in_medhelm_and_its_score_imports_back(tmp_path, harness_env):
    python = _medhelm_python()
    out, built = _export("med_qa", tmp_path)
    run, argv = _run_readme(out, python, harness_env)
    spec = json.loads((run / "run_spec.json").read_text())
    assert spec["groups"] == ["med_qa"] and spec["adapter_spec"]["max_tokens"] == 1
    states = json.loads((run / "scenario_state.json").read_text())["request_states"]
    assert sorted(s["request"]["prompt"].rstrip("\n") for s in states) == sorted(b["prompt"] for b in built)
    assert argv[:3] == ["clinreg", "results", "import"]
    result = invoke(main, ["results", "import", str(out / argv[3]), "--root", str(REPO), "-o",
                           str(tmp_path / "results.json")])
    assert result.exit_code == 0, result.output
    [score] = json.loads((tmp_path / "results.json").read_text())["scores"]
    assert (score["record"], score["mapping"], score["metric"]) == ("med_qa", "med_qa", "exact_match")
    assert score["model"] == "simple/model1" and score["n_instances"] == len(built)
    assert score["provenance"]["harness"] == "medhelm-config" and 0 <= score["value"] <= 1


def test_a_jury_records_config_loads_in_medhelms_own_loader(tmp_path, harness_env):
    python = _medhelm_python()
    out, built = _export("aci_bench", tmp_path)
    config = json.loads((out / "manifest.json").read_text())
    done = subprocess.run([python, "-c", LOAD, f"{config['name']}.yaml"], cwd=out, env=harness_env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["name"] == "aci_bench" and found["groups"] == ["aci_bench"]
    assert found["metrics"][0] == "helm.benchmark.metrics.llm_jury_metrics.LLMJuryMetric"
    axes = load_registry(REPO).datasets["aci_bench"].mappings[0].scoring.jury.axes
    assert found["criteria"] == {axis.id: ["score", "explanation"] for axis in axes}
    assert sorted(v[0] for v in found["judges"].values()) == sorted(j["model_name"] for j in config["judges"])
    # MedHELM's instructions, then each instance's prompt exactly as clinreg builds it, with its gold
    assert sorted(found["golds"]) == sorted(b["gold"]["value"] for b in built)
    assert all(any(p.endswith("\n\n" + b["prompt"]) for b in built) for p in found["prompts"])
    assert found["prompts"][0] in found["judge_prompt"] and "A plan. $5" in found["judge_prompt"]
    assert "{QUESTION}" not in found["judge_prompt"] and "<rubric_criteria>" in found["judge_prompt"]


def test_a_jury_records_run_imports_beside_the_records_metric(tmp_path, harness_env):
    """medhelm's jury_score, from a real run, comes back with its instance count beside the record's own jury
    metric, never as it. Offline, HELM's simple/model1 stands in for the judges: its replies hold no JSON, so
    medhelm's metric gives its default; the score's value is not what this checks."""
    python = _medhelm_python()
    out, built = _export("medication_qa", tmp_path)
    path = out / "medication_qa.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["metrics"][0]["judges"] = [{"name": "simple/model1", "model_name": "simple/model1"}]
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    run, argv = _run_readme(out, python, harness_env)
    assert json.loads((run / "run_spec.json").read_text())["groups"] == ["medication_qa"]
    result = invoke(main, ["results", "import", str(out / argv[3]), "--root", str(REPO), "-o",
                           str(tmp_path / "results.json")])
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "results.json").read_text())
    assert document["scores"] == []
    [beside] = document["stand_ins"]
    own = load_registry(REPO).datasets["medication_qa"].mappings[0].metric.name
    assert (beside["record"], beside["metric"], beside["stands_in_for"]) == ("medication_qa", "jury_score", own)
    assert beside["n_instances"] == len(built) and beside["harness"] == "medhelm-config"
    board = invoke(main, ["leaderboard", str(tmp_path / "results.json"), "--root", str(REPO), "--format", "json"])
    assert board.exit_code == 0, board.output
    [marked] = json.loads(board.stdout)["data"]["beside"]
    assert marked["metric"] == "jury_score" and marked["ranked"] is False and marked["n_instances"] == len(built)
