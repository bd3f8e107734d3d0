"""Interop tests run the real harnesses; they need lm-eval and inspect-ai (installed by .ci/run in a venv of their own).

Without them the tests skip, unless CLINREG_REQUIRE_INTEROP=1 (set by .ci/run), which turns a missing piece
into a failure so that CI can never pass by skipping.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clirunner import invoke

from clinreg.cli.build import build
from clinreg.cli.export import export

from .support import DATASETS, REALDATA, REPO


@pytest.fixture(scope="session")
def harness_env(tmp_path_factory) -> dict[str, str]:
    """Environment for harness subprocesses: offline, every cache and log in a temp folder."""
    base = tmp_path_factory.mktemp("harness-home")
    env = dict(os.environ)
    env.update({
        "HOME": str(base / "home"),
        "HF_HOME": str(base / "hf"),
        "HF_DATASETS_CACHE": str(base / "hf-datasets"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "INSPECT_LOG_DIR": str(base / "inspect-logs"),
        "XDG_CACHE_HOME": str(base / "xdg"),
        "XDG_DATA_HOME": str(base / "xdg-data"),
        "NO_COLOR": "1",
    })
    return env


@pytest.fixture(scope="session")
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip(f"{REALDATA} is absent")
    return REALDATA


@pytest.fixture(scope="session")
def built(realdata) -> dict[str, dict[str, dict]]:
    """`clinreg build` of each test dataset, read back: {dataset: {instance id: instance}}."""
    out = {}
    for dataset in DATASETS:
        result = invoke(build, [dataset, "--root", str(REPO), "--data-dir", str(realdata), "--quiet"])
        assert result.exit_code == 0, result.stderr
        rows = [json.loads(line) for line in result.stdout.splitlines()]
        out[dataset] = {row["id"]: row for row in rows}
    return out


def exported(harness: str, base: Path, realdata: Path) -> Path:
    target = base / harness
    result = invoke(export, [harness, *DATASETS, "--root", str(REPO), "--data-dir", str(realdata), "-o",
                             str(target)])
    assert result.exit_code == 0, result.stderr
    return target
