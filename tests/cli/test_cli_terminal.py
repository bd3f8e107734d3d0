"""Commands that behave differently on a terminal, run in a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys


def _in_terminal(*args: str, columns: int = 100) -> str:
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "clinreg", *args], stdout=follower, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def test_review_on_a_terminal_is_markdown(tree):
    out = _in_terminal("review", "--root", str(tree))
    assert out.lstrip().startswith("#") and "<html" not in out.lower()


def test_coverage_table_on_a_terminal_uses_its_width(tree):
    import re

    out = re.sub(r"\x1b\[[0-9;]*m", "", _in_terminal("coverage", "--root", str(tree), columns=60))
    assert "Diagnosis" in out and max(len(line) for line in out.splitlines()) <= 60
