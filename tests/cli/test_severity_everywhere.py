"""One severity per mode per code (issue 40, item 3): `explain` and `rules` show what every command prints."""

from __future__ import annotations

import json
import re

import pytest

from clinreg.core.codes import CODES
from clinreg.rules.engine import validate
from results.helpers import ROOT, invoke, write
from rules.test_rules import CASES
from trees import GOOD_TREE, replace_in, write_tree

PRINTED = re.compile(r":\d+:\d+: (CLR\d{3}) \[(error|warning|info)\]")


def _explained(code: str) -> str:
    result = invoke("explain", code)
    assert result.exit_code == 0, result.output
    return result.output.splitlines()[0]


def _tree(tmp_path, case):
    _, rel, replacements, *_ = case
    text = GOOD_TREE[rel]
    for old, new in replacements:
        text = replace_in(text, old, new)
    return write_tree(tmp_path / "reg", {rel: text})


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_diagnostic_of_validate_has_the_severity_explain_gives(tmp_path, case):
    for d in validate(_tree(tmp_path, case)).diagnostics:
        assert d.severity == CODES[d.code].severity_in(strict=False), (d.code, d.message)
        assert _explained(d.code).startswith(f"{d.code} {CODES[d.code].name} ({d.severity}"), d.code


@pytest.mark.parametrize("strict", [False, True])
def test_validate_prints_each_code_at_its_severity_in_the_mode(tmp_path, strict):
    case = next(c for c in CASES if c[3] == "CLR802")
    root = _tree(tmp_path, case)
    result = invoke("validate", "--root", root, "--no-cache", *(["--strict"] if strict else []))
    printed = PRINTED.findall(result.output)
    assert ("CLR802", "error" if strict else "warning") in printed
    for code, severity in printed:
        assert severity == CODES[code].severity_in(strict), code
    assert "error under validate --strict" in _explained("CLR802")


@pytest.mark.parametrize("strict", [False, True])
def test_results_import_prints_each_code_at_its_severity_in_the_mode(tmp_path, strict):
    board = write(tmp_path / "b.csv", "Model,MedQA - EM,Unknown - EM\nM1,0.5,0.5\nM1,0.6,0.6\n")
    result = invoke("results", "import", "--root", ROOT, board, "-o", tmp_path / "r.json",
                    *(["--strict"] if strict else []))
    printed = PRINTED.findall(result.stderr + result.stdout)
    assert {code for code, _ in printed} >= {"CLR963", "CLR967"}
    for code, severity in printed:
        assert severity == CODES[code].severity_in(strict), (code, severity)
    for code in ("CLR965", "CLR967"):
        assert _explained(code).startswith(f"{code} {CODES[code].name} (warning; error under --strict")


def test_rules_lists_both_severities():
    out = invoke("rules", "--format", "json").output
    rules = {r["code"]: r for r in json.loads(out)["data"]}
    assert (rules["CLR802"]["severity"], rules["CLR802"]["strict_severity"]) == ("warning", "error")
    assert (rules["CLR965"]["severity"], rules["CLR965"]["strict_severity"]) == ("warning", "error")
    assert (rules["CLR101"]["severity"], rules["CLR101"]["strict_severity"]) == ("error", "error")
