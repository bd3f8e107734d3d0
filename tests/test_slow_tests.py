"""tests/slow_tests.txt names tests that exist, and the default run leaves them out (tests/conftest.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import slow_test_ids

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("node", sorted(slow_test_ids()))
def test_each_listed_slow_test_exists(node):
    path, _, name = node.partition("::")
    assert (REPO / path).is_file(), node
    function = name.split("[", 1)[0]
    assert re.search(rf"^(async )?def {re.escape(function)}\(", (REPO / path).read_text(encoding="utf-8"),
                     re.MULTILINE), node


def test_the_default_run_leaves_the_listed_tests_out():
    """Collected as `uv run pytest` collects (its `-m 'not slow'`), a file's listed cases are gone and the rest stay."""
    import subprocess
    import sys

    target = "tests/hardening/test_template_caps.py"
    listed = {node for node in slow_test_ids() if node.startswith(target + "::")}
    assert listed
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p",
                                "no:cacheprovider", target], cwd=REPO, capture_output=True, text=True, check=True)
    nodes = {line.strip() for line in collected.stdout.splitlines() if line.startswith(target + "::")}
    assert nodes and not nodes & listed, nodes & listed
    everything = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p",
                                 "no:cacheprovider", "-m", "slow or not slow", target],
                                cwd=REPO, capture_output=True, text=True, check=True)
    assert listed <= {line.strip() for line in everything.stdout.splitlines()}
