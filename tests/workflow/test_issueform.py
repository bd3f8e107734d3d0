"""The "Propose a dataset" issue form: generated from the taxonomy, and the committed copy is in sync."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from clinreg.contrib.issueform import FIX_COMMAND, ISSUE_FORM_PATH, render_issue_form
from clinreg.core.store import load_registry
from workflow.helpers import issue_form, run

REPO = Path(__file__).resolve().parents[2]


def _dropdown(form: dict, ident: str) -> list[str]:
    return next(b for b in form["body"] if b.get("id") == ident)["attributes"]["options"]


def test_committed_issue_form_is_in_sync_with_the_taxonomy():
    committed = REPO / ISSUE_FORM_PATH
    expected = render_issue_form(load_registry(REPO))
    assert committed.is_file(), f"{ISSUE_FORM_PATH} is missing; run `{FIX_COMMAND}`"
    assert committed.read_text(encoding="utf-8") == expected, f"{ISSUE_FORM_PATH} is out of date; run `{FIX_COMMAND}`"


def test_committed_form_lists_every_category_and_subcategory():
    reg = load_registry(REPO)
    form = yaml.safe_load((REPO / ISSUE_FORM_PATH).read_text(encoding="utf-8"))
    categories = [c for c, _ in reg.ordered_categories()]
    assert len(_dropdown(form, "category")) == len(categories)
    assert len(_dropdown(form, "subcategories")) == sum(len(c.subcategories) for c in categories)
    assert [o.split(":")[0] for o in _dropdown(form, "access")] == ["public", "gated", "private"]


def test_form_follows_the_taxonomy_of_the_tree(tree):
    result = run(issue_form, "--root", tree)
    assert result.exit_code == 0, result.output
    form = yaml.safe_load(result.output)
    assert _dropdown(form, "category") == ["Care (care)"]
    assert _dropdown(form, "subcategories") == ["Care / Diagnosis (diagnosis)", "Care / Treatment (treatment)"]
    for block in form["body"]:  # GitHub's issue-form schema: every field has a type and attributes
        assert block["type"] in {"markdown", "input", "textarea", "dropdown", "checkboxes"} and "attributes" in block
    assert len({b["id"] for b in form["body"] if "id" in b}) == len([b for b in form["body"] if "id" in b])


def test_check_reports_drift_with_the_fix_command(tree, tmp_path):
    target = tmp_path / "form.yml"
    stale = run(issue_form, "--root", tree, "-o", target, "--check")
    assert stale.exit_code == 1 and "issue-form -o" in stale.output
    assert run(issue_form, "--root", tree, "-o", target).exit_code == 0
    fresh = run(issue_form, "--root", tree, "-o", target, "--check", "--format", "json")
    assert fresh.exit_code == 0 and json.loads(fresh.output)["data"]["in_sync"] is True
    (tree / "taxonomy/care.yaml").write_text(
        (tree / "taxonomy/care.yaml").read_text(encoding="utf-8").replace("name: Treatment", "name: Treatments"),
        encoding="utf-8")
    again = run(issue_form, "--root", tree, "-o", target, "--check", "--format", "json")
    assert again.exit_code == 1 and json.loads(again.output)["data"]["fix"] == FIX_COMMAND


def test_broken_taxonomy_is_reported_not_raised(tree):
    (tree / "taxonomy/care.yaml").write_text("id: [", encoding="utf-8")
    result = run(issue_form, "--root", tree)
    assert result.exit_code == 1 and "Traceback" not in result.output
