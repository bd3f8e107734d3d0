"""The offline review form and the reports in headless Chromium, driven over the DevTools protocol: a clinician
fills the form and saves the decisions file; pages fit a phone; printed blocks are never split."""

from __future__ import annotations

import base64
import io
import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from clinreg.cli.main import main
from clinreg.core.store import load_registry
from reports.cdp import Browser
from reports.helpers import richer_tree
from workflow.helpers import only_review_lines_changed

pytestmark = pytest.mark.browser

MIN_FONT_PX = 12
# Print tests use the real registry: 5 categories and 121 tasks are enough to force page breaks.
REPO = Path(__file__).resolve().parents[2]


def cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def page(tmp_path, name, *args):
    out = tmp_path / name
    cli(*args, "-o", out, "--force")
    return out


def test_clinician_fills_the_form_saves_the_file_and_import_applies_it(chromium, tmp_path):
    root = richer_tree(tmp_path / "reg")
    form = page(tmp_path, "review.html", "review", "--root", root)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    files = {p: p.read_text(encoding="utf-8") for p in (root / "taxonomy").glob("*.yaml")}
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads),
                                                     "eventsEnabled": True})
        browser.open(form.resolve().as_uri(), 1000)
        assert browser.eval("document.documentElement.getAttribute('data-form-ready')") == "yes"
        tasks = browser.eval("Array.from(document.querySelectorAll('article.task')).map(a => a.dataset.task)")
        assert len(tasks) >= 3
        first, second, third = tasks[:3]
        browser.type("#reviewer-name", "Dr Ada Lee")
        browser.type("#reviewer-orcid", "0000-0002-1825-0097")
        browser.click(f"#task-{first} input[value=approved]")
        browser.click(f"#task-{second} input[value=changes_requested]")
        browser.type(f"#task-{second} textarea", "Say who reads the result.")
        browser.click(f"#task-{third} input[value=rejected]")
        assert browser.eval("document.getElementById('decided-count').textContent") == "3"
        browser.click("#save-decisions")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not [p for p in downloads.iterdir() if p.suffix == ".json"]:
            time.sleep(0.1)
        assert browser.console_problems() == []
    saved = [p for p in downloads.iterdir() if p.suffix == ".json"]
    assert len(saved) == 1, list(downloads.iterdir())
    payload = json.loads(saved[0].read_text(encoding="utf-8"))
    assert payload["reviewer"] == {"name": "Dr Ada Lee", "orcid": "0000-0002-1825-0097"}
    assert [(d["id"], d["decision"], d["note"]) for d in payload["decisions"]] == [
        (first, "approved", None), (second, "changes_requested", "Say who reads the result."), (third, "rejected", None)]
    assert all(d["content_hash"].startswith("sha256:") for d in payload["decisions"])

    result = CliRunner().invoke(main, ["review", "import", str(saved[0]), "--root", str(root)])
    assert result.exit_code == 0, result.output
    for path, before in files.items():
        assert only_review_lines_changed(before, path.read_text(encoding="utf-8")), path
    reg = load_registry(root).tasks()
    assert [reg[t].task.review.reviewers[-1].decision for t in (first, second, third)] == \
        ["approved", "changes_requested", "rejected"]
    assert reg[second].task.review.reviewers[-1].note == "Say who reads the result."
    assert reg[first].task.review.reviewers[-1].orcid == "0000-0002-1825-0097"


LAYOUT = """(() => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (!el || !el.getClientRects().length) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < %d) small.push([el.tagName + '.' + el.className, size, node.textContent.trim().slice(0, 30)]);
  }
  const svgText = Array.from(document.querySelectorAll('svg text')).filter(t => t.getClientRects().length).map(t => {
    const r = t.getBoundingClientRect(); return [t.textContent.slice(0, 30), r.height];
  }).filter(([_, h]) => h < %d * 0.9);
  const wide = Array.from(document.querySelectorAll('body *')).filter(el => {
    const r = el.getBoundingClientRect(); return r.width && r.right > innerWidth + 1 &&
      !el.closest('.scroll');
  }).slice(0, 5).map(el => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right));
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: innerWidth, small: small.slice(0, 10),
          svgText: svgText.slice(0, 10), wide: wide};
})()""" % (MIN_FONT_PX, MIN_FONT_PX)


@pytest.mark.parametrize("command", [("coverage", "--format", "html"), ("review",)])
@pytest.mark.parametrize("width", [360, 390, 420])
def test_pages_fit_a_phone_with_readable_text(chromium, tmp_path, command, width):
    root = richer_tree(tmp_path / "reg")
    html = page(tmp_path, "page.html", *command, "--root", root)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(html.resolve().as_uri(), width)
        layout = browser.eval(LAYOUT)
        assert browser.console_problems() == []
    assert layout["innerWidth"] == width
    assert layout["scrollWidth"] <= layout["innerWidth"], layout["wide"]
    assert layout["small"] == [], f"text under {MIN_FONT_PX}px"
    assert layout["svgText"] == [], "chart labels drawn smaller than readable text"


def _pdf_pages(browser: Browser) -> list[str]:
    from pypdf import PdfReader

    data = browser.send("Page.printToPDF", {"printBackground": True, "preferCSSPageSize": True,
                                            "displayHeaderFooter": False}, session=True, timeout=60)["data"]
    return [p.extract_text() or "" for p in PdfReader(io.BytesIO(base64.b64decode(data))).pages]


def _flat(text: str) -> str:
    import unicodedata

    return " ".join(unicodedata.normalize("NFKC", text).split())  # undo the PDF's ligatures (ﬀ, ﬁ)


def test_printed_coverage_keeps_each_category_block_on_one_page(chromium, tmp_path):
    pytest.importorskip("pypdf")
    from clinreg.reports.coverage import coverage_data

    root = REPO
    data = coverage_data(load_registry(root))
    html = page(tmp_path, "coverage.html", "coverage", "--format", "html", "--root", root)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(html.resolve().as_uri(), 1000)
        pages = [_flat(p) for p in _pdf_pages(browser)]
    assert len(pages) >= 2
    for category in data["categories"]:
        names = [s["name"] for s in data["subcategories"] if s["category"] == category["id"]]
        # the category's block in the subcategory table: its heading and every row on one page
        holding = [i for i, text in enumerate(pages) if category["name"] in text and all(n in text for n in names)]
        assert holding, f"{category['name']} and its subcategories are not on one page"


def test_printed_review_document_keeps_every_task_whole_and_numbers_pages(chromium, tmp_path):
    pytest.importorskip("pypdf")
    root = REPO
    doc = json.loads(cli("review", "--format", "json", "--root", root).output)["data"]
    tasks = [t for c in doc["categories"] for s in c["subcategories"] for t in s["tasks"]]
    html = page(tmp_path, "review.html", "review", "--root", root)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(html.resolve().as_uri(), 1000)
        pages = [_flat(p) for p in _pdf_pages(browser)]
    for number, task in enumerate(tasks, start=1):
        head, decision = f"Task {number} of {len(tasks)}", f"Your decision on task {number}"
        assert any(head in p and task["name"] in p and decision in p for p in pages), f"task {number} is split"
    assert f"page 1 of {len(pages)}" in pages[0] and f"page {len(pages)} of {len(pages)}" in pages[-1]
