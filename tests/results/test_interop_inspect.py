"""End to end: `clinreg export inspect`, the real Inspect AI on its mock model, then `clinreg results import`.

Needs inspect_ai, the `export` command (the interop branch) and ../shared/realdata; skips without them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import REALDATA
from results.helpers import ROOT, invoke

RUNNER = """
import sys, tiktoken
class Words:  # offline: Inspect counts tokens with a BPE file it would otherwise download
    def encode(self, text, **kw):
        return text.split()
tiktoken.get_encoding = lambda name: Words()
sys.path.insert(0, sys.argv[1])
import inspect_ai, clinreg_tasks as t
logs = inspect_ai.eval([t.clinreg_med_qa()], model="mockllm/model", log_dir=sys.argv[2], display="none")
assert logs[0].status == "success", logs[0].error
"""


def test_inspect_logs_of_an_export_import_as_the_main_metric(tmp_path):
    pytest.importorskip("inspect_ai")
    if invoke("export", "--help").exit_code != 0:
        pytest.skip("this clinreg has no export command")
    if not (REALDATA / "GBaker__MedQA-USMLE-4-options").exists():
        pytest.skip("../shared/realdata is not here")
    out = tmp_path / "export"
    result = invoke("export", "inspect", "med_qa", "--root", ROOT, "--data-dir", REALDATA, "--limit", "5", "-o", out)
    assert result.exit_code == 0, result.output
    env = {**os.environ, "HOME": str(tmp_path / "home"), "INSPECT_LOG_DIR": str(tmp_path / "logs")}
    subprocess.run([sys.executable, "-c", RUNNER, str(out), str(tmp_path / "logs")], check=True, env=env,
                   cwd=tmp_path, timeout=300)
    (log,) = (tmp_path / "logs").glob("*.eval")
    imported = invoke("results", "import", "--root", ROOT, log)
    assert imported.exit_code == 0, imported.output
    (score,) = json.loads(imported.stdout)["scores"]
    assert (score["model"], score["mapping"], score["metric"], score["n_instances"]) == \
        ("mockllm/model", "med_qa", "exact_match", 5)
    assert score["per_instance"]["binary"] is True
