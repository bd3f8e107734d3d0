"""The review panel: a policy in taxonomy.yaml drives each item's state (approved, rejected, split, awaiting more
reviews) in validate, the review documents and the site; a maintainer adjudicates a split item."""

from __future__ import annotations

import json

import pytest
from clirunner import invoke

from clinreg.cli.main import main
from clinreg.core.store import load_registry
from clinreg.reports.coverage import coverage_data
from clinreg.reports.review import review_document, status_rows
from clinreg.rules.engine import validate
from trees import GOOD_TREE, write_tree
from workflow.helpers import run, review, sign

TAX = "taxonomy/taxonomy.yaml"
POLICY = "review_policy: {min_approvals: 2, open_rejection_blocks: true}\n"


@pytest.fixture
def panel(tmp_path):
    return write_tree(tmp_path, {TAX: GOOD_TREE[TAX] + POLICY})


def _state(root, item="answer_questions"):
    [row] = [r for r in status_rows(load_registry(root)) if r["id"] == item]
    return row["state"]


def test_one_approval_awaits_more_reviews_and_two_approve(panel):
    assert sign(panel, "approve", "answer_questions", "--reviewer", "Jane Doe").exit_code == 0
    assert _state(panel) == "awaiting_reviews"
    assert sign(panel, "approve", "answer_questions", "--reviewer", "Ali Khan").exit_code == 0
    assert _state(panel) == "approved"
    assert sign(panel, "approve", "answer_questions", "--reviewer", "Sam Lee").exit_code == 0
    out = invoke(main, ["review", "--root", str(panel), "--format", "markdown"]).output
    assert "panel: 3 approvals, more than the 2 needed" in out and "3 of 2" not in out


