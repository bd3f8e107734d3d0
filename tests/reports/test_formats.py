"""Markdown, CSV and HTML coverage all show the numbers of `coverage --format json`, and registry text stays text."""

from __future__ import annotations

import json
import re

import pytest

from clinreg.core.store import load_registry
from clinreg.reports.coverage import coverage_data
from clinreg.reports.formats import render
from reports.helpers import (
    coverage_json,
    csv_table,
    csv_with_metadata,
    data_attributes,
    invoke,
    markdown_table,
    richer_tree,
    tree_with_task_name,
)

NUMBERS = ("tasks", "tasks_covered", "tasks_drafted", "benchmarks", "instances")


def expected_subcategories(data: dict) -> dict[str, dict]:
    return {s["id"]: {**{k: s[k] for k in NUMBERS}, "datasets": len(s["datasets"]), **s["access"], "thin": s["thin"]}
            for s in data["subcategories"]}


@pytest.fixture
def rich(tmp_path):
    return richer_tree(tmp_path / "reg")


@pytest.mark.parametrize("access", [None, "public,gated", "private"])
def test_every_format_shows_the_json_numbers(rich, access, tmp_path):
    extra = ("--access", access) if access else ()
    data = coverage_json(rich, *extra)
    expected = expected_subcategories(data)
    assert len(expected) == 4

    md = invoke("coverage", "--root", rich, "--format", "markdown", *extra).output
    rows = markdown_table(md, "Category")
    names = [s["id"] for s in data["subcategories"]]
    got_md = {sub_id: {"tasks": int(r["Tasks"]), "tasks_covered": int(r["Covered"]), "tasks_drafted": int(r["Drafted"]),
                       "benchmarks": int(r["Benchmarks"]), "instances": int(r["Instances"]),
                       "datasets": int(r["Datasets"]),
                       "public": int(r["Public"]), "gated": int(r["Gated"]), "private": int(r["Private"]),
                       "thin": r["Thin"] == "thin"} for sub_id, r in zip(names, rows)}
    assert got_md == expected

    meta, rows = csv_with_metadata(invoke, rich, tmp_path, *extra)
    assert csv_table(invoke("coverage", "--root", rich, "--format", "csv", *extra).output)[1] == rows
    got_csv = {r["subcategory"]: {**{k: int(r[k]) for k in NUMBERS}, "datasets": int(r["datasets"]),
                                  "public": int(r["public"]), "gated": int(r["gated"]), "private": int(r["private"]),
                                  "thin": r["thin"] == "true"} for r in rows}
    assert got_csv == expected
    assert meta["release"] == data["release"] and meta["date"] == data["date"]
    assert meta["provenance"] == data["provenance_note"]
    assert int(meta["tasks_awaiting_review"]) == data["totals"]["tasks_awaiting_review"]

    html = invoke("coverage", "--root", rich, "--format", "html", *extra).output
    attrs = data_attributes(html, "data-subcategory")
    got_html = {k: {"tasks": int(a["tasks"]), "tasks_covered": int(a["covered"]), "tasks_drafted": int(a["drafted"]),
                    "benchmarks": int(a["benchmarks"]), "instances": int(a["instances"]),
                    "datasets": int(a["datasets"]),
                    "public": int(a["public"]), "gated": int(a["gated"]), "private": int(a["private"]),
                    "thin": a["thin"] == "yes"} for k, a in attrs.items()}
    assert got_html == expected
    summary = data_attributes(html, "id")["summary"]
    assert int(summary["covered"]) == data["totals"]["tasks_covered"]
    assert int(summary["datasets"]) == data["totals"]["datasets"]


def test_by_category_and_by_task_match_json(rich, tmp_path):
    data = coverage_json(rich)
    md = invoke("coverage", "--root", rich, "--format", "markdown", "--by", "category").output
    assert [(r["Category"], int(r["Tasks"]), int(r["Covered"]), int(r["Datasets"]))
            for r in markdown_table(md, "Category")] == \
        [(c["name"], c["tasks"], c["tasks_covered"], len(c["datasets"])) for c in data["categories"]]
    _, rows = csv_table(invoke("coverage", "--root", rich, "--format", "csv", "--by", "category").output)
    assert [(r["category"], int(r["thin_subcategories"]), r["dataset_ids"]) for r in rows] == \
        [(c["id"], c["thin_subcategories"], ";".join(c["datasets"])) for c in data["categories"]]

    md = invoke("coverage", "--root", rich, "--format", "markdown", "--by", "task").output
    assert [(r["Id"].strip("`"), int(r["Benchmarks"])) for r in markdown_table(md, "Task")] == \
        [(t["id"], t["benchmarks"]) for t in data["tasks"]]
    meta, rows = csv_with_metadata(invoke, rich, tmp_path, "--by", "task")
    assert meta["clinreg coverage"] == "one row per task"
    assert [(r["task"], r["review"], r["dataset_ids"]) for r in rows] == \
        [(t["id"], t["review"], ";".join(t["datasets"])) for t in data["tasks"]]


