"""Shared helpers for the workflow tests: invoke commands with CliRunner and read diagnostics of one file."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner, Result

import clinreg.cli  # noqa: F401  (load the main CLI first, so that it registers the workflow commands)
from clinreg.cli_workflow import issue_form, new, review_commands
from clinreg.rules.engine import validate

review = click.Group("review", commands={c.name: c for c in review_commands})


def run(command: click.Command, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(command, [str(a) for a in args], input=input)


def new_dataset(root: Path, *args: str, input: str | None = None) -> Result:
    return run(new, "dataset", *args, "--root", root, input=input)


def sign(root: Path, decision: str, item: str, *args: str) -> Result:
    return run(review, decision, item, "--root", root, *args)


def findings(root: Path, rel: str, severities=("error", "warning")) -> list:
    return [d for d in validate(root).sorted() if d.file == rel and d.severity in severities]


__all__ = ["findings", "issue_form", "new_dataset", "run", "sign", "review"]