def test_a_rejection_beside_approvals_splits_the_panel_until_adjudicated(panel):
    for name in ("Jane Doe", "Ali Khan"):
        assert sign(panel, "approve", "answer_questions", "--reviewer", name).exit_code == 0
    assert sign(panel, "reject", "answer_questions", "--reviewer", "Sam Lee", "--note", "Too vague.").exit_code == 0
    assert _state(panel) == "split"
    [split] = [d for d in validate(panel).diagnostics if d.code == "CLR803"]
    assert "(2 approvals of the 2 needed; 1 rejection is open)" in split.message and split.file == "taxonomy/care.yaml"
    assert not [d for d in validate(panel).diagnostics if d.code == "CLR802"]  # a panel is split, not conflicting
    strict = invoke(main, ["validate", "--strict", "--root", str(panel)])
    assert strict.exit_code == 1 and "CLR803 [error]" in strict.output

    refused = run(review, "adjudicate", "plan_treatment", "--decision", "approved", "--reason", "x",
                  "--maintainer", "Max", "--root", panel)
    assert refused.exit_code == 2 and "not split" in refused.output
    done = run(review, "adjudicate", "answer_questions", "--decision", "approved", "--reason",
               "The wording is what the source says.", "--maintainer", "Max Maintainer", "--date", "2026-12-01",
               "--root", panel, "--format", "json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["data"]["state"] == "approved"
    assert _state(panel) == "approved"
    assert invoke(main, ["validate", "--strict", "--root", str(panel)]).exit_code == 0
    text = (panel / "taxonomy/care.yaml").read_text(encoding="utf-8")
    assert "adjudication: true" in text and "The wording is what the source says." in text
    [row] = [r for r in status_rows(load_registry(panel)) if r["id"] == "answer_questions"]
    assert row["adjudication"] == {"maintainer": "Max Maintainer", "decision": "approved", "date": "2026-12-01",
                                   "reason": "The wording is what the source says."}


def test_without_blocking_enough_approvals_carry_a_rejection(tmp_path):
    root = write_tree(tmp_path,
                      {TAX: GOOD_TREE[TAX] + "review_policy: {min_approvals: 2, open_rejection_blocks: false}\n"})
    for name in ("Jane Doe", "Ali Khan"):
        sign(root, "approve", "answer_questions", "--reviewer", name)
    sign(root, "reject", "answer_questions", "--reviewer", "Sam Lee")
    assert _state(root) == "approved"
    sign(root, "reject", "rank_differentials", "--reviewer", "Sam Lee")
    assert _state(root, "rank_differentials") == "awaiting_reviews"  # one vote of three decides nothing
    sign(root, "reject", "rank_differentials", "--reviewer", "Jane Doe")
    assert _state(root, "rank_differentials") == "rejected"


def test_one_rejection_of_a_panel_decides_nothing_and_coverage_keeps_counting_it(panel):
    tasks = coverage_data(load_registry(panel))["totals"]["tasks"]
    assert sign(panel, "reject", "answer_questions", "--reviewer", "Sam Lee", "--note", "Too vague.").exit_code == 0
    assert _state(panel) == "awaiting_reviews"
    data = coverage_data(load_registry(panel))
    assert [t["review"] for t in data["tasks"] if t["id"] == "answer_questions"] == ["awaiting_reviews"]
    assert data["totals"]["tasks"] == tasks and data["totals"]["tasks_rejected"] == 0
    status = invoke(main, ["review", "status", "--root", str(panel)])
    assert "answer_questions  in review (awaiting reviews)" in status.output
    out = invoke(main, ["review", "--root", str(panel), "--format", "markdown"])
    assert "0 approvals of the 2 needed (2 more needed); 1 rejection is open" in out.output
    # a second approval beside it: disputed (split), not rejected
    assert sign(panel, "approve", "answer_questions", "--reviewer", "Jane Doe").exit_code == 0
    assert _state(panel) == "split"
    # the panel rejects once the rejections reach min_approvals
    assert sign(panel, "reject", "answer_questions", "--reviewer", "Ali Khan").exit_code == 0
    assert _state(panel) == "rejected"
    assert [t["review"] for t in coverage_data(load_registry(panel))["tasks"] if t["id"] == "answer_questions"] \
        == ["rejected"]


def test_adjudicate_and_the_review_commands_take_the_sheets_words(panel):
    for name in ("Jane Doe", "Ali Khan"):
        sign(panel, "approve", "answer_questions", "--reviewer", name)
    sign(panel, "request-changes", "answer_questions", "--reviewer", "Sam Lee")
    done = run(review, "adjudicate", "answer_questions", "--decision", "reject", "--reason", "Too vague.",
               "--maintainer", "Max", "--root", panel)
    assert done.exit_code == 0, done.output
    assert "adjudicated task 'answer_questions': rejected" in done.output
    assert _state(panel) == "rejected"


@pytest.mark.slow
def test_the_form_shows_the_tally_but_no_reviewer_note_while_the_panel_decides(panel):
    sign(panel, "approve", "answer_questions", "--reviewer", "Jane Doe", "--note", "SECRET-NOTE-1")
    reg = load_registry(panel)
    doc = review_document(reg)
    task = doc["categories"][0]["subcategories"][0]["tasks"][0]
    assert task["review"]["state"] == "awaiting_reviews"
    assert task["review"]["panel"]["sealed"] and task["review"]["reviewers"] == []
    assert doc["counts"]["review"]["awaiting_reviews"] == 1 and doc["review_policy"]["min_approvals"] == 2
    for fmt in ("html", "markdown", "json"):
        out = invoke(main, ["review", "--root", str(panel), "--format", fmt])
        assert out.exit_code == 0, out.output
        assert "SECRET-NOTE-1" not in out.output and "Jane Doe" not in out.output
        assert "1 approval of the 2 needed (1 more needed)" in out.output
    # once the panel has decided, the history is shown
    sign(panel, "approve", "answer_questions", "--reviewer", "Ali Khan")
    out = invoke(main, ["review", "--root", str(panel), "--format", "html"])
    assert "SECRET-NOTE-1" in out.output and "Jane Doe" in out.output
    # the spreadsheet, too, hides a deciding panel's notes
    sign(panel, "approve", "rank_differentials", "--reviewer", "Jane Doe", "--note", "SECRET-NOTE-2")
    sheet = panel / "sheet.csv"
    assert invoke(main, ["review", "export", "--format", "csv", "-o", str(sheet), "--root", str(panel)]).exit_code == 0
    assert "SECRET-NOTE-2" not in sheet.read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_site_and_coverage_show_the_panel_state(panel, tmp_path):
    sign(panel, "approve", "answer_questions", "--reviewer", "Jane Doe")
    data = coverage_data(load_registry(panel))
    assert [t["review"] for t in data["tasks"] if t["id"] == "answer_questions"] == ["awaiting_reviews"]
    site = tmp_path / "site"
    out = invoke(main, ["site", "--root", str(panel), "-o", str(site)])
    assert out.exit_code == 0, out.output
    pages = "".join(p.read_text(encoding="utf-8") for p in site.rglob("*.html"))
    assert "awaiting reviews" in pages


def test_without_a_policy_disagreement_is_still_a_conflict_and_can_be_adjudicated(tmp_path):
    root = write_tree(tmp_path, {})
    sign(root, "approve", "answer_questions", "--reviewer", "Jane Doe")
    sign(root, "reject", "answer_questions", "--reviewer", "Ali Khan")
    assert _state(root) == "conflicting"
    doc = review_document(load_registry(root))
    assert "split" not in doc["counts"]["review"] and "review_policy" not in doc
    assert run(review, "adjudicate", "answer_questions", "--decision", "rejected", "--reason", "Too vague.",
               "--maintainer", "Max", "--root", root).exit_code == 0
    assert _state(root) == "rejected"


def test_review_export_takes_a_category_and_its_sheet_imports(tmp_path):
    from trees import CATEGORY

    other = CATEGORY.replace("id: care", "id: admin").replace("name: Care", "name: Admin")
    for old, new in (("diagnosis", "billing"), ("answer_questions", "code_claims"),
                     ("rank_differentials", "sort_claims"), ("treatment", "rostering"),
                     ("plan_treatment", "plan_shifts")):
        other = other.replace(old, new)
    panel = write_tree(tmp_path, {TAX: GOOD_TREE[TAX].replace("[care]", "[care, admin]").replace("task_total: 3",
                                                                                                   "task_total: 6")
                                  + POLICY, "taxonomy/admin.yaml": other})
    sheet = panel / "care.csv"
    out = invoke(main, ["review", "export", "--format", "csv", "--category", "care", "-o", str(sheet),
                                    "--root", str(panel)])
    assert out.exit_code == 0, out.output
    import csv

    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    assert len(rows) == 5 and {r["category"] for r in rows} == {"care"}
    rows[0]["decision"], rows[0]["reviewer"] = "approve", "Jane Doe"
    with sheet.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert invoke(main, ["review", "import", str(sheet), "--root", str(panel)]).exit_code == 0
    wrong = invoke(main, ["review", "export", "--format", "csv", "--category", "cares", "-o",
                                      str(panel / "x.csv"), "--root", str(panel)])
    assert wrong.exit_code == 2 and "did you mean care?" in wrong.output and not (panel / "x.csv").exists()
