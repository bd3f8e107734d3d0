"""Helpers for the hardening tests: run the real CLI in a subprocess, and size the fuzz runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
REGRESSIONS = HERE / "regressions"
CLI = [sys.executable, "-c", "from clinreg.cli.main import main; main()"]


def _scale() -> float:
    """Ten times the CI counts for a local soak; the CI counts where CI is set (.ci/run and GitHub Actions set
    CI=true); a fifth of them in a contributor's `uv run pytest`, so that the edit-test loop stays short."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "hardening-long":
        return 10
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        return 1
    return 0.2


_SCALE = _scale()


def examples(n: int) -> int:
    """The number of examples for a fuzz test: `n` in CI, a fifth of it by default (at least 10), ten times it with
    HYPOTHESIS_PROFILE=hardening-long."""
    return max(min(n, 10), round(n * _SCALE))


def run_cli(*args: str, timeout: float = 60, cwd: Path | None = None, env: dict[str, str] | None = None,
            **options) -> subprocess.CompletedProcess:
    """The real `clinreg` in a fresh interpreter, as CI runs it. `env` adds to (or, with None values, removes from)
    the environment; other options go to subprocess.run (say `stdout=` a file)."""
    merged = dict(os.environ, PYTHONIOENCODING="utf-8", NO_COLOR="1")
    for key, value in (env or {}).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    options.setdefault("stdout", subprocess.PIPE)
    options.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([*CLI, *args], text=True, encoding="utf-8", errors="replace", check=False, timeout=timeout,
                          cwd=cwd, env=merged, **options)


def assert_no_traceback(result: subprocess.CompletedProcess) -> None:
    for stream in (result.stdout, result.stderr):
        assert stream is None or "Traceback" not in stream, stream[-3000:]


def doc_fields(doc) -> dict:
    """Every field of a YamlDoc as text, so that types (1 vs True vs 1.0), NaN and dict order all count."""
    return {
        "data": repr(doc.data),
        "values": repr(list(doc.values.items())),
        "keys": repr(list(doc.keys.items())),
        "plain": repr(list(doc.plain.items())),
        "containers": sorted(map(repr, doc.containers)),
        "scalars": repr(doc.scalars),
        "problems": repr(doc.problems),
        "first_line": doc.first_line,
        "where": _lookups(doc),
    }


def _lookups(doc) -> str:
    """What `where` and `where_key` answer for every located path, a child of each that is not there, and the
    top: the fast reader answers from packed tables, the reference reader from dicts."""
    paths = sorted(set(doc.values) | set(doc.keys), key=repr)
    asked = [()] + paths + [p + ("no such key",) for p in paths[:50]]
    return repr([(p, doc.where(p), doc.where_key(p)) for p in asked])
