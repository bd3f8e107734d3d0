"""Shared fixtures: keep every cache out of $HOME, and give tests small registry trees."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from trees import write_tree  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
REALDATA = REPO.parent / "shared" / "realdata"

# Set before any test module is collected: huggingface_hub and datasets read these when first imported.
_CACHE = Path(tempfile.mkdtemp(prefix="clinreg-test-cache-"))
os.environ.update({
    "HF_HOME": str(_CACHE / "hf"),
    "HF_DATASETS_CACHE": str(_CACHE / "datasets"),
    "HF_HUB_CACHE": str(_CACHE / "hub"),
    "XDG_CACHE_HOME": str(_CACHE / "xdg"),
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
})
# Settings of the shell that started the suite which change what clinreg prints: the tests that need one set it.
for _name in ("CLINREG_DEBUG", "CLINREG_HELM_JUDGES", "COLUMNS", "LINES", "FORCE_COLOR", "CLICOLOR_FORCE"):
    os.environ.pop(_name, None)


# Bytecode. Where writing it is turned off (PYTHONDONTWRITEBYTECODE=1, as in .ci/run and this workplace), every
# process the suite starts (each xdist worker, and each of the hundreds of `clinreg` subprocesses) compiled
# pydantic, click, datasets and pyarrow's Python from source again: `import datasets` took 3.1 s instead of
# 1.4. So the tests keep bytecode in one temp folder for the whole run, shared by every process they start,
# and write none beside the sources, which is what the setting asks for. Where bytecode is written anyway,
# nothing changes.
_PYCACHE_OWNER = None
if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    _PYCACHE_OWNER = os.getpid()
    _prefix = tempfile.mkdtemp(prefix="clinreg-test-pycache-")
    os.environ.pop("PYTHONDONTWRITEBYTECODE")
    os.environ["PYTHONPYCACHEPREFIX"] = _prefix
    sys.dont_write_bytecode = False
    sys.pycache_prefix = _prefix


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE, ignore_errors=True)


def pytest_unconfigure(config):
    if _PYCACHE_OWNER == os.getpid():  # the process that made the folder (xdist's controller), last to finish
        sys.dont_write_bytecode = True  # or the modules pytest still imports would write the folder again
        shutil.rmtree(os.environ["PYTHONPYCACHEPREFIX"], ignore_errors=True)


@pytest.fixture
def tree(tmp_path) -> Path:
    """A small valid registry tree in tmp_path."""
    return write_tree(tmp_path / "reg")


@pytest.fixture(scope="session")
def chromium():
    """The headless Chromium the browser tests drive (skips them when there is none)."""
    from reports.helpers import find_chromium

    found = find_chromium()
    if found is None:
        pytest.skip("headless Chromium not found (chromium on PATH or /usr/bin/chromium)")
    return found
