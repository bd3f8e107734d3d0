"""The suite passes however it was started: as a background job (SIGINT and SIGHUP ignored, no terminal), from
another folder, under a shell's settings (colour, width, a data folder, a hub endpoint)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Pieces that depend on signals, the working folder and the environment, and the registry's own check.
PIECES = [
    "tests/workflow/test_concurrency.py::test_a_signal_mid_write_leaves_no_temp_file_and_the_old_content",
    "tests/hardening/test_safe_writes.py",
    "tests/cli/test_cli_terminal.py",
    "tests/scoring/test_medhelm.py",
    "tests/rules/test_cache.py",
    "tests/test_registry_content.py",
    "tests/workflow/test_started_anyhow.py::test_the_suite_gives_its_children_the_default_signals",
]


def _as_a_background_job() -> None:
    """What a shell without job control gives a background job (`cmd &` in a script), and nohup adds."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


@pytest.mark.slow
def test_the_critical_pieces_pass_started_as_a_background_job_from_another_folder(tmp_path):
    env = {
        **os.environ,
        "NO_COLOR": "1",
        "COLUMNS": "20",
        "TERM": "dumb",
        "CLINREG_DATA_DIR": str(tmp_path / "no-such-data"),
        "HF_ENDPOINT": "http://127.0.0.1:9",
        "HF_TOKEN": "hf_not_a_token",
        "XDG_CACHE_HOME": str(tmp_path / "xdg"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-m", "slow or not slow",
         "--rootdir", str(REPO), "-c", str(REPO / "pyproject.toml"), *(str(REPO / piece) for piece in PIECES)],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, preexec_fn=_as_a_background_job, timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:]
    assert " passed" in done.stdout and " failed" not in done.stdout


def test_the_suite_gives_its_children_the_default_signals():
    """tests/conftest.py undoes an ignored SIGINT/SIGHUP/SIGTERM, so every process a test starts gets the default."""
    child = subprocess.run(
        [sys.executable, "-c", "import signal; print(*(signal.getsignal(s) is signal.SIG_IGN for s in "
                               "(signal.SIGINT, signal.SIGHUP, signal.SIGTERM)))"],
        stdout=subprocess.PIPE, text=True, check=True)
    assert child.stdout.split() == ["False", "False", "False"]
    assert os.getcwd() == str(REPO)
