"""Numbers the README quotes from the tool's output agree with that output (issue 40, item 13)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.main import main

README = Path(__file__).resolve().parents[1] / "README.md"


def _totals(*args: str) -> dict:
    result = invoke(main, ["coverage", "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["data"]["totals"]


def _text() -> str:
    return " ".join(README.read_text(encoding="utf-8").split())


@pytest.mark.slow
def test_the_coverage_tiers_the_readme_quotes_are_the_tools():
    text = _text()
    medhelm = re.search(r"with `--medhelm-only`: (published \d+/\d+, derived \d+/\d+, drafted \d+/\d+ covered)", text)
    every = re.search(r"over every record: (published \d+/\d+, derived \d+/\d+, drafted \d+/\d+ covered)", text)
    assert medhelm and every, "the README's tier sentence changed shape"
    assert medhelm.group(1) == _totals("--medhelm-only")["tier_summary"]
    assert every.group(1) == _totals()["tier_summary"]


@pytest.mark.slow
def test_the_thin_subcategories_the_readme_quotes_are_the_tools():
    found = re.search(r"as (\d+) of MedHELM's (\d+) do \(`--medhelm-only`; (\d+) of (\d+) over every record\)", _text())
    assert found, "the README's thin sentence changed shape"
    medhelm, every = _totals("--medhelm-only"), _totals()
    assert [int(n) for n in found.groups()] == [medhelm["thin_subcategories"], medhelm["subcategories"],
                                                every["thin_subcategories"], every["subcategories"]]
