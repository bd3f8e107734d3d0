"""Chart geometry: colour steps carry labels, bars share a scale, heatmap cells stay inside the drawing."""

from __future__ import annotations

import pytest

from clinreg.core.store import load_registry
from clinreg.reports import svg
from clinreg.reports.coverage import coverage_data
from reports.helpers import richer_tree


@pytest.mark.parametrize("covered, tasks, key", [(0, 5, "none"), (0, 0, "none"), (1, 5, "low"), (2, 5, "some"),
                                                  (3, 5, "half"), (4, 5, "most"), (5, 5, "all")])
def test_coverage_steps(covered, tasks, key):
    step = svg.coverage_step(covered, tasks)
    assert step["key"] == key and step["label"] and step["fill"].startswith("#")


def test_wrap_cuts_long_names_with_an_ellipsis():
    assert svg.wrap("Enhancing Patient Understanding and Accessibility in Health Communication", 22,
                    3)[-1].endswith("…")
    assert svg.wrap("Billing", 22, 3) == ["Billing"]


def test_heatmap_cells_fit_and_follow_the_data(tmp_path):
    data = coverage_data(load_registry(richer_tree(tmp_path / "reg")))
    chart = svg.heatmap(data)
    cells = [c for row in chart["rows"] for c in row["cells"]]
    assert [c["id"] for c in cells] == [s["id"] for s in data["subcategories"]]
    assert all(c["x"] + c["w"] <= chart["width"] and c["y"] + c["h"] <= chart["height"] for c in cells)
    assert [r["id"] for r in chart["rows"]] == ["care", "admin"]


def test_bars_share_a_scale_and_segments_add_up():
    bar = svg.tier_bar({"public": 2, "gated": 1, "private": 0}, scale_max=6, width=180)
    assert [s["tier"] for s in bar["segments"]] == ["public", "gated"]
    assert sum(s["w"] for s in bar["segments"]) == pytest.approx(90)
    tasks = svg.task_bar(2, 4, most_tasks=8, width=160)
    assert tasks["track"] == 80 and tasks["filled"] == 40
    mix = svg.tier_mix({"public": 3, "gated": 1, "private": 0})
    assert [s["label"] for s in mix["segments"]] == ["3 public (75%)", "1 gated (25%)"]
