"""The review document: every task with its definition, provenance, review state and datasets, in HTML, Markdown and
JSON."""

from __future__ import annotations

import json

import click
from trees import replace_in

from clinreg.cli.main import main
from clinreg.core.hashing import review_hash
from clinreg.core.store import load_registry
from clinreg.reports.review import review_document
from reports.helpers import ADMIN, data_attributes, invoke, richer_tree, tree_with_task_name


def test_review_is_a_group_that_renders_without_a_subcommand():
    group = main.commands["review"]
    assert isinstance(group, click.Group) and group.invoke_without_command


def test_document_holds_every_task_with_provenance_review_and_datasets(tmp_path):
    root = richer_tree(tmp_path / "reg")
    doc = review_document(load_registry(root))
    assert doc["counts"]["tasks"] == 6 and doc["counts"]["tasks_drafted"] == 4
    assert doc["counts"]["tasks_awaiting_review"] == 5 and doc["counts"]["review"]["rejected"] == 1
    tasks = {t["id"]: t for c in doc["categories"] for s in c["subcategories"] for t in s["tasks"]}
    answer = tasks["answer_questions"]
    assert answer["provenance"]["kind"] == "published" and answer["provenance"]["citation"]["text"] == "A paper"
    assert [(d["id"], d["access"], d["benchmarks"]) for d in answer["datasets"]] == \
        [("codes", "gated", ["codes"]), ("qa_set", "public", ["qa_set"])]
    assert tasks["build_rosters"]["provenance"]["citation"]["href"] == "https://doi.org/10.1000/xyz"
    assert tasks["rank_differentials"]["datasets"] == []
    assert "5 of the 6 tasks in this document await your review" in doc["summary"]
    assert "2 task names are quoted from a public source; the other 4 were worded by clinreg" in doc["summary"]


def test_approved_and_stale_states_and_reviewers(tmp_path):
    good = review_hash("Build rosters", "Draft a staff roster.", None, "scheduling")
    admin = replace_in(ADMIN,
                       "        provenance: {kind: published, quote: A name, citation: {text: A report, doi: "
                       "10.1000/xyz}}\n        review: {status: proposed}",
                       "        provenance: {kind: published, quote: A name, citation: {text: A report, doi: "
                       "10.1000/xyz}}\n"
                       f"        review: {{status: approved, content_hash: '{good}', date: 2025-03-01, reviewers: "
                       "[{name: Dr Ada, orcid: 0000-0002-1825-0097, decision: approved, date: 2025-03-01}]}")
    admin = replace_in(admin, "name: Code encounters\n        definition: Assign billing codes to an encounter.\n"
                       "        provenance: {kind: drafted}\n        review: {status: proposed}",
                       "name: Code encounters\n        definition: Assign billing codes to an encounter.\n"
                       "        provenance: {kind: drafted}\n        review: {status: approved, content_hash: "
                       "'sha256:00'}")
    root = richer_tree(tmp_path / "reg", {"taxonomy/admin.yaml": admin})
    doc = review_document(load_registry(root), category="admin")
    tasks = {t["id"]: t for s in doc["categories"][0]["subcategories"] for t in s["tasks"]}
    assert tasks["build_rosters"]["review"]["state"] == "approved"
    assert tasks["build_rosters"]["review"]["reviewers"][0]["href"] == "https://orcid.org/0000-0002-1825-0097"
    assert tasks["code_encounters"]["review"]["state"] == "stale"
    html = invoke("review", "--root", root, "--category", "admin").output
    assert "Dr Ada" in html and 'data-review="stale"' in html
    md = invoke("review", "--root", root, "--category", "admin", "--format", "markdown").output
    assert "Dr Ada ([ORCID 0000-0002-1825-0097](https://orcid.org/0000-0002-1825-0097)): approved on 2025-03-01" in md


def test_cli_formats_agree(tmp_path):
    root = richer_tree(tmp_path / "reg")
    doc = json.loads(invoke("review", "--root", root, "--format", "json").output)["data"]
    html = invoke("review", "--root", root).output
    md = invoke("review", "--root", root, "--format", "markdown").output
    tasks = [t for c in doc["categories"] for s in c["subcategories"] for t in s["tasks"]]
    assert set(data_attributes(html, "data-task")) == {t["id"] for t in tasks}
    for t in tasks:
        assert f"`{t['id']}`" in md
    assert "Sign-off" in html and "Sign-off" in md and 'id="contents"' in html and "## Contents" in md
    callout = data_attributes(html, "id")["drafted"]
    assert int(callout["drafted"]) == doc["counts"]["tasks_drafted"] == 4
    assert int(callout["awaiting"]) == doc["counts"]["tasks_awaiting_review"]
    assert doc["summary"] in md and "@media print" in html


def test_category_filter_and_bad_category(tmp_path):
    root = richer_tree(tmp_path / "reg")
    doc = json.loads(invoke("review", "--root", root, "--format", "json", "--category", "care").output)["data"]
    assert [c["id"] for c in doc["categories"]] == ["care"] and doc["counts"]["tasks"] == 3
    bad = invoke("review", "--root", root, "--category", "nope")
    assert bad.exit_code == 2 and bad.output.count("\n") == 1 and "no such category" in bad.output


def test_bad_root_is_a_usage_error(tmp_path):
    result = invoke("review", "--root", tmp_path / "missing")
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_review_output_file_and_force(tmp_path):
    root = richer_tree(tmp_path / "reg")
    target = tmp_path / "review.md"
    assert invoke("review", "--root", root, "--format", "markdown", "-o", target).exit_code == 0
    assert invoke("review", "--root", root, "--format", "markdown", "-o", target).exit_code == 2
    assert invoke("review", "--root", root, "--format", "markdown", "-o", target, "--force").exit_code == 0
    assert target.read_text(encoding="utf-8").startswith("# ")


def test_registry_text_is_escaped(tmp_path):
    root = tree_with_task_name(tmp_path / "reg", "<script>alert(1)</script>")
    html = invoke("review", "--root", root).output
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    md = invoke("review", "--root", root, "--format", "markdown").output
    assert "<script>" not in md and "&lt;script&gt;alert(1)&lt;/script&gt;" in md


def test_markdown_and_sheet_show_provenance_in_plain_words(tmp_path):
    """The real registry: the markdown review document and the sheet's provenance column carry no raw field tag."""
    from pathlib import Path

    from clinreg.review.exchange import export_rows

    repo = Path(__file__).resolve().parents[2]
    md = invoke("review", "--root", repo, "--format", "markdown").output
    assert "subcategory_assignment" not in md
    assert md.count("Placed in this subcategory by clinreg (inferred), not by MedHELM.") >= 30
    assert ", from MedCalc-Bench" in md and "`medcalc_bench`" not in md
    rows = export_rows(load_registry(repo))
    assert not [r["id"] for r in rows if "subcategory_assignment" in r["provenance"]]
    assert sum("not by MedHELM" in r["provenance"] for r in rows) >= 30
