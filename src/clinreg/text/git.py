"""Run git in a folder, its output captured as bytes (release diffs, the version-bump rule, `validate --base`)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def run_git(cwd: str | Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`git ARGS` run in `cwd`; a failing git is a non-zero returncode, not an exception (a missing git still
    raises FileNotFoundError, and one that runs past `timeout` seconds subprocess.TimeoutExpired)."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=timeout, check=False)
