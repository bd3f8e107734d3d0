"""Registry text in every report and format reaches the terminal and CI logs only as text, through the real CLI.

Names, definitions and notes may hold anything a double-quoted YAML string can spell: rich markup (`[/]`,
`[link=...]`), terminal escapes (ESC, BEL, CR, C1 controls), bidi overrides, and newlines followed by a GitHub
workflow command. For every command and format: no traceback, no raw control or format character, no line that
GitHub Actions would read as a command (`::cmd` at a line start, `##[cmd` anywhere), markup shown literally,
Markdown tables keep their columns, CSV cells are never formulas, and JSON is strict.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from trees import CATEGORY, DATASET, replace_in, write_tree

from .support import assert_no_traceback, run_cli

# Each payload is a YAML double-quoted string: the escapes become the raw characters once read.
PAYLOADS = {
    "markup": r"Answer [/] [bold red]loud[/bold red] [link=https://evil.example]click me[/link]",
    "terminal": r"Rank \e[2J\e]8;;https://evil.example\e\\link\e]8;;\e\\ \a bell \r over \x9b31m C1 \u202e bidi \u200b "
                r"zw",
    "annotation": r"Plan\n::error file=registry/x.yaml,line=1::forged annotation\n##[warning]old forged",
    "markdown": r"Care | `tick` ``two`` <script>alert(1)</script> *bold* _u_ [x](https://evil.example)",
    "formula": r"=HYPERLINK(\"https://evil.example\",\"x\")",
    # 39 characters, then `::error`: rich folds the 40-character column right before it
    "fold": "Diagnosis" + "x" * 30 + "::error file=registry/y.yaml::folded",
}
DEFINITION = r"First line.\n::warning title=forged::multi-line definition\n  ::notice::indented"


def hostile_tree(root):
    category = replace_in(CATEGORY, "name: Care", f'name: "{PAYLOADS["markdown"]}"')
    category = replace_in(category, "name: Answer questions", f'name: "{PAYLOADS["markup"]}"')
    category = replace_in(category, "name: Rank differentials", f'name: "{PAYLOADS["terminal"]}"')
    category = replace_in(category, "name: Plan treatment", f'name: "{PAYLOADS["annotation"]}"')
    category = replace_in(category, "name: Diagnosis", f'name: "{PAYLOADS["fold"]}"')
    category = replace_in(category, "name: Treatment", f'name: "{PAYLOADS["formula"]}"')
    category = replace_in(category, "definition: Rank candidate diagnoses.", f'definition: "{DEFINITION}"')
    dataset = replace_in(DATASET, "name: QA set", f'name: "{PAYLOADS["terminal"]}"')
    return write_tree(root, {"taxonomy/care.yaml": category, "registry/datasets/qa_set.yaml": dataset})


COMMANDS = [
    *[("coverage", "--format", fmt, "--by", by) for fmt in ("table", "markdown", "csv")
      for by in ("category", "subcategory", "task")],
    ("coverage", "--format", "json"),
    ("coverage", "--format", "html"),
    ("review", "--format", "markdown"),
    ("review", "--format", "html"),
    ("review", "--format", "json"),
    ("validate", "--format", "text", "--show-info"),
    ("validate", "--format", "json"),
    ("validate", "--format", "github"),
    ("diff", "--format", "markdown"),
    ("diff", "--format", "json"),
    ("issue-form", "--format", "text"),
]

_ALLOWED_CONTROLS = "\n\t"


def check_terminal_safe(out: str, github: bool = False) -> None:
    bad = sorted({c for c in out if not (c.isprintable() or c == " " or c in _ALLOWED_CONTROLS)})
    assert not bad, f"raw characters reach the terminal: {[hex(ord(c)) for c in bad]}"
    assert "##[" not in out
    for line in out.splitlines():
        if github and line.startswith(("::error file=", "::warning file=", "::notice file=")):
            continue
        assert not line.lstrip().startswith("::"), f"a line reads as a workflow command: {line!r}"


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    base = tmp_path_factory.mktemp("render")
    return write_tree(base / "good"), hostile_tree(base / "hostile")


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_hostile_registry_text_is_shown_as_text(trees, command):
    good, hostile = trees
    name, *options = command
    fmt = options[1]
    args = [name, str(good), str(hostile), *options] if name == "diff" else [name, "--root", str(hostile), *options]

    result = run_cli(*args)

    assert_no_traceback(result)
    assert result.returncode == (0 if name != "validate" else result.returncode), result.stderr
    assert result.returncode in (0, 1)
    out = result.stdout
    check_terminal_safe(out, github=fmt == "github")
    check_terminal_safe(result.stderr)
    if fmt == "json":
        json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    if fmt in ("table", "markdown", "csv") and name != "validate":
        by = options[3] if len(options) > 3 else None
        if by in (None, "task"):
            # shown as text: markup stays literal (in Markdown its brackets are escaped)
            assert "[link=https://evil.example]" in out or r"\[link=https://evil.example\]" in out
            assert "\\x1b" in out or "\\\\x1b" in out  # the ESC is there, shown as an escape
    if fmt == "markdown":
        _check_markdown_tables(out)
    if fmt == "csv":
        rows = list(csv.reader(line for line in io.StringIO(out) if not line.startswith("# ")))
        assert len({len(r) for r in rows if r}) == 1, "a cell broke the row structure"
        for row in rows:
            for cell in row:
                assert not cell.startswith(("=", "+", "-", "@")), cell


def _check_markdown_tables(text: str) -> None:
    """Every row of a table has as many unescaped cell separators as its header: no value adds a column."""
    block: list[int] = []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            block.append(len(re.findall(r"(?<!\\)\|", re.sub(r"(`+).*?\1", "", line))))
        else:
            assert len(set(block)) <= 1, f"table rows with different column counts: {block}"
            block = []


def test_markup_in_names_does_not_crash_or_link(tmp_path):
    """The payload of the issue: `[/]` crashed rich with MarkupError, `[link=...]` made a live link."""
    root = hostile_tree(tmp_path / "reg")
    for by in ("category", "subcategory", "task"):
        result = run_cli("coverage", "--root", str(root), "--by", by, env={"FORCE_COLOR": "1", "NO_COLOR": None,
                                                                          "TERM": "xterm-256color"})
        assert_no_traceback(result)
        assert result.returncode == 0, result.stderr
        assert "\x1b]8;" not in result.stdout  # no OSC 8 hyperlink, styled or not
