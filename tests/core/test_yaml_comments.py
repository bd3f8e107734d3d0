"""Comments that cut an unquoted value short (CLR010): which ones are flagged, and where."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinreg.core.yamlsrc import parse_yaml
from clinreg.core.yamlsrc.comments import cut_comments

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("text, path, kept", [
    # the `#` starts a word: the MedQA note of issue 40
    ("notes:\n  - Added to MedHELM on 2025-08-07 (HELM PR #3781); not among the 35.\n", ("notes", 0),
     "Added to MedHELM on 2025-08-07 (HELM PR"),
    # a bracket left open, even with two spaces
    ("notes:\n  - Added in (PR  # 3781)\n", ("notes", 0), "Added in (PR"),
    # a single space after a mapping value
    ("a:\n  count: 5 # about\n", ("a", "count"), "5"),
    # a single space after text in a list
    ("- some words # more words\n", (0,), "some words"),
    # in a flow mapping spread over lines
    ("a: {b: c,\n    d: e # f\n   }\n", ("a", "d"), "e"),
])
def test_a_comment_that_looks_like_text_is_flagged(text, path, kept):
    [cut] = cut_comments(text)
    assert (cut.path, cut.kept) == (path, kept)
    line = text.splitlines()[cut.line - 1]
    assert line[cut.column - 1] == "#"
    assert parse_yaml(text.encode()).cut_comments == [cut]


@pytest.mark.parametrize("text", [
    "a: b  # a comment, two spaces away\n",
    "- summarize_findings # its subcategory\n",  # one word, in a list: a comment
    'a: "quoted (PR #3781)"\n',
    "a: 'quoted' # after a quoted value nothing is lost\n",
    "a: >-\n  folded (PR\n  #3781) text\n",
    "a: |\n  kept # as text\n",
    "# a whole-line comment\na: b\n",
    "a: b#not a comment\n",
    "a: # the value is on the next lines\n  b: c\n",
])
def test_comments_that_lose_nothing_are_not_flagged(text):
    assert cut_comments(text) == []


def test_a_file_with_a_syntax_error_has_no_findings_but_its_error():
    doc = parse_yaml(b"a: [b # c\n")
    assert doc.problems and doc.cut_comments == []


def test_no_registry_record_is_cut_short():
    # The four notes of issue 40 (med_qa, med_mcqa, medhallu, mimic_bhc) read whole.
    for path in sorted((REPO / "registry").rglob("*.yaml")) + sorted((REPO / "taxonomy").rglob("*.yaml")):
        assert cut_comments(path.read_text(encoding="utf-8")) == [], path
    import yaml
    note = yaml.safe_load((REPO / "registry/datasets/med_qa.yaml").read_text())["notes"][0]
    assert note.startswith("Added to MedHELM on 2025-08-07 (HELM PR #3781); not among")
