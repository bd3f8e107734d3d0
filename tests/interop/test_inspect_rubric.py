"""HealthBench builds, exports and scores through the real Inspect AI with a mock grader, to values worked by hand.

The conversations are the as-distributed fixture's (tests/distributions/health_bench.py): the first has the
criteria [+10] and [-8], the second [+5]. A grader that says every criterion is met gives (10 - 8) / 10 = 0.2 and
5 / 5 = 1.0, a mean of 0.6; a grader whose replies cannot be read leaves every criterion ungraded (not met): 0.0.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from clirunner import invoke

from clinreg.cli.export import export

from .support import REPO, distribution_mirror, have, need

pytestmark = pytest.mark.interop

SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
import inspect_ai, clinreg_tasks as t
from inspect_ai.model import ModelOutput, get_model
reply = sys.argv[3]
grader = get_model("mockllm/model", custom_outputs=[ModelOutput.from_content(model="mockllm/model", content=reply)
                                                    for _ in range(3)])
[log] = inspect_ai.eval(t.clinreg_health_bench(), model="mockllm/model", model_roles={"grader": grader},
                        log_dir=sys.argv[2], display="none", max_samples=1)
if log.results is None: raise SystemExit(str(log.error)[-3000:])
scores = {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}
samples = {s.id: s.scores["rubric_grader"].value for s in log.samples}
print(json.dumps({"status": log.status, "scores": scores, "samples": samples}))
"""


@pytest.fixture(scope="module")
def health_bench_export(tmp_path_factory):
    need(have("inspect_ai"), "inspect_ai is not installed")
    base = tmp_path_factory.mktemp("rubric")
    data = distribution_mirror(base / "data", ["health_bench"])
    result = invoke(export, ["inspect", "health_bench", "--root", str(REPO), "--data-dir", str(data),
                             "-o", str(base / "export")])
    assert result.exit_code == 0, result.stderr
    return base / "export"


def _run(export_dir, tmp_path, reply, env):
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(export_dir), str(tmp_path / "logs"), reply],
                            env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_health_bench_scores_the_hand_worked_value_with_a_grader_that_says_met(health_bench_export, harness_env,
                                                                               tmp_path):
    out = _run(health_bench_export, tmp_path, '```json\n{"explanation": "It does.", "criteria_met": true}\n```',
               harness_env)
    assert out["status"] == "success"
    assert out["samples"] == {"health_bench/health_bench/test/0": pytest.approx(0.2),
                              "health_bench/health_bench/test/1": pytest.approx(1.0)}
    assert out["scores"]["rubric_grader"]["rubric_clipped_mean"] == pytest.approx(0.6)
    assert out["scores"]["rubric_grader"]["criteria_ungraded"] == 0
    assert "reference_overlap" in out["scores"]


def test_unreadable_grader_replies_count_as_not_met_and_are_counted(health_bench_export, harness_env, tmp_path):
    out = _run(health_bench_export, tmp_path, "I cannot tell.", harness_env)
    assert out["scores"]["rubric_grader"]["rubric_clipped_mean"] == 0.0
    assert out["scores"]["rubric_grader"]["criteria_ungraded"] == 3
