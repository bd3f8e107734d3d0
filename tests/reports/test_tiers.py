"""Coverage split by provenance tier in every output, rejected tasks out of the counts, and the review document's
numbering, versions and --pending."""

from __future__ import annotations

import json

import pytest

from reports.helpers import csv_with_metadata, invoke, richer_tree


@pytest.fixture
def rich(tmp_path):
    return richer_tree(tmp_path / "reg")


def test_every_coverage_output_splits_coverage_by_tier(rich, tmp_path):
    data = json.loads(invoke("coverage", "--root", rich, "--format", "json").output)["data"]
    t = data["totals"]
    # the fixture: 2 published tasks (both covered), 3 drafted (2 covered) counted, 1 drafted task rejected
    assert t["by_tier"] == {"published": {"tasks": 2, "covered": 2}, "derived": {"tasks": 0, "covered": 0},
                            "drafted": {"tasks": 3, "covered": 2}}
    summary = "published 2/2, derived 0/0, drafted 2/3 covered"
    assert t["tier_summary"] == summary and t["tasks_rejected"] == 1 and t["tasks"] == 5
    assert summary in invoke("coverage", "--root", rich).output
    assert summary in invoke("coverage", "--root", rich, "--format", "markdown").output
    assert "1 rejected task left out of every count" in invoke("coverage", "--root", rich, "--format",
                                                               "markdown").output
    meta, rows = csv_with_metadata(invoke, rich, tmp_path)
    assert meta["coverage_by_provenance"] == summary and meta["tasks_rejected_not_counted"] == "1"
    assert sum(int(r["drafted_tasks"]) for r in rows) == 3 and sum(int(r["published_covered"]) for r in rows) == 2
    html = invoke("coverage", "--root", rich, "--format", "html").output
    assert f'data-tier-summary="{summary}"' in html and "1 rejected not counted" in html
    review = json.loads(invoke("review", "--root", rich, "--format", "json").output)["data"]
    assert review["counts"]["tier_summary"] == summary


def test_review_document_numbers_tasks_shows_versions_and_prints_only_pending(rich):
    doc = json.loads(invoke("review", "--root", rich, "--format", "json").output)["data"]
    tasks = [t for c in doc["categories"] for s in c["subcategories"] for t in s["tasks"]]
    assert [t["number"] for t in tasks] == list(range(1, len(tasks) + 1))
    assert all(len(t["review"]["version"]) == 12
               and t["review"]["content_hash"].split(":")[1].startswith(t["review"]["version"])
               for t in tasks)
    md = invoke("review", "--root", rich, "--format", "markdown").output
    assert f"*Task 1 of {len(tasks)}*" in md
    # The version is kept, under the task's source details (issue 40), where a printed sign-off still finds it.
    details = md.split(f"*Task 1 of {len(tasks)}*", 1)[1].split("<details><summary>Source details</summary>", 1)[1]
    assert f"Id `{tasks[0]['id']}` · version `{tasks[0]['review']['version']}`" in details.split("</details>", 1)[0]
    pending = json.loads(invoke("review", "--root", rich, "--format", "json", "--pending").output)["data"]
    kept = [t for c in pending["categories"] for s in c["subcategories"] for t in s["tasks"]]
    assert {t["review"]["state"] for t in kept} <= {"proposed", "stale", "revised", "conflicting"}
    assert {t["id"] for t in kept} == {t["id"] for t in tasks if t["review"]["state"] in
                                       ("proposed", "stale", "revised", "conflicting")}
    assert len(kept) < len(tasks)
    html = invoke("review", "--root", rich, "--pending").output
    assert f"Task 1 of {len(kept)}" in html and "Only tasks that need review" in html


def test_a_stale_task_shows_the_approved_wording_beside_the_current_one(tmp_path):
    from trees import write_tree
    from workflow.test_signoff import CARE, CATEGORY

    root = write_tree(tmp_path / "reg", {CARE: CATEGORY})
    assert invoke("review", "approve", "answer_questions", "--reviewer", "Jane Doe", "--root", root).exit_code == 0
    path = root / CARE
    path.write_text(path.read_text(encoding="utf-8").replace("Answer a clinical question.", "Answer any question.", 1),
                    encoding="utf-8")
    md = invoke("review", "--root", root, "--format", "markdown").output
    assert "*definition when approved:* Answer a clinical question. → *now:* Answer any question." in md
    html = invoke("review", "--root", root).output
    assert ('<span>Answer</span> <del><span class="sr">[removed: </span>a clinical<span class="sr">]</span></del> '
            '<ins><span class="sr">[added: </span>any<span class="sr">]</span></ins> <span>question.</span>') in html
