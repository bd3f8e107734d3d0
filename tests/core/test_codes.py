"""The code catalogue against the tests: every code clinreg can emit is named by some test."""

from __future__ import annotations

from pathlib import Path

from clinreg.core.codes import CODES

TESTS = Path(__file__).resolve().parents[1]


def test_every_catalogue_code_is_named_by_a_test():
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(TESTS.rglob("*"))
                     if p.is_file() and p.suffix in {".py", ".yaml", ".yml", ".json", ".txt", ".md", ".csv"})
    unnamed = sorted(code for code in CODES if code not in text)
    assert not unnamed, f"no test names {', '.join(unnamed)}: add one that makes clinreg emit it"
