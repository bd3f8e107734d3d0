"""A record outside MedHELM (`in_medhelm: false`) is marked in every report and adds nothing to MedHELM's counts."""

from __future__ import annotations

import csv
import io
import json

import yaml

from clirunner import invoke

from clinreg.cli.main import main
from trees import DATASET, RELEASES, replace_in, write_tree

BEYOND = replace_in(replace_in(replace_in(replace_in(DATASET, "id: qa_set", "id: beyond_set"),
                                          "in_medhelm: true", "in_medhelm: false"),
                               "  - id: qa_set", "  - id: beyond_set"), "name: QA set", "name: Beyond set")
BEYOND = replace_in(BEYOND, "repo: owner/qa_set", "repo: owner/beyond_set")
BEYOND = replace_in(BEYOND, "evaluated: 10", "evaluated: 500")


def _tree(tmp_path):
    releases = replace_in(RELEASES, "datasets_added: [qa_set]", "datasets_added: [qa_set, beyond_set]")
    return write_tree(tmp_path / "reg", {"registry/datasets/beyond_set.yaml": BEYOND,
                                         "registry/releases.yaml": releases})


def _run(root, *args):
    result = invoke(main, [*args[:1], "--root", str(root), *args[1:]])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_tree_is_valid(tmp_path):
    root = _tree(tmp_path)
    result = invoke(main, ["validate", "--root", str(root), "--format", "json"])
    errors = [d for d in json.loads(result.stdout)["data"]["diagnostics"] if d["severity"] == "error"]
    assert errors == []


def test_json_counts_medhelm_instances_only_and_marks_the_record(tmp_path):
    data = json.loads(_run(_tree(tmp_path), "coverage", "--format", "json"))["data"]
    t = data["totals"]
    assert (t["datasets"], t["datasets_in_medhelm"], t["datasets_not_in_medhelm"]) == (3, 2, 1)
    assert t["instances"] == 10  # qa_set's 10; beyond_set's 500 are not instances MedHELM evaluated
    by_id = {d["id"]: d for d in data["datasets"]}
    assert by_id["beyond_set"]["in_medhelm"] is False and by_id["qa_set"]["in_medhelm"] is True
    diagnosis = next(s for s in data["subcategories"] if s["id"] == "diagnosis")
    assert diagnosis["not_in_medhelm"] == ["beyond_set"] and diagnosis["instances"] == 10
    care = next(c for c in data["categories"] if c["id"] == "care")
    assert care["not_in_medhelm"] == ["beyond_set"] and care["instances"] == 10


def test_terminal_markdown_csv_and_html_mark_it(tmp_path):
    root = _tree(tmp_path)
    text = _run(root, "coverage", "--by", "task")
    assert "3 datasets (2 in MedHELM, 1 not in MedHELM)" in text
    assert "beyond_set*" in text and "not in MedHELM" in text.split("\n")[-2] + text.split("\n")[-1]
    md = _run(root, "coverage", "--format", "markdown", "--by", "task")
    assert "2 in MedHELM, 1 not in MedHELM" in md and "`beyond_set` (not in MedHELM)" in md
    assert "## Datasets not in MedHELM" in md and "Beyond set (`beyond_set`, added in 1.0.0): not in MedHELM" in md
    rows = list(csv.DictReader(io.StringIO(_run(root, "coverage", "--format", "csv"))))
    diagnosis = next(r for r in rows if r["subcategory"] == "diagnosis")
    assert diagnosis["not_in_medhelm_ids"] == "beyond_set" and diagnosis["instances"] == "10"
    html = _run(root, "coverage", "--format", "html")
    assert 'data-dataset="beyond_set" data-access="public" data-in-medhelm="no"' in html
    assert 'data-dataset="qa_set" data-access="public" data-in-medhelm="yes"' in html
    assert 'data-datasets-in-medhelm="2"' in html and "not in MedHELM</span>" in html


def test_review_documents_mark_it(tmp_path):
    root = _tree(tmp_path)
    md = _run(root, "review", "--format", "markdown")
    assert "Beyond set (public, not in MedHELM)" in md and "QA set (public)" in md
    assert "| Datasets | Not in MedHELM |" in md
    html = _run(root, "review", "--format", "html")
    assert 'data-datasets-not-in-medhelm="1"' in html and 'data-not-in-medhelm="beyond_set"' in html


def test_a_tree_of_medhelm_records_only_says_none_beyond(tmp_path):
    root = write_tree(tmp_path / "reg")
    md = _run(root, "coverage", "--format", "markdown")
    assert "0 not in MedHELM" in md and "None: every dataset counted here is one MedHELM" in md


def test_leaderboard_marks_a_benchmark_outside_medhelm(tmp_path):
    import shutil

    from results.helpers import BOARD, ROOT, write

    root = tmp_path / "reg"
    for folder in ("registry", "taxonomy"):
        shutil.copytree(ROOT / folder, root / folder)
    record = root / "registry" / "datasets" / "med_qa.yaml"
    record.write_text(replace_in(record.read_text(encoding="utf-8"), "in_medhelm: true", "in_medhelm: false"),
                      encoding="utf-8")
    # Membership is read from the editions: take med_qa out of the default edition (the record agrees, CLR308).
    editions = root / "registry" / "medhelm_editions.yaml"
    text = editions.read_text(encoding="utf-8")
    default = yaml.safe_load(text)["default"]
    start = text.index(f"  - id: {default}\n")
    end = text.find("\n  - id: ", start + 1)
    end = len(text) if end < 0 else end
    editions.write_text(text[:start] + text[start:end].replace("      - med_qa\n", "") + text[end:], encoding="utf-8")
    board = write(tmp_path / "board.csv", BOARD)
    data = json.loads(_run(root, "leaderboard", "--format", "json", str(board)))["data"]
    assert {b["record"]: b["in_medhelm"] for b in data["benchmarks"]} == {"med_qa": False, "medcalc_bench": True,
                                                                          "mimic_bhc": True}
    md = _run(root, "leaderboard", "--format", "markdown", str(board))
    assert "3 benchmarks with scores (1 not in MedHELM)" in md and "`med_qa/med_qa` (not in MedHELM)" in md
    html = _run(root, "leaderboard", "--format", "html", str(board))
    assert 'data-in-medhelm="no"' in html and "(1 not in MedHELM)" in html


def test_medhelm_only_view_leaves_the_record_out(tmp_path):
    root = _tree(tmp_path)
    data = json.loads(_run(root, "coverage", "--format", "json", "--medhelm-only"))["data"]
    assert data["medhelm_only"] is True and {d["id"] for d in data["datasets"]} == {"qa_set", "plans"}
    assert "MedHELM only" in _run(root, "coverage", "--medhelm-only")
    assert "MedHELM only" in _run(root, "coverage", "--format", "markdown", "--medhelm-only")


def test_diff_marks_an_added_record_outside_medhelm(tmp_path):
    old = write_tree(tmp_path / "old")
    new = _tree(tmp_path)
    result = invoke(main, ["diff", str(old), str(new), "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert "`beyond_set` (not in MedHELM)" in result.stdout and "`qa_set` (not in MedHELM)" not in result.stdout