def test_every_format_states_release_date_and_drafted_tasks(rich):
    data = coverage_json(rich)
    from clinreg.reports.csvout import render_coverage_csv_metadata

    for fmt in ("markdown", "csv", "html"):
        text = render(fmt, data) if fmt != "csv" else render_coverage_csv_metadata(data)
        assert data["release"] in text and data["date"] in text, fmt
        assert data["provenance_note"] in text.replace("&#39;", "'"), fmt


def test_renderers_recompute_nothing(rich):
    """Change a number in the data and every format shows the changed number: they read, never count."""
    data = coverage_data(load_registry(rich))
    data["subcategories"][0]["tasks_covered"] = 987
    assert "| 987 |" in render("markdown", data)
    assert ",987," in render("csv", data)
    assert 'data-covered="987"' in render("html", data)


def test_unknown_format_or_grouping_is_refused(rich):
    data = coverage_data(load_registry(rich))
    with pytest.raises(ValueError):
        render("pdf", data)
    with pytest.raises(ValueError):
        render("csv", data, by="dataset")


def test_html_is_one_offline_file(rich):
    html = invoke("coverage", "--root", rich, "--format", "html").output
    assert "<svg" in html and "@media print" in html
    assert not re.search(r"<(link|img|iframe|object|embed)\b", html)
    assert not re.search(r"\bsrc\s*=", html)
    assert not re.search(r"url\(|@import|https?://(?!www\.w3\.org/2000/svg)", html.split("</head>")[0])
    assert len(re.findall(r"<script\b", html)) == 1


@pytest.mark.parametrize("name", ["<script>alert(1)</script>", 'Pipes | and `ticks` & <b>bold</b>'])
def test_registry_text_is_escaped_in_every_format(tmp_path, name):
    root = tree_with_task_name(tmp_path / "reg", name)
    html = invoke("coverage", "--root", root, "--format", "html").output
    assert "<script>alert" not in html and "<b>bold" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html or "&lt;b&gt;bold&lt;/b&gt;" in html
    md = invoke("coverage", "--root", root, "--format", "markdown", "--by", "task").output
    rows = markdown_table(md, "Task")
    assert len(rows[0]) == 7, "a pipe in a name must not add a table cell"
    assert "<script>" not in md and "<b>" not in md
    _, rows = csv_table(invoke("coverage", "--root", root, "--format", "csv", "--by", "task").output)
    assert rows[0]["task_name"] == name


def test_csv_keeps_spreadsheet_formulas_inert(tmp_path):
    root = tree_with_task_name(tmp_path / "reg", "=HYPERLINK(\"http://x\")")
    _, rows = csv_table(invoke("coverage", "--root", root, "--format", "csv", "--by", "task").output)
    assert rows[0]["task_name"].startswith("'=")


def test_output_file_is_written_once_and_not_overwritten_without_force(rich, tmp_path):
    target = tmp_path / "out" / "coverage.html"
    first = invoke("coverage", "--root", rich, "--format", "html", "-o", target)
    assert first.exit_code == 0 and target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    again = invoke("coverage", "--root", rich, "--format", "csv", "-o", target)
    assert again.exit_code == 2 and "refusing to overwrite" in again.output
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    forced = invoke("coverage", "--root", rich, "--format", "csv", "-o", target, "--force")
    assert (forced.exit_code == 0
            and target.read_text(encoding="utf-8").startswith("category,category_name,subcategory,"))
    meta = json.loads((target.parent / "coverage.html.meta.json").read_text())
    assert meta["release"] == coverage_json(rich)["release"]


def test_thin_and_uncovered_lists(rich):
    data = coverage_json(rich)
    thin = {s["name"] for s in data["subcategories"] if s["thin"]}
    assert thin == {"Treatment", "Billing & coding", "Scheduling"}
    md = invoke("coverage", "--root", rich, "--format", "markdown").output
    thin_section = md.split("## Thin subcategories")[1].split("##")[0]
    assert "Billing &amp; coding" in thin_section and "Diagnosis" not in thin_section
    html = invoke("coverage", "--root", rich, "--format", "html").output
    assert set(data_attributes(html, "data-thin-subcategory")) == {s["id"] for s in data["subcategories"] if s["thin"]}
    assert "Rank differentials" in html.split('id="uncovered"')[1].split("</section>")[0]
    assert json.loads(json.dumps(data))  # the data path itself is plain JSON
