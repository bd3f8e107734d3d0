"""The judge a benchmark requires, where users meet it: `clinreg show`, coverage in every format, and the card."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from clirunner import invoke
from clinreg.cli.main import main
from trees import DATASET2, write_tree

# plans: MedHELM's three judges (the default) on two axes; 40 instances evaluated, so 120 judge calls a run.
JUDGED = DATASET2.replace("    metric: {name: jury, range: [1, 5]}\n",
                          "    metric: {name: jury, range: [1, 5]}\n    instances: {source: 50, evaluated: 40}\n")
# the same, with two judges of its own: 80 calls a run
_PUBLIC = "          - {{name: {}, model: openai/{m}, helm_deployment: openai/{m}}}\n"
_JUDGES = _PUBLIC.format("a", m="gpt-4o-2024-05-13") + _PUBLIC.format("b", m="gpt-4.1-2025-04-14")
TWO_JUDGES = JUDGED.replace("      jury:\n", "      jury:\n        judges:\n" + _JUDGES)


def _tree(tmp_path, record=JUDGED):
    return write_tree(tmp_path / "reg", {"registry/datasets/plans.yaml": record})


def _cli(*args) -> str:
    result = invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_show_states_the_judge_calls_and_portability(tmp_path):
    root = _tree(tmp_path)
    data = json.loads(_cli("show", "plans", "--root", root, "--format", "json"))
    record = data["data"]
    judge = record["benchmarks"][0]["judge"]
    assert judge["needs_judge"] is True and judge["judge_calls_per_instance"] == 3
    assert judge["ratings_per_instance"] == 6 and judge["judge_calls"] == 120
    assert judge["judge_calls_instances"] == "evaluated" and judge["portable"] is False
    text = _cli("show", "plans", "--root", root)
    assert "judge: needs an LLM jury" in text
    assert re.search(r"judge calls: 3 per instance, 120 per model run", " ".join(text.split()))
    closed = json.loads(_cli("show", "qa_set", "--root", root, "--format", "json"))
    assert closed["data"]["benchmarks"][0]["judge"]["needs_judge"] is False
    assert "judge: none needed" in _cli("show", "qa_set", "--root", root)


def test_judges_on_public_deployments_show_as_portable(tmp_path):
    root = _tree(tmp_path, TWO_JUDGES)
    data = json.loads(_cli("show", "plans", "--root", root, "--format", "json"))
    judge = data["data"]["benchmarks"][0]["judge"]
    assert (judge["judge_calls_per_instance"], judge["judge_calls"], judge["portable"]) == (2, 80, True)


@pytest.mark.parametrize("record, calls", [(JUDGED, 120), (TWO_JUDGES, 80)])
def test_coverage_sums_judge_calls_in_json_csv_markdown_and_text(tmp_path, record, calls):
    root = _tree(tmp_path, record)
    data = json.loads(_cli("coverage", "--root", root, "--format", "json"))
    data = data["data"]
    assert data["totals"]["judge_calls"] == calls and data["totals"]["judged_benchmarks"] == 1
    sub = next(s for s in data["subcategories"] if "plans" in s["datasets"])
    assert sub["judge_calls"] == calls and sub["judge_calls_uncounted"] == []
    assert all(s["judge_calls"] == 0 for s in data["subcategories"] if "plans" not in s["datasets"])
    (plans,) = [d for d in data["datasets"] if d["id"] == "plans"]  # the requirement itself, per benchmark
    assert plans["judge"]["plans"]["needs_judge"] is True and plans["judge"]["plans"]["judge_calls"] == calls
    assert plans["judge"]["plans"]["judge_calls_per_instance"] == calls // 40
    rows = list(csv.DictReader(line for line in io.StringIO(_cli("coverage", "--root", root, "--format", "csv"))
                               if not line.startswith("#")))
    assert {r["subcategory"]: int(r["judge_calls"]) for r in rows}[sub["id"]] == calls
    markdown = _cli("coverage", "--root", root, "--format", "markdown")
    assert f"{calls} judge calls per model run" in markdown and "| Judge calls |" in markdown
    text = _cli("coverage", "--root", root)
    assert "Judge" in text.splitlines()[next(i for i, line in enumerate(text.splitlines()) if "Subcategory" in line)]
    assert f"  {calls}" in text


def test_a_benchmark_whose_calls_cannot_be_counted_makes_the_sum_a_floor(tmp_path):
    root = _tree(tmp_path, DATASET2)  # no instance counts: the calls cannot be counted
    data = json.loads(_cli("coverage", "--root", root, "--format", "json"))
    data = data["data"]
    assert data["totals"]["judge_calls_uncounted"] == ["plans"] and data["totals"]["judge_calls"] == 0
    assert "0+" in _cli("coverage", "--root", root)
    assert "whether a judge is needed not known, for plans" in _cli("coverage", "--root", root, "--format", "markdown")


def test_the_card_shows_the_judge_it_needs(tmp_path):
    root = _tree(tmp_path)
    out = tmp_path / "site"
    _cli("site", "--root", root, "-o", out)
    page = (out / "dataset-plans.html").read_text(encoding="utf-8")
    block = page.split("The judge it needs", 1)[1].split("</dl>", 1)[0]
    words = " ".join(re.sub(r"<[^>]+>", " ", block).split())
    assert "needs an LLM jury" in words and "3 per instance, 120 per model run" in words
    assert 'data-needs-judge="yes"' in page and 'data-portable="no"' in page
    closed = (out / "dataset-qa_set.html").read_text(encoding="utf-8")
    assert 'data-needs-judge="no"' in closed and "none needed" in closed


def test_show_prints_how_a_benchmark_clinreg_cannot_express_is_scored():
    from clinreg.core.store import load_registry

    reg = load_registry()
    found = next(((d.id, m) for d in sorted(reg.datasets.values(), key=lambda d: d.id) for m in d.mappings
                  if m.scoring is None and m.scoring_note), None)
    if found is None:
        pytest.skip("no embedded benchmark has a scoring note")
    record, mapping = found
    text = " ".join(_cli("show", record).split())
    assert "how it is scored (clinreg cannot express it): " + " ".join(mapping.scoring_note.split())[:60] in text
    assert "judge: not known" in text
    data = json.loads(_cli("show", record, "--format", "json"))["data"]
    bench = next(b for b in data["benchmarks"] if b["id"] == mapping.id)
    assert bench["scoring"]["note"] and bench["judge"]["needs_judge"] is None
