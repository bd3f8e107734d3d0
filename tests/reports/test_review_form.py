"""The offline review form and the reports in headless Chromium, driven over the DevTools protocol: a clinician
fills the form and saves the decisions file; pages fit a phone; printed blocks are never split."""

from __future__ import annotations

import base64
import io
import json
import time
from pathlib import Path

import pytest
from clirunner import invoke

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
    result = invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def page(tmp_path, name, *args):
    out = tmp_path / name
    cli(*args, "-o", out, "--force")
    return out


def _form_and_downloads(tmp_path):
    """A small registry, its review form, and an empty folder for the form's downloads."""
    root = richer_tree(tmp_path / "reg")
    form = page(tmp_path, "review.html", "review", "--root", root)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    return root, form, downloads


def _wait_for_download(folder: Path, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not [p for p in folder.iterdir() if p.suffix == ".json"]:
        time.sleep(0.1)


def test_clinician_fills_the_form_saves_the_file_and_import_applies_it(chromium, tmp_path):
    root, form, downloads = _form_and_downloads(tmp_path)
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
        _wait_for_download(downloads)
        assert browser.console_problems() == []
    saved = [p for p in downloads.iterdir() if p.suffix == ".json"]
    assert len(saved) == 1, list(downloads.iterdir())
    payload = json.loads(saved[0].read_text(encoding="utf-8"))
    assert payload["reviewer"] == {"name": "Dr Ada Lee", "orcid": "0000-0002-1825-0097"}
    assert [(d["id"], d["decision"], d["note"]) for d in payload["decisions"]] == [
        (first, "approved", None), (second, "changes_requested", "Say who reads the result."),
        (third, "rejected", None)]
    assert all(d["content_hash"].startswith("sha256:") for d in payload["decisions"])

    result = invoke(main, ["review", "import", str(saved[0]), "--root", str(root)])
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


@pytest.mark.slow
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


@pytest.mark.slow
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


def _state(browser, task):
    return browser.eval(f"""(() => {{ const a = document.getElementById('task-{task}');
        const r = a.querySelector('input[type=radio]:checked');
        return [r ? r.value : null, a.querySelector('textarea').value]; }})()""")


def test_a_subcategory_decision_is_not_counted_as_a_task(chromium, tmp_path):
    """Issue 40 (14): the form counts tasks and subcategories apart, each out of its own total in the taxonomy."""
    root, form, _ = _form_and_downloads(tmp_path)
    reg = load_registry(root)
    tasks, subs = len(reg.tasks()), len(list(reg.subcategories()))
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(form.resolve().as_uri(), 1000)
        assert browser.eval("document.documentElement.getAttribute('data-form-ready')") == "yes"
        progress = "document.querySelector('.progress > span').textContent.replace(/\\s+/g, ' ').trim()"
        assert browser.eval(progress) == f"0 of {subs} subcategories, 0 of {tasks} tasks decided."
        sub = browser.eval("document.querySelector('article[data-kind=subcategory]').dataset.item")
        browser.click(f"#subcategory-{sub} input[value=approved]")
        assert browser.eval(progress) == f"1 of {subs} subcategories, 0 of {tasks} tasks decided."
        task = browser.eval("document.querySelector('article.task').dataset.task")
        browser.click(f"#task-{task} input[value=rejected]")
        assert browser.eval(progress) == f"1 of {subs} subcategories, 1 of {tasks} tasks decided."
        assert browser.console_problems() == []


def test_decisions_survive_a_closed_tab_can_be_cleared_and_carried_on_from_a_saved_file(chromium, tmp_path):
    """Issue 22, the form: never lose work. Decisions are kept in the browser as they are made and come back when
    the page opens again; a tab with unsaved decisions asks before closing; a decision can be cleared; and a
    saved decisions file opens in another browser to carry on."""
    root, form, downloads = _form_and_downloads(tmp_path)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
        browser.open(form.resolve().as_uri(), 1280)
        first, second, third = browser.eval("Array.from(document.querySelectorAll('article.task')).map(a => "
                                            "a.dataset.task)")[:3]
        browser.type("#reviewer-name", "Dr Ada Lee")
        browser.click(f"#task-{first} input[value=approved]")
        browser.click(f"#task-{second} input[value=changes_requested]")
        browser.type(f"#task-{second} textarea", "Say who reads it.")
        browser.click(f"#task-{third} input[value=rejected]")
        # Unsaved decisions: the page asks before it is closed.
        assert browser.eval("(() => { const e = new Event('beforeunload', {cancelable: true}); "
                            "window.dispatchEvent(e); return e.defaultPrevented; })()") is True
        browser.click(f"#task-{third} .clear-decision")
        assert _state(browser, third) == [None, ""]
        assert browser.eval("document.getElementById('decided-count').textContent") == "2"
        # The same page opened again (a closed tab, a crash): the decisions and the name are back.
        browser.open(form.resolve().as_uri(), 1280)
        assert browser.eval("document.documentElement.getAttribute('data-form-ready')") == "yes"
        assert _state(browser, first) == ["approved", ""]
        assert _state(browser, second) == ["changes_requested", "Say who reads it."]
        assert _state(browser, third) == [None, ""]
        assert browser.eval("document.getElementById('reviewer-name').value") == "Dr Ada Lee"
        assert "filled in again" in browser.eval("document.getElementById('save-message').textContent")
        # The Save button stays on screen wherever the reviewer is, and there is one at the end of the page.
        for width in (1280, 390):
            browser.open(form.resolve().as_uri(), width)
            browser.eval("window.scrollTo(0, document.body.scrollHeight / 2)")
            box = browser.eval("(() => { const r = document.getElementById('save-decisions').getBoundingClientRect();"
                               " return [r.top, r.bottom, window.innerHeight]; })()")
            assert 0 <= box[0] and box[1] <= box[2], (width, box)
        assert browser.eval("!document.getElementById('save-decisions-end').hidden") is True
        browser.click("#save-decisions-end")
        _wait_for_download(downloads)
        assert browser.eval("(() => { const e = new Event('beforeunload', {cancelable: true}); "
                            "window.dispatchEvent(e); return e.defaultPrevented; })()") is False
        assert browser.console_problems() == []
    (saved,) = [p for p in downloads.iterdir() if p.suffix == ".json"]
    # Another browser (another computer): the saved file opens in the form, and the work carries on.
    with Browser(chromium, tmp_path / "other-profile") as browser:
        browser.open(form.resolve().as_uri(), 1280)
        assert _state(browser, first) == [None, ""]
        document = browser.send("DOM.getDocument", session=True)["root"]["nodeId"]
        node = browser.send("DOM.querySelector", {"nodeId": document, "selector": "#open-decisions"},
                            session=True)["nodeId"]
        browser.send("DOM.setFileInputFiles", {"files": [str(saved)], "nodeId": node}, session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "Opened" not in browser.eval(
                "document.getElementById('save-message').textContent"):
            time.sleep(0.1)
        assert _state(browser, first) == ["approved", ""]
        assert _state(browser, second) == ["changes_requested", "Say who reads it."]
        assert browser.eval("document.getElementById('reviewer-name').value") == "Dr Ada Lee"
        assert browser.console_problems() == []


def test_a_subcategory_is_reviewed_in_the_form_and_imported(chromium, tmp_path):
    root, form, downloads = _form_and_downloads(tmp_path)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
        browser.open(form.resolve().as_uri(), 390)
        sub = browser.eval("document.querySelector('article[data-kind=subcategory]').dataset.item")
        browser.type("#reviewer-name", "Dr Ada Lee")
        browser.click(f"#subcategory-{sub} input[value=changes_requested]")
        browser.type(f"#subcategory-{sub} textarea", "Name the setting.")
        browser.click("#save-decisions")
        _wait_for_download(downloads)
        assert browser.console_problems() == []
    (saved,) = [p for p in downloads.iterdir() if p.suffix == ".json"]
    decisions = json.loads(saved.read_text(encoding="utf-8"))["decisions"]
    assert [(d["kind"], d["id"], d["decision"], d["note"]) for d in decisions] == \
        [("subcategory", sub, "changes_requested", "Name the setting.")]
    result = invoke(main, ["review", "import", str(saved), "--root", str(root)])
    assert result.exit_code == 0, result.output
    (found,) = [s for s, *_ in load_registry(root).subcategories() if s.id == sub]
    assert (found.review.status, found.review.reviewers[-1].note) == ("changes_requested", "Name the setting.")


def test_a_note_without_a_decision_is_saved_and_imported_as_a_comment(chromium, tmp_path):
    root, form, downloads = _form_and_downloads(tmp_path)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
        browser.open(form.resolve().as_uri(), 1280)
        first, second = browser.eval("Array.from(document.querySelectorAll('article.task')).map(a => "
                                     "a.dataset.task)")[:2]
        browser.type("#reviewer-name", "Dr Ada Lee")
        browser.click(f"#task-{first} input[value=approved]")
        browser.type(f"#task-{second} textarea", "Who reads the result?")
        browser.click("#save-decisions")
        _wait_for_download(downloads)
        message = browser.eval("document.getElementById('save-message').textContent")
        assert browser.console_problems() == []
    assert message.startswith("Saved 1 decision and 1 comment without a decision as "), message
    (saved,) = [p for p in downloads.iterdir() if p.suffix == ".json"]
    assert [(d["id"], d["decision"], d["note"]) for d in json.loads(saved.read_text(encoding="utf-8"))["decisions"]] \
        == [(first, "approved", None), (second, None, "Who reads the result?")]
    result = invoke(main, ["review", "import", str(saved), "--root", str(root)])
    assert result.exit_code == 0, result.output
    assert "1 comment(s) without a decision recorded as comments" in result.output
    tasks = load_registry(root).tasks()
    entry = tasks[second].task.review.reviewers[-1]
    assert (entry.decision, entry.note, tasks[second].task.review.status) == (None, "Who reads the result?", "proposed")


def test_a_stale_task_shows_the_changed_words_marked_without_colour(chromium, tmp_path):
    from trees import write_tree
    from workflow.test_signoff import CARE, CATEGORY

    root = write_tree(tmp_path / "reg", {CARE: CATEGORY})
    cli("review", "approve", "answer_questions", "--reviewer", "Jane Doe", "--root", root)
    path = root / CARE
    path.write_text(path.read_text(encoding="utf-8").replace(
        "name: Answer questions", "name: Answer patient questions", 1).replace(
        "Answer a clinical question.", "Answer a clinical question from a patient, in plain words.", 1),
                    encoding="utf-8")
    form = page(tmp_path, "review.html", "review", "--root", root)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(form.resolve().as_uri(), 390)
        seen = browser.eval("""(() => {
          const box = document.querySelector('#task-answer_questions .was');
          const marks = sel => Array.from(box.querySelectorAll(sel)).map(e => ({
            field: e.closest('.change').dataset.field, text: e.textContent.trim(),
            line: getComputedStyle(e).textDecorationLine}));
          const shown = box.cloneNode(true);  // the words on screen: without the screen reader's labels
          shown.querySelectorAll('.sr').forEach(e => e.remove());
          return {text: shown.textContent.replace(/\\s+/g, ' '), del: marks('del'), ins: marks('ins'),
                  fields: Array.from(box.querySelectorAll('.change')).map(c => c.dataset.field),
                  fits: box.getBoundingClientRect().right <= innerWidth};
        })()""")
        assert browser.console_problems() == []
    assert seen["fields"] == ["name", "definition"]
    # Only the changed words are marked (here nothing removed, two runs added), and a screen reader hears which.
    assert seen["del"] == []
    assert [(m["field"], m["text"]) for m in seen["ins"]] == [
        ("name", "[added: patient]"), ("definition", "[added: from a patient, in plain words]")]
    assert all(m["line"] == "underline" for m in seen["ins"])  # marked by more than colour
    assert "Answer patient questions" in seen["text"]
    assert "Answer a clinical question from a patient, in plain words." in seen["text"]
    assert seen["text"].count("Answer a clinical question") == 1  # not the old and the new sentence in full
    assert "struck-through words were removed, underlined words are new" in seen["text"]
    assert seen["fits"]


def test_a_replaced_word_is_struck_through_beside_its_replacement(chromium, tmp_path):
    from trees import write_tree
    from workflow.test_signoff import CARE, CATEGORY

    root = write_tree(tmp_path / "reg", {CARE: CATEGORY})
    cli("review", "approve", "answer_questions", "--reviewer", "Jane Doe", "--root", root)
    path = root / CARE
    path.write_text(path.read_text(encoding="utf-8").replace("Answer a clinical question.", "Answer any question.", 1),
                    encoding="utf-8")
    form = page(tmp_path, "review.html", "review", "--root", root)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(form.resolve().as_uri(), 1280)
        seen = browser.eval("""(() => {
          const change = document.querySelector('#task-answer_questions .was .change[data-field=definition]');
          const shown = change.cloneNode(true);
          shown.querySelectorAll('.sr').forEach(e => e.remove());
          return {text: shown.textContent.replace(/\\s+/g, ' ').trim(),
                  del: Array.from(change.querySelectorAll('del')).map(e => [e.textContent, \
getComputedStyle(e).textDecorationLine]),
                  ins: Array.from(change.querySelectorAll('ins')).map(e => [e.textContent, \
getComputedStyle(e).textDecorationLine])};
        })()""")
        assert browser.console_problems() == []
    assert seen["del"] == [["[removed: a clinical]", "line-through"]]
    assert seen["ins"] == [["[added: any]", "underline"]]
    assert seen["text"] == "Definition: Answer a clinical any question."  # what a sighted reader sees, in order


def test_provenance_reads_in_plain_words_with_dataset_names(chromium, tmp_path):
    """The real registry's form: no raw field tag, benchmarks by their display names, and who placed each task."""
    from clinreg.core.provenance import dataset_names

    names = dataset_names(load_registry(REPO))
    form = page(tmp_path, "review.html", "review", "--root", REPO)
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(form.resolve().as_uri(), 390)
        facts = browser.eval("""Array.from(document.querySelectorAll('article.task')).map(a => {
          const dts = Array.from(a.querySelectorAll('.facts dt'));
          const dt = dts.find(d => d.textContent.trim() === 'Provenance');
          return [a.dataset.task, dt.nextElementSibling.innerText]; })""")
        notes = browser.eval("Array.from(document.querySelectorAll('.sub-head .note')).map(n => n.innerText)")
        assert browser.console_problems() == []
    text = "\n".join(t for _, t in facts) + "\n" + "\n".join(notes)
    assert "subcategory_assignment" not in text
    import re

    ids = re.compile(r"(?<![\w/.-])(" + "|".join(map(re.escape, names)) + r")(?![\w/-]|\.\w)")
    assert ids.findall(text) == []  # no lower-case dataset or benchmark id left in the provenance
    placed = [t for _, t in facts if "Placed in this subcategory by clinreg (inferred), not by MedHELM." in t]
    assert len(placed) >= 30
    derived = [t for _, t in facts if t.startswith("Worded from the description of ")]
    assert derived and all(any(name in t for name in set(names.values())) for t in derived)
