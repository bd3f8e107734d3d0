"""Damaged review imports and a poisoned validate cache end in located problems, never a traceback or a hang
(issue 21, classes 3 to 5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from clirunner import clinreg as cli

from trees import write_tree
from workflow.test_signoff import CARE, CATEGORY


@pytest.fixture
def care(tmp_path):
    return write_tree(tmp_path / "reg", {CARE: CATEGORY})


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _refused(care: Path, path: Path, problem: str) -> None:
    """`review import PATH` ends in the located problem, exit 2, no traceback, and the tree untouched."""
    before = _snapshot(care)
    result = cli("review", "import", path, "--root", care, "--reviewer", "Dr A", "--orcid", "0000-0002-1825-0097")
    assert result.exit_code == 2, result.output
    assert f"{path.name}: {problem}" in result.stderr and "Traceback" not in result.output
    assert _snapshot(care) == before


def test_a_decisions_file_nested_200000_deep_is_one_located_problem(care, tmp_path):
    path = tmp_path / "decisions.json"
    path.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    _refused(care, path, "nested too deeply")


def test_a_workbook_with_a_truncated_sheet_is_one_located_problem(care, tmp_path):
    pytest.importorskip("openpyxl")
    sheet = tmp_path / "tasks.xlsx"
    assert cli("review", "export", "--format", "xlsx", "-o", sheet, "--root", care).exit_code == 0
    damaged = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(sheet) as src, zipfile.ZipFile(damaged, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.startswith("xl/worksheets/sheet"):
                data = data[: len(data) // 2]  # the sheet's XML stops mid-element
            dst.writestr(info, data)
    _refused(care, damaged, "the `tasks` sheet cannot be read")


def test_reviewer_names_reach_the_terminal_escaped(care, tmp_path):
    import csv

    sheet = tmp_path / "tasks.csv"
    assert cli("review", "export", "--format", "csv", "-o", sheet, "--root", care).exit_code == 0
    task = next(r for r in csv.DictReader(sheet.read_text(encoding="utf-8-sig").splitlines()) if r["kind"] == "task")
    hostile = "Dr \x1b]0;owned\x07 A\u202e"
    decisions = {"clinreg_decisions": 1, "reviewer": {"name": hostile, "orcid": "0000-0002-1825-0097"},
                 "decisions": [{"kind": "task", "id": task["id"], "content_hash": task["content_hash"],
                                "decision": "approve"}]}
    path = tmp_path / "decisions.json"
    path.write_text(json.dumps(decisions), encoding="utf-8")
    result = cli("review", "import", path, "--root", care)
    assert "\x1b" not in result.output and "\x07" not in result.output and "\u202e" not in result.output
    assert "\\x1b" in result.output or "\\x07" in result.output, result.output


def _cache_entry(tmp_path, care) -> tuple[dict[str, str], Path]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-m", "clinreg", "validate", "--root", str(care), "--format", "json"],
                           env=env, capture_output=True, text=True, timeout=60)
    (entry,) = (tmp_path / "cache" / "clinreg").glob("validate-*.json")
    return env, entry, first.stdout


@pytest.mark.parametrize("poison", ["nested", "fifo"])
def test_a_poisoned_cache_entry_is_ignored_and_replaced(care, tmp_path, poison):
    env, entry, fresh = _cache_entry(tmp_path, care)
    entry.unlink()
    if poison == "nested":
        entry.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    else:
        os.mkfifo(entry)
    again = subprocess.run([sys.executable, "-m", "clinreg", "validate", "--root", str(care), "--format", "json"],
                           env=env, capture_output=True, text=True, timeout=30)
    assert again.returncode in (0, 1) and "Traceback" not in again.stderr
    assert json.loads(again.stdout)["data"]["summary"] == json.loads(fresh)["data"]["summary"]
