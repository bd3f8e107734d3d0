"""HTML reports escape every registry string: markup in names and definitions arrives as text, never as tags.

(The reports tests check the same in Chromium; this is the plain, browser-free version that always runs.)
"""

from __future__ import annotations

import re

import pytest

from trees import GOOD_TREE, replace_in, write_tree

from .support import assert_no_traceback, run_cli

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
# A single-quoted YAML scalar holds both payloads as they are ('' is a quote).
BOTH = f"'{SCRIPT} {IMG} x'"
RAW_MARKERS = ["<script>alert", "<img src=x", "onerror=alert(1)>"]


def _hostile_tree(root):
    cat = GOOD_TREE["taxonomy/care.yaml"]
    for old in ("name: Care", "definition: Work done while caring for patients.", "name: Diagnosis",
                "definition: Deciding what is wrong.", "name: Answer questions",
                "definition: Answer a clinical question.",
                "name: Plan treatment", "definition: Write a treatment plan."):
        key = old.split(":")[0]
        cat = replace_in(cat, old, f"{key}: {BOTH}")
    cat = replace_in(cat, "citation: {text: A paper}",
                     f"citation: {{text: {BOTH}, url: 'https://example.org/a?b=c&d=e'}}")
    ds = GOOD_TREE["registry/datasets/qa_set.yaml"]
    ds = replace_in(ds, "name: QA set", f"name: {BOTH}")
    ds = replace_in(ds, "description: Yes/no/maybe questions.", f"description: {BOTH}")
    ds = replace_in(ds, "citation: {text: A paper}", f"citation: {{text: {BOTH}}}")
    ds = replace_in(ds, "licence: {spdx: MIT}", f"licence: {{spdx: MIT, note: {BOTH}}}")
    ds2 = GOOD_TREE["registry/datasets/plans.yaml"]
    ds2 = replace_in(ds2, "instructions: Ask the holder.", f"instructions: {BOTH}")
    ds2 = replace_in(ds2, "name: Plans", f"name: {BOTH}")
    tax = replace_in(GOOD_TREE["taxonomy/taxonomy.yaml"], "name: Mini taxonomy", f"name: {BOTH}")
    rel = replace_in(GOOD_TREE["registry/releases.yaml"], "title: Second", f"title: {BOTH}")
    return write_tree(root, {"taxonomy/care.yaml": cat, "registry/datasets/qa_set.yaml": ds,
                             "registry/datasets/plans.yaml": ds2, "taxonomy/taxonomy.yaml": tax,
                             "registry/releases.yaml": rel})


@pytest.fixture(scope="module")
def hostile_root(tmp_path_factory):
    root = _hostile_tree(tmp_path_factory.mktemp("xss") / "reg")
    check = run_cli("validate", "--root", str(root), "--format", "json")
    assert check.returncode == 0, check.stdout  # a valid tree: the reports must render it, not refuse it
    return root


@pytest.mark.slow
@pytest.mark.parametrize("command", [["coverage", "--format", "html"], ["review", "--format", "html"]])
def test_html_reports_escape_registry_strings(hostile_root, command):
    result = run_cli(*command, "--root", str(hostile_root))
    if result.returncode == 2 and "No such command" in result.stderr:  # pragma: no cover
        pytest.skip(f"`clinreg {command[0]}` does not exist yet")
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    html = result.stdout
    for marker in RAW_MARKERS:
        assert marker not in html, f"unescaped {marker!r} in {command}: ...{_around(html, marker)}..."
    # The strings are there, as text: escaped for HTML (or for JSON inside a script block).
    escaped = ["&lt;script&gt;alert(1)&lt;/script&gt;", "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"]
    assert any(e in html for e in escaped), "the payload text is missing altogether"
    assert re.search(r"&lt;img src=x onerror=alert\(1\)&gt;|\\u003cimg src=x onerror=alert\(1\)\\u003e", html)
    # No attribute was closed early by the payload's quote.
    assert not re.search(r'=\s*"[^"]*"\s*>\s*<img', html)


def _around(text: str, marker: str) -> str:
    i = text.find(marker)
    return text[max(0, i - 120): i + 120]
