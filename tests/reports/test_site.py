"""`clinreg site`: the files it writes, and the site in headless Chromium at phone and desktop width: no
horizontal overflow, every internal link and anchor resolves, the keyboard reaches the search and the links
with a visible focus, the filters work, axe-core finds no serious or critical violation, and hostile registry
strings stay text."""

from __future__ import annotations

import importlib.util
import json
import os
import tarfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from clirunner import clinreg as run

from clinreg.core.store import load_registry
from reports.cdp import Browser
from reports.helpers import richer_tree
from trees import DATASET, replace_in, write_tree

REPO = Path(__file__).resolve().parents[2]
WIDTHS = (390, 1280)
CAUTION = "cannot be read as accuracy"
HOSTILE = "<script>document.documentElement.setAttribute('data-pwned','yes')</script> \"quoted\" & 'single'"


def _load_checker():
    spec = importlib.util.spec_from_file_location("check_site_links", REPO / ".ci" / "check_site_links.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(out: Path, *args) -> dict:
    result = run("site", "-o", out, "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["data"]


@pytest.fixture(scope="module")
def embedded_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    build(out)
    return out


# --------------------------------------------------------------------------------------------- the files


def test_site_has_a_page_per_category_subcategory_and_dataset(tmp_path):
    root = richer_tree(tmp_path / "reg")
    data = build(tmp_path / "site", "--root", root)
    reg = load_registry(root)
    names = set(data["files"])
    assert {f"dataset-{d}.html" for d in reg.datasets} <= names
    assert {f"category-{c}.html" for c in reg.categories} <= names
    assert {f"subcategory-{s.id}.html" for s, *_ in reg.subcategories()} <= names
    assert {"index.html", "changes.html", "site.css", "site.js"} <= names
    assert data["pages"] == sum(n.endswith(".html") for n in names) and data["datasets"] == len(reg.datasets)
    assert data["release"] == "1.1.0" and data["previous"] == "1.0.0"
    for name in names:
        assert (tmp_path / "site" / name).is_file()


def test_every_page_carries_the_leaderboard_caution_and_the_release(embedded_site):
    release = load_registry().current_release
    for page in embedded_site.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert CAUTION in text and "cannot be carried across releases" in text, page.name
        assert f"release {release}" in text, page.name


def test_card_shows_sources_unknowns_with_reasons_and_derived_graders(embedded_site):
    text = (embedded_site / "dataset-ehr_sql.html").read_text(encoding="utf-8")
    assert "graded: execution" not in text  # the index carries the tag; the card names the kind beside the method
    assert (">execution</span>" in text and "Which clinical tasks does it measure?" in text
            and "How are scores reported?" in text)
    assert "Why: The sources clinreg read" in text  # languages unknown, with the reason
    medcalc = (embedded_site / "dataset-medcalc_bench.html").read_text(encoding="utf-8")
    assert "Source: Hub page of ncbi/MedCalc-Bench" in medcalc
    jury = (embedded_site / "dataset-aci_bench.html").read_text(encoding="utf-8")
    assert "LLM jury" in jury and "not a share of correct answers" in jury


def test_a_record_whose_scoring_cannot_be_expressed_is_not_graded_automatic(embedded_site):
    # Issue 40, item 2: CPC-Bench and First Do NOHARM say NOT EXPRESSIBLE in their scoring_note.
    index = (embedded_site / "index.html").read_text(encoding="utf-8")
    for ds_id in ("cpc_bench", "first_donoharm"):
        card = index.split(f'data-id="{ds_id}"', 1)[1].split("</li>", 1)[0]
        assert "graded: not expressible" in card and "graded: automatic" not in card, ds_id
        page = (embedded_site / f"dataset-{ds_id}.html").read_text(encoding="utf-8")
        assert ">not expressible</span>" in page and ">automatic</span>" not in page, ds_id
        assert "graded automatic" not in page


def test_drafted_tasks_say_whose_words_they_are(embedded_site):
    reg = load_registry()
    drafted = next(t for t in reg.tasks().values() if t.task.provenance.kind == "drafted")
    text = (embedded_site / f"subcategory-{drafted.subcategory.id}.html").read_text(encoding="utf-8")
    block = text.split(f'id="task-{drafted.task.id}"', 1)[1].split("</li>", 1)[0]
    assert "Drafted by clinreg" in block and "awaiting clinician review" in block


def test_every_internal_link_and_anchor_resolves(embedded_site):
    broken, checked = _load_checker().broken_links(embedded_site)
    assert broken == [] and checked > 500


def test_the_link_checker_finds_a_missing_page_and_a_missing_anchor(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<a href="nope.html">x</a><a href="b.html#gone">y</a><a href="b.html#here">z</a>')
    (site / "b.html").write_text('<h1 id="here">b</h1><a href="javascript:alert(1)">j</a>')
    broken, checked = _load_checker().broken_links(site)
    assert sorted(b.split(":")[0] for b in broken) == ["b.html", "index.html", "index.html"] and checked == 3
    assert any("nope.html" in b for b in broken) and any("#gone" in b for b in broken)


def test_an_unwritable_folder_is_a_usage_error_and_writes_nothing(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = run("site", "-o", blocker / "site", "--format", "json")
    assert result.exit_code == 2
    assert json.loads(result.output.strip().splitlines()[-1])["kind"] == "error"
    assert blocker.read_text() == "x"


@pytest.mark.slow
def test_a_folder_of_other_files_is_refused_and_an_earlier_build_replaced(tmp_path):
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    result = run("site", "-o", other)
    assert result.exit_code == 2 and "did not write" in result.output
    assert [p.name for p in other.iterdir()] == ["keep.txt"]
    out = tmp_path / "site"
    build(out)
    (out / "stale.html").write_text("old")
    build(out)
    assert not (out / "stale.html").exists() and (out / "index.html").is_file()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging folder left behind


def test_compare_with_links_to_the_other_card(tmp_path):
    data = build(tmp_path / "site", "--root", write_tree(tmp_path / "reg"))
    assert "dataset-plans.html" in data["files"]
    text = (tmp_path / "site" / "dataset-qa_set.html").read_text(encoding="utf-8")
    assert '<a href="dataset-plans.html">Plans</a>: Both are in this fixture.' in text


def test_a_bad_previous_side_is_a_usage_error(tmp_path):
    result = run("site", "-o", tmp_path / "site", "--root", write_tree(tmp_path / "reg"), "--previous", "9.9.9")
    assert result.exit_code == 2 and not (tmp_path / "site").exists()


# --------------------------------------------------------------------------------------------- in Chromium


def _goto(browser: Browser, url: str) -> None:
    browser.events.clear()
    browser.send("Page.navigate", {"url": url}, session=True)
    browser.wait_event("Page.loadEventFired")


def _key(browser: Browser, key: str, shift: bool = False) -> None:
    codes = {"Tab": 9}
    for kind in ("keyDown", "keyUp"):
        browser.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": key, "modifiers": 8 if shift else 0,
                                                "windowsVirtualKeyCode": codes[key]}, session=True)


OVERFLOW = """(() => { const d = document.documentElement;
  const wide = [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > d.clientWidth + 1)
    .slice(0, 3).map(e => e.tagName + '.' + e.className);
  return {scroll: d.scrollWidth, client: d.clientWidth, wide}; })()"""

LINKS = """[...document.querySelectorAll('a[href], link[href], script[src]')].map(e => e.href || e.src)"""


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_overflows_and_every_link_resolves_in_chromium(chromium, embedded_site, tmp_path, width):
    ids: dict[str, set[str]] = {}
    links: dict[str, list[str]] = {}
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open("about:blank", width, 900)
        for page in sorted(embedded_site.glob("*.html")):
            _goto(browser, page.as_uri())
            box = browser.eval(OVERFLOW)
            assert box["scroll"] <= box["client"], (page.name, width, box)
            ids[page.name] = set(browser.eval("[...document.querySelectorAll('[id]')].map(e => e.id)"))
            links[page.name] = browser.eval(LINKS)
            assert browser.console_problems() == [], page.name
    checked = 0
    for name, hrefs in links.items():
        for href in hrefs:
            parts = urlsplit(href)
            if parts.scheme == "https":
                continue
            assert parts.scheme == "file", (name, href)
            target = Path(unquote(parts.path))
            assert target.parent == embedded_site and target.is_file(), (name, href)
            if parts.fragment:
                assert unquote(parts.fragment) in ids[target.name], (name, href)
            checked += 1
    assert checked > 500


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_keyboard_reaches_the_search_and_links_with_visible_focus(chromium, embedded_site, tmp_path, width):
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open((embedded_site / "index.html").as_uri(), width, 900)
        assert browser.eval("document.documentElement.getAttribute('data-site-ready')") == "yes"
        seen = []
        for _ in range(12):
            _key(browser, "Tab")
            focus = browser.eval("""(() => { const e = document.activeElement; const s = getComputedStyle(e);
                return {tag: e.tagName, id: e.id, href: e.getAttribute('href'), outline: s.outlineStyle,
                        width: parseFloat(s.outlineWidth), visible: e.matches(':focus-visible')}; })()""")
            seen.append(focus)
            if focus["id"] == "q":
                break
        assert seen[0]["tag"] == "A" and seen[0]["href"] == "#main", seen[0]  # the skip link comes first
        assert seen[-1]["id"] == "q", seen
        for focus in seen:
            assert focus["visible"] and focus["outline"] != "none" and focus["width"] >= 2, focus
        browser.send("Input.insertText", {"text": "medec"}, session=True)
        assert browser.eval("document.getElementById('count').textContent").startswith("1 of ")
        for _ in range(5):  # on past the filters to the first card's link
            _key(browser, "Tab")
        focus = browser.eval("[document.activeElement.tagName, document.activeElement.getAttribute('href')]")
        assert focus == ["A", "dataset-medec.html"]
        _key(browser, "Tab", shift=True)
        assert browser.eval("document.activeElement.id") == "f-grader"


@pytest.mark.browser
def test_filters_show_only_matching_benchmarks(chromium, embedded_site, tmp_path):
    reg = load_registry()
    from clinreg.scoring.grader import grader_of

    jury = {d.id for d in reg.datasets.values() if any(grader_of(m).kind == "LLM jury" for m in d.mappings)}
    gated = {d.id for d in reg.datasets.values() if d.access.tier == "gated"}
    tasks = {t.id for sub, *_ in reg.subcategories() if sub.id == "patient_provider_messaging" for t in sub.tasks}
    messaging = {d.id for d in reg.datasets.values() if any(set(m.tasks) & tasks for m in d.mappings)}
    shown = "[...document.querySelectorAll('.bench')].filter(e => !e.hidden).map(e => e.dataset.id)"
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open((embedded_site / "index.html").as_uri(), 1280, 900)
        browser.eval("(() => { const s = document.getElementById('f-grader'); s.value = 'LLM jury'; "
                     "s.dispatchEvent(new Event('change')); })()")
        assert set(browser.eval(shown)) == jury
        browser.eval("(() => { const s = document.getElementById('f-access'); s.value = 'gated'; s.dispatchEvent(new "
                     "Event('change')); })()")
        assert set(browser.eval(shown)) == jury & gated
        browser.eval("(() => { for (const id of ['f-grader', 'f-access']) { const s = document.getElementById(id); "
                     "s.value = ''; s.dispatchEvent(new Event('change')); } const c = "
                     "document.getElementById('f-subcategory'); c.value = 'patient_provider_messaging'; "
                     "c.dispatchEvent(new Event('change')); })()")
        assert set(browser.eval(shown)) == messaging and {"med_dialog", "shc_conf_med"} <= messaging
        assert browser.console_problems() == []


@pytest.mark.browser
def test_hostile_registry_strings_stay_text(chromium, tmp_path):
    dataset = replace_in(DATASET, "name: QA set", f"name: {json.dumps(HOSTILE)}")
    dataset = replace_in(dataset, "measures: Whether a model draws the conclusion an abstract's authors drew.",
                         f"measures: {json.dumps(HOSTILE)}")
    root = write_tree(tmp_path / "reg", {"registry/datasets/qa_set.yaml": dataset})
    build(tmp_path / "site", "--root", root)
    raw = (tmp_path / "site" / "dataset-qa_set.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;document.documentElement" in raw and "<script>document" not in raw
    assert "&#34;quoted&#34; &amp; &#39;single&#39;" in raw
    with Browser(chromium, tmp_path / "profile") as browser:
        for page in ("index.html", "dataset-qa_set.html", "dataset-plans.html"):
            browser.open((tmp_path / "site" / page).as_uri(), 1280, 900)
            assert browser.eval("document.documentElement.getAttribute('data-pwned')") is None, page
            assert browser.console_problems() == []
        browser.open((tmp_path / "site" / "dataset-qa_set.html").as_uri(), 1280, 900)
        assert HOSTILE in browser.eval("document.querySelector('h1').textContent")


# --------------------------------------------------------------------------------------------- axe-core


def _axe_source() -> str | None:
    """axe-core from npm: CLINREG_AXE_CORE names axe.min.js, the package folder or the `npm pack` tarball."""
    where = os.environ.get("CLINREG_AXE_CORE")
    if not where:
        return None
    path = Path(where)
    if path.is_dir():
        path = path / ("package/axe.min.js" if (path / "package").is_dir() else "axe.min.js")
    if path.name.endswith((".tgz", ".tar.gz")):
        with tarfile.open(path) as tar:
            return tar.extractfile("package/axe.min.js").read().decode("utf-8")
    return path.read_text(encoding="utf-8") if path.is_file() else None


@pytest.fixture(scope="module")
def axe():
    source = _axe_source()
    if source is None:
        reason = "axe-core not found: set CLINREG_AXE_CORE to the npm tarball (npm pack axe-core) or its axe.min.js"
        if os.environ.get("CLINREG_REQUIRE_INTEROP") == "1":
            pytest.fail(f"{reason} (CLINREG_REQUIRE_INTEROP=1)")
        pytest.skip(reason)
    return source


AXE_RUN = ("axe.run(document, {resultTypes: ['violations']}).then(r => ({version: axe.version, "
           "violations: r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => "
           "n.target.join(' '))}))}))")


@pytest.mark.browser
def test_axe_core_reports_a_page_that_breaks_its_rules(chromium, axe, tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><title>x</title></head><body><input type="text"><img src="x.png">'
                   '<p style="color:#bbb;background:#fff">faint</p></body></html>')
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(bad.as_uri(), 1280, 900)
        browser.send("Runtime.evaluate", {"expression": axe}, session=True)
        found = {v["id"] for v in browser.eval(AXE_RUN)["violations"] if v["impact"] in ("serious", "critical")}
    assert {"label", "image-alt", "html-has-lang"} <= found


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_axe_core_finds_no_serious_or_critical_violation(chromium, embedded_site, axe, tmp_path, width):
    pages = ["index.html", "changes.html", "category-clinical_decision_support.html",
             "subcategory-patient_provider_messaging.html", "dataset-medec.html", "dataset-shc_proxy_med.html",
             "dataset-aci_bench.html"]
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open("about:blank", width, 900)
        for name in pages:
            _goto(browser, (embedded_site / name).as_uri())
            browser.send("Runtime.evaluate", {"expression": axe}, session=True)
            result = browser.eval(AXE_RUN)
            assert result["version"], name
            bad = [v for v in result["violations"] if v["impact"] in ("serious", "critical")]
            assert bad == [], (name, width, bad)


def test_a_site_of_an_older_release_names_later_records_without_linking_them(tmp_path):
    data = build(tmp_path / "site", "--release", "1.0.0")
    assert data["datasets"] == 31 and data["previous"] is None and "changes.html" not in data["files"]
    text = (tmp_path / "site" / "dataset-head_qa.html").read_text(encoding="utf-8")
    assert "med_qa (not in this release)" in text and "dataset-med_qa.html" not in text
    broken, _ = _load_checker().broken_links(tmp_path / "site")
    assert broken == []


def test_records_beyond_medhelm_say_so_on_their_card_and_in_the_index(embedded_site):
    reg = load_registry()
    beyond = sorted(d.id for d in reg.datasets.values() if not d.in_medhelm)
    inside = next(d.id for d in reg.datasets.values() if d.in_medhelm)
    index = (embedded_site / "index.html").read_text(encoding="utf-8")
    for ds in beyond:
        card = (embedded_site / f"dataset-{ds}.html").read_text(encoding="utf-8")
        assert "beyond MedHELM's published evaluation" in card
        entry = index.split(f'data-id="{ds}"', 1)[1].split("</li>", 1)[0]
        assert "not in MedHELM" in entry
    page = (embedded_site / f"dataset-{inside}.html").read_text(encoding="utf-8")
    assert "MedHELM's published evaluation runs it" in page
    assert index.count("not in MedHELM") == len(beyond)
