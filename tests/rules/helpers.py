"""Run validation on a tree that differs from the good one in one file, and find diagnostics by code."""

from __future__ import annotations

from pathlib import Path

from clinreg.core.diagnostics import Diagnostic
from clinreg.rules.engine import validate
from trees import GOOD_TREE, replace_in, write_tree


def broken(tmp_path: Path, rel: str, old: str, new: str) -> tuple[list[Diagnostic], str]:
    """Write the good tree with one replacement in `rel`; return the diagnostics and the new file text."""
    text = replace_in(GOOD_TREE[rel], old, new)
    root = write_tree(tmp_path / "reg", {rel: text})
    return validate(root).diagnostics, text


def with_code(diagnostics: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


def errors(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity == "error"]
