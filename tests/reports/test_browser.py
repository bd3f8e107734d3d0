"""The HTML report and review document in headless Chromium: no console errors, a drawn page, the JSON's numbers."""

from __future__ import annotations

import json

import pytest

from reports.helpers import (
    console_problems,
    data_attributes,
    invoke,
    richer_tree,
    run_chromium,
    tree_with_task_name,
)
from reports.png import grey_variance

pytestmark = pytest.mark.browser

ATTACK = "<script>document.documentElement.setAttribute('data-pwned','yes')</script>"



def write(tmp_path, name, *args):
    page = tmp_path / name
    result = invoke(*args, "-o", page)
    assert result.exit_code == 0, result.output
    return page


@pytest.mark.parametrize("command", [("coverage", "--format", "html"), ("review",)])
def test_page_runs_cleanly_and_is_drawn(chromium, tmp_path, command):
    root = richer_tree(tmp_path / "reg")
    page = write(tmp_path, "page.html", *command, "--root", root)
    shot = tmp_path / "page.png"
    _, err = run_chromium(chromium, page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,2000")
    assert console_problems(err) == []
    assert shot.exists(), err[-2000:]
    assert grey_variance(shot) > 200, "the screenshot looks blank"


def test_coverage_dom_numbers_equal_json_and_script_ran(chromium, tmp_path):
    root = richer_tree(tmp_path / "reg")
    data = json.loads(invoke("coverage", "--root", root, "--format", "json").output)["data"]
    page = write(tmp_path, "coverage.html", "coverage", "--format", "html", "--root", root)
    dom, err = run_chromium(chromium, page, tmp_path / "profile", "--dump-dom")
    assert console_problems(err) == []
    assert 'data-filter-ready="yes"' in dom, "the inline filter script did not finish"
    rows = data_attributes(dom, "data-subcategory")
    assert {k: (int(a["tasks"]), int(a["covered"]), int(a["datasets"]), int(a["instances"])) for k, a in rows.items()} == \
        {s["id"]: (s["tasks"], s["tasks_covered"], len(s["datasets"]), s["instances"]) for s in data["subcategories"]}


def test_review_dom_lists_every_task(chromium, tmp_path):
    root = richer_tree(tmp_path / "reg")
    doc = json.loads(invoke("review", "--root", root, "--format", "json").output)["data"]
    page = write(tmp_path, "review.html", "review", "--root", root)
    dom, err = run_chromium(chromium, page, tmp_path / "profile", "--dump-dom")
    assert console_problems(err) == []
    assert set(data_attributes(dom, "data-task")) == {t["id"] for c in doc["categories"] for s in c["subcategories"]
                                                      for t in s["tasks"]}


@pytest.mark.parametrize("command", [("coverage", "--format", "html"), ("review",)])
def test_script_in_a_task_name_renders_as_text(chromium, tmp_path, command):
    root = tree_with_task_name(tmp_path / "reg", ATTACK)
    page = write(tmp_path, "page.html", *command, "--root", root)
    dom, err = run_chromium(chromium, page, tmp_path / "profile", "--dump-dom")
    assert console_problems(err) == []
    assert "data-pwned" not in dom.split("<body")[0], "the injected script ran"
    assert "&lt;script&gt;document.documentElement" in dom
    assert dom.count("<script") == (1 if command[0] == "coverage" else 2)  # the review form: its data and its script


def test_filter_from_the_link_hides_other_rows(chromium, tmp_path):
    root = richer_tree(tmp_path / "reg")
    page = write(tmp_path, "coverage.html", "coverage", "--format", "html", "--root", root)
    dom, err = run_chromium(chromium, page, tmp_path / "profile", "--dump-dom", fragment="#filter=rosters")
    assert console_problems(err) == []
    tasks = data_attributes(dom, "data-task")
    shown = {k for k, a in tasks.items() if ":hidden" not in a}
    assert shown == {"build_rosters"}
    assert "showing 1 of 6" in dom


def test_coverage_numbers_show_a_narrow_space_not_an_escape(chromium, tmp_path):
    """The real registry counts thousands of instances: Chromium's rendered text holds U+202F, never `\\u202f`."""
    from pathlib import Path

    from reports.cdp import Browser

    repo = Path(__file__).resolve().parents[2]
    page = write(tmp_path, "coverage.html", "coverage", "--format", "html", "--root", repo)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(page.resolve().as_uri(), 1280)
        text = browser.eval("document.body.innerText")
        tiles = browser.eval("Array.from(document.querySelectorAll('.tile .value')).map(e => e.textContent)")
        assert browser.console_problems() == []
    assert "\\u202f" not in text and "&#8239;" not in text
    big = [t for t in tiles if "\u202f" in t]
    assert big, tiles
    assert all(t.replace("\u202f", "").isdigit() for t in big), big
    assert text.count("\u202f") >= len(big)
