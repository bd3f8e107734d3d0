"""Shared helpers for the workflow tests: invoke commands with CliRunner and read diagnostics of one file."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import Result

from clirunner import run  # noqa: F401 - the workflow tests import it from here

from clinreg.cli.contrib import issue_form, new
from clinreg.cli.review import review_commands
from clinreg.rules.engine import validate

review = click.Group("review", commands={c.name: c for c in review_commands})


def new_dataset(root: Path, *args: str, input: str | None = None) -> Result:
    return run(new, "dataset", *args, "--root", root, input=input)


def sign(root: Path, decision: str, item: str, *args: str) -> Result:
    return run(review, decision, item, "--root", root, *args)


def findings(root: Path, rel: str, severities=("error", "warning")) -> list:
    return [d for d in validate(root).sorted() if d.file == rel and d.severity in severities]


__all__ = ["findings", "issue_form", "new_dataset", "run", "sign", "review"]


def without_reviews(text: str):
    """The YAML data with every `review` block removed: equal before and after, when only review blocks changed."""
    import yaml

    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "review"}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(yaml.safe_load(text))


def only_review_lines_changed(before: str, after: str) -> bool:
    """Every line outside the review blocks is byte-identical, and the data outside them is equal."""
    import difflib

    if without_reviews(before) != without_reviews(after):
        return False
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    kept = [line for line in difflib.ndiff(a, b) if line.startswith("  ")]
    outside = [line for line in a if "review" not in line and not line.startswith(" " * 10)]
    return all("  " + line in kept for line in outside)
