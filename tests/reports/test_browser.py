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
    assert {k: (int(a["tasks"]), int(a["covered"]), int(a["datasets"]), int(a["instances"]))
            for k, a in rows.items()} == \
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


PHONE_TABLES = """(() => {
  const out = {innerWidth: innerWidth, tables: {}};
  for (const table of document.querySelectorAll('table.records')) {
    const box = table.closest('.scroll');
    const cells = Array.from(table.querySelectorAll('tbody tr:not([hidden]) td'));
    out.tables[table.id] = {
      overflow: box.scrollWidth - box.clientWidth,
      offscreen: cells.filter(td => td.getBoundingClientRect().right > innerWidth + 1).length,
      labels: Array.from(new Set(cells.map(td => getComputedStyle(td, '::before').content))).sort(),
      last: Array.from(table.querySelectorAll('tbody tr')).map(tr => tr.lastElementChild.innerText)};
  }
  return out;
})()"""


@pytest.mark.parametrize("width", [390, 1280])
def test_coverage_tables_show_every_column_on_a_phone(chromium, tmp_path, width):
    """At 390 px each task and dataset reflows into labelled lines, the Datasets column on screen; at 1280 px the
    tables stay tables."""
    from reports.cdp import Browser

    root = richer_tree(tmp_path / "reg")
    data = json.loads(invoke("coverage", "--root", root, "--format", "json").output)["data"]
    page = write(tmp_path, "coverage.html", "coverage", "--format", "html", "--root", root)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(page.resolve().as_uri(), width)
        seen = browser.eval(PHONE_TABLES)
        heads = browser.eval("Array.from(document.querySelectorAll('table.records thead'))"
                             ".map(h => getComputedStyle(h).display)")
        assert browser.console_problems() == []
    tasks, datasets = seen["tables"]["task-table"], seen["tables"]["dataset-table"]
    assert tasks["last"] == [", ".join(t["datasets"]) if t["datasets"] else "none" for t in data["tasks"]]
    for table in (tasks, datasets):
        assert table["offscreen"] == 0 and table["overflow"] <= 0, seen
    if width == 390:
        assert heads == ["none", "none"]
        assert '"Datasets: "' in tasks["labels"] and '"Tasks: "' in datasets["labels"]
    else:
        assert heads == ["table-header-group", "table-header-group"]
        assert tasks["labels"] == ["none"] and datasets["labels"] == ["none"]


def _edge_darkness(browser, selector: str, tmp_path) -> tuple[float, float]:
    """Mean darkness (0 white .. 255 black) of the 8 px strips inside the left and right edges of the element's box,
    read from a screenshot of the viewport (a capture beyond it would resize the page and move the scroll)."""
    import base64

    from reports.png import read_png

    box = browser.eval(f"""(() => {{ const b = document.querySelector({json.dumps(selector)});
        b.scrollIntoView({{block: 'start'}}); const r = b.getBoundingClientRect();
        return [Math.round(r.left), Math.round(r.right), Math.max(0, Math.round(r.top)),
                Math.min(innerHeight, Math.round(r.bottom))]; }})()""")
    shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=True)
    path = tmp_path / "box.png"
    path.write_bytes(base64.b64decode(shot["data"]))
    _, _, channels, rows = read_png(path)
    left, right, top, bottom = box

    def strip(x0: int, x1: int) -> float:
        values = [row[x * channels + c] for row in rows[top:bottom] for x in range(x0, x1) for c in range(3)]
        return 255 - sum(values) / len(values)

    return strip(left, left + 8), strip(right - 8, right)


def test_a_table_wider_than_its_box_shows_a_scroll_shadow(chromium, tmp_path):
    """Between phone and desktop the dataset table is clipped; a shadow marks the side that has more to scroll to."""
    from pathlib import Path

    from reports.cdp import Browser

    repo = Path(__file__).resolve().parents[2]
    page = write(tmp_path, "coverage.html", "coverage", "--format", "html", "--root", repo)
    plain = "document.getElementById('clipped-box').style.boxShadow = 'none'"
    shaded = "document.getElementById('clipped-box').style.boxShadow = ''"
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(page.resolve().as_uri(), 700)
        clipped = browser.eval("(() => { const b = document.querySelector('#dataset-table').closest('.scroll');"
                               " b.id = 'clipped-box'; return b.scrollWidth - b.clientWidth; })()")
        assert clipped > 20, "the dataset table fits at 700 px; this test needs a clipped table"
        shadow = {}
        for end, scroll in (("start", 0), ("end", 10**6)):
            browser.eval(f"document.getElementById('clipped-box').scrollLeft = {scroll}")
            browser.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")  # scroll event ran
            browser.eval(plain)
            left0, right0 = _edge_darkness(browser, "#clipped-box", tmp_path)
            browser.eval(shaded)
            left1, right1 = _edge_darkness(browser, "#clipped-box", tmp_path)
            shadow[end] = (left1 - left0, right1 - right0)  # what the box's own shadow adds at each edge
        assert browser.console_problems() == []
    # More to the right at the start: a shadow on the right edge only; scrolled to the end: on the left only.
    assert shadow["start"][1] > 1.5 and abs(shadow["start"][0]) < 0.5, shadow
    assert shadow["end"][0] > 1.5 and abs(shadow["end"][1]) < 0.5, shadow
