"""Shared fixtures: keep every cache out of $HOME, and give tests small registry trees."""

from __future__ import annotations

import os
import shutil
import signal
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
    "XDG_CONFIG_HOME": str(_CACHE / "xdg-config"),
    "XDG_DATA_HOME": str(_CACHE / "xdg-data"),
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
})
# Settings of the shell that started the suite which change what clinreg prints or where it looks: the tests that
# need one set it. (CI's own CLINREG_REQUIRE_*, CLINREG_MEDHELM_WHEEL and CI stay: .ci/run sets them on purpose.)
for _name in ("CLINREG_DEBUG", "CLINREG_HELM_JUDGES", "CLINREG_DATA_DIR", "COLUMNS", "LINES", "FORCE_COLOR",
              "CLICOLOR_FORCE", "NO_COLOR", "HF_TOKEN", "HF_ENDPOINT"):
    os.environ.pop(_name, None)

# Signals as a terminal gives them, however the suite was started. A background job started without job control
# inherits SIGINT ignored (nohup: SIGHUP too), and every process the tests start would inherit that: a child the
# test means to stop with the signal would sleep on through it. Python turns an inherited SIG_IGN into no
# KeyboardInterrupt at all. Blocked signals are inherited the same way.
_SIGNALS = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
for _sig in _SIGNALS:
    if signal.getsignal(_sig) is signal.SIG_IGN:
        signal.signal(_sig, signal.default_int_handler if _sig == signal.SIGINT else signal.SIG_DFL)
if hasattr(signal, "pthread_sigmask"):
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(_SIGNALS))


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


# The default run's slow tests, by node id (a parametrized test's name alone marks every case of it): tests that
# took over 2 s each in a `--durations` run of their folder under load (see the file's head), listed there rather
# than marked in each file. `uv run pytest` leaves them out; `-m "slow or not slow"` (as .ci/run) runs them too.
SLOW_TESTS = Path(__file__).parent / "slow_tests.txt"


def slow_test_ids() -> set[str]:
    return {line.split("#", 1)[0].strip() for line in SLOW_TESTS.read_text(encoding="utf-8").splitlines()} - {""}


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_collection_modifyitems(config, items):
    slow = slow_test_ids()
    for item in items:
        if item.nodeid in slow or item.nodeid.split("[", 1)[0] in slow:
            item.add_marker(pytest.mark.slow)


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE, ignore_errors=True)


def pytest_unconfigure(config):
    if _PYCACHE_OWNER == os.getpid():  # the process that made the folder (xdist's controller), last to finish
        sys.dont_write_bytecode = True  # or the modules pytest still imports would write the folder again
        shutil.rmtree(os.environ["PYTHONPYCACHEPREFIX"], ignore_errors=True)


@pytest.fixture(autouse=True, scope="session")
def _run_from_the_repository():
    """Tests run from the repository's root, wherever pytest was started (`cd tests && uv run pytest`, or a
    script's own folder): a test that needs another folder changes to it itself (monkeypatch.chdir)."""
    try:
        before = os.getcwd()
    except OSError:  # started from a folder that has since been removed
        before = None
    os.chdir(REPO)
    yield
    if before is not None:
        os.chdir(before)


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
