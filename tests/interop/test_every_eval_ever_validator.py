"""Every Eval Ever's own validator (`every_eval_ever validate`, the every-eval-ever 0.3.0 wheel named by
CLINREG_EEE_WHEEL) on the records `clinreg results export --format every-eval-ever` writes for a results file
that spans every harness: the recorded Inspect (with a jury score), lm-eval and HELM outputs, and MedHELM's two
published releases.

The validator checks more than the JSON schema: its pydantic models, the datastore path
(`data/<benchmark>/<developer>/<model>/<uuid>.json`) and that the model id and the path agree. The wheel is read,
never installed (the package asks for Python 3.12); its validator needs pydantic, rich and requests, which the
interop venv has.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from clirunner import invoke

from clinreg.cli.main import main

from .support import REPO, have, need

pytestmark = pytest.mark.interop

DATA = REPO / "tests" / "results" / "data"


def test_every_eval_ever_validates_every_record_without_a_warning(tmp_path):
    wheel = os.environ.get("CLINREG_EEE_WHEEL")
    need(bool(wheel) and Path(wheel).is_file(), "CLINREG_EEE_WHEEL names no every-eval-ever 0.3.0 wheel")
    need(have("pydantic") and have("rich") and have("requests"), "the validator needs pydantic, rich and requests")
    need(have("zstandard") or sys.version_info >= (3, 14), "reading the recorded .eval log needs zstandard")
    unpacked = tmp_path / "every_eval_ever"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    results = tmp_path / "results.json"
    sources = [DATA / "harnesses" / "inspect", DATA / "harnesses" / "lm_eval", DATA / "helm" / "suite"]
    done = invoke(main, ["results", "import", *map(str, sources), "--root", str(REPO), "-o", str(results)])
    assert done.exit_code == 0, done.output
    out = tmp_path / "eee"
    done = invoke(main, ["results", "export", str(results), "medhelm-2025-05-04", "medhelm-2025-07-31",
                         "--root", str(REPO), "--format", "every-eval-ever", "-o", str(out)])
    assert done.exit_code == 0, done.output
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
    harnesses = {json.loads((out / f).read_text())["eval_library"]["name"] for f in files}
    assert harnesses == {"inspect_ai", "lm_eval", "helm"}
    checked = subprocess.run([sys.executable, "-m", "every_eval_ever", "validate", *files, "--format", "json"],
                             cwd=out, env={**os.environ, "PYTHONPATH": str(unpacked)}, capture_output=True, text=True,
                             timeout=600)
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    reports = json.loads(checked.stdout)
    assert len(reports) == len(files)
    assert [r for r in reports if not r["valid"] or r["errors"] or r["warnings"]] == []


def test_the_shipped_schema_and_licence_are_the_wheels_own_bytes():
    """The copies under src/clinreg/results/schemas/every_eval_ever/ against the every-eval-ever 0.3.0 wheel itself
    (the unit test compares them with the hashes their README states; this one with the package)."""
    wheel = os.environ.get("CLINREG_EEE_WHEEL")
    need(bool(wheel) and Path(wheel).is_file(), "CLINREG_EEE_WHEEL names no every-eval-ever 0.3.0 wheel")
    shipped = REPO / "src" / "clinreg" / "results" / "schemas" / "every_eval_ever"
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("every_eval_ever/schemas/eval.schema.json") == (shipped / "eval.schema.json").read_bytes()
        assert archive.read("every_eval_ever-0.3.0.dist-info/licenses/LICENSE") == (shipped / "LICENSE").read_bytes()
