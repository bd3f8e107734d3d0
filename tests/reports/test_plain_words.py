"""Issue 40 (15): what a clinician reads first is in plain words. Commit hashes, pull request numbers, file paths,
content hashes, "facts file S2" and "not resolved here (no network)" stay in the outputs, word for word, but behind a
"Source details" disclosure (HTML and Markdown) or in the sheet's columns at the right; never at first sight.

The outputs are made from the embedded registry, whose records hold all of these maintainer words."""

from __future__ import annotations

import csv
import html
import io
import re
from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.main import main
from clinreg.core.store import load_registry
from clinreg.text.plainwords import first_sight

REPO = Path(__file__).resolve().parents[2]
# What a maintainer writes and a clinician should not meet first. A hash has a digit and a letter, so that neither a
# year nor a word like "defaced" counts as one.
MAINTAINER = {
    "hash": re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b"),
    "pull request": re.compile(r"PR #|#\d{3,}"),
    "path": re.compile(r"[\w.-]+/[\w./-]*\.(?:ya?ml|py)\b"),
    "facts file": re.compile(r"facts file", re.I),
    "no network": re.compile(r"no network", re.I),
}


def found(text: str) -> list[str]:
    return [f"{kind}: …{text[max(0, m.start() - 60):m.end() + 20]}…" for kind, pattern in MAINTAINER.items()
            for m in pattern.finditer(text)]


def html_first_sight(page: str) -> str:
    """The text a reader sees without opening anything: no scripts, styles, attributes or closed disclosures."""
    page = re.sub(r"<(script|style)\b.*?</\1>|<details\b.*?</details>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def markdown_first_sight(text: str) -> str:
    text = re.sub(r"<details>.*?</details>", " ", text, flags=re.S)
    return re.sub(r"\]\([^)]*\)", "]", text)  # a link's target is not shown, its words are


def cli(*args) -> str:
    result = invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    out = tmp_path_factory.mktemp("plain")
    cli("review", "--root", REPO, "--format", "html", "-o", out / "review.html")
    cli("review", "--root", REPO, "--format", "markdown", "-o", out / "review.md")
    cli("review", "export", "--root", REPO, "--format", "csv", "-o", out / "review.csv")
    cli("site", "--root", REPO, "-o", out / "site")
    return out


def test_the_registry_holds_maintainer_words_for_these_tests_to_find(outputs):
    """The check below could not fail on a registry without such words: the disclosures hold them."""
    form = (outputs / "review.html").read_text(encoding="utf-8")
    details = " ".join(re.findall(r"<details\b.*?</details>", form, flags=re.S))
    assert {"hash", "path"} <= {kind for kind, p in MAINTAINER.items() if p.search(details)}
    cards = " ".join(p.read_text(encoding="utf-8") for p in (outputs / "site").glob("dataset-*.html"))
    hidden = " ".join(re.findall(r"<details\b.*?</details>", cards, flags=re.S))
    assert set(MAINTAINER) == {kind for kind, p in MAINTAINER.items() if p.search(hidden)}


def test_the_review_form_shows_no_maintainer_words_at_first_sight(outputs):
    page = (outputs / "review.html").read_text(encoding="utf-8")
    assert found(html_first_sight(page)) == []
    # Each task keeps its id and version, one click away.
    assert page.count('<details class="source-details"><summary>Source details</summary>') >= \
        len(load_registry(REPO).tasks())


def test_the_review_document_shows_no_maintainer_words_at_first_sight(outputs):
    text = (outputs / "review.md").read_text(encoding="utf-8")
    assert found(markdown_first_sight(text)) == []
    assert "<details><summary>Source details</summary>" in text


def test_the_sheet_keeps_maintainer_words_in_its_columns_at_the_right(outputs):
    rows = list(csv.DictReader(io.StringIO((outputs / "review.csv").read_text(encoding="utf-8"))))
    header = list(rows[0])
    right = header.index("source_details")
    assert header[right:] == ["source_details", "version", "content_hash"]
    first = [" ".join(str(r[c]) for c in header[:right]) for r in rows]
    assert [f for line in first for f in found(line)] == []
    assert any(found(r["source_details"]) for r in rows)  # the provenance is kept, at the right


def test_site_pages_show_no_maintainer_words_at_first_sight(outputs):
    problems = {p.name: found(html_first_sight(p.read_text(encoding="utf-8")))
                for p in sorted((outputs / "site").glob("*.html"))}
    assert {name: hits for name, hits in problems.items() if hits} == {}


def _facts_and_faq(page: str) -> tuple[list[str], list[str]]:
    def texts(block: str) -> list[str]:
        return [" ".join(html_first_sight(dd).split()) for dd in re.findall(r"<dd\b.*?</dd>", block, flags=re.S)]

    facts = page.split('<dl class="facts">', 1)[1].split("</dl>", 1)[0]
    faq = page.split('<dl class="faq">', 1)[1].split("</dl>", 1)[0]
    return texts(facts), texts(faq)


def test_a_card_faq_never_repeats_its_key_facts(outputs):
    cards = sorted((outputs / "site").glob("dataset-*.html"))
    assert cards
    for card in cards:
        facts, faq = _facts_and_faq(card.read_text(encoding="utf-8"))
        assert faq and facts, card.name
        long_facts = [f for f in facts if len(f) > 30]
        repeated = [a for a in faq if a in facts or any(f in a for f in long_facts)]
        assert repeated == [], (card.name, repeated)


@pytest.mark.parametrize("recorded, plain", [
    ("HELM's schema_medhelm.yaml at commit 63754d05 (facts file S2) lists the run group",
     "HELM's schema_medhelm.yaml lists the run group"),
    ("its commit has not been resolved here (no network), so it is not pinned yet.",
     "its commit has not yet been checked against the source, so it is not pinned yet."),
    ("Added on 2025-03-24 (HELM PR #3459), after the first edition.", "Added on 2025-03-24, after the first edition."),
    ("MedHELM schema (src/helm/benchmark/static/schema_medhelm.yaml), run-group taxonomy, commit 63754d05",
     "MedHELM schema, run-group taxonomy"),
    ("placed at `src/server/tasks/refsol.py`; fetch it.", "placed at refsol.py; fetch it."),
    ("A sentence (with an aside) and the year 2025.", "A sentence (with an aside) and the year 2025."),
])
def test_first_sight_leaves_out_only_what_a_maintainer_needs(recorded, plain):
    assert first_sight(recorded) == plain
    assert found(first_sight(recorded)) == []
