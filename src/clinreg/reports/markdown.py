"""Render coverage, review and diff documents as GitHub-flavoured Markdown from plain data, via template files."""

from __future__ import annotations

import re
from typing import Any

from clinreg import __version__
from clinreg.reports.coverage import edition_line
from clinreg.reports.html import TEMPLATES
from clinreg.text.output import defuse, shown, template_finalize
from clinreg.text.plainwords import first_sight, has_maintainer_words

# Characters that would start formatting, links, HTML or a table cell boundary; registry text shows as text.
_ESCAPES = {c: "\\" + c for c in "\\`*_[]|"}
_ESCAPES.update({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_PATTERN = re.compile("[" + re.escape("".join(_ESCAPES)) + "]")


def escape(value: Any) -> str:
    """Markdown-safe inline text: one line, no live markup, safe inside a table cell."""
    text = shown(" ".join(str(value).split()))
    return _PATTERN.sub(lambda m: _ESCAPES[m.group(0)], text)


def code(value: Any) -> str:
    """An inline code span that survives backticks and pipes in the value."""
    text = shown(" ".join(str(value).split())).replace("|", "\\|")
    # The fence is one backtick longer than the longest run inside, so no run in the value can close it.
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def url(href: str) -> str:
    """A link target that cannot end the Markdown link early: spaces, brackets and parentheses are encoded."""
    from urllib.parse import quote

    return quote(href, safe=":/?#@!$&'*+,;=%~-._")


def value(item: Any) -> str:
    """A changed field's old or new value for a table cell: absent, a list, a mapping or escaped text."""
    if item is None:
        return "(none)"
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, list):
        return "[" + ", ".join(value(v) for v in item) + "]"
    if isinstance(item, dict):
        return "{" + ", ".join(f"{escape(k)}: {value(v)}" for k, v in item.items()) + "}"
    return escape(item)


def environment():
    """Sandboxed, without HTML autoescape (this is Markdown): templates escape registry text with `md`."""
    from jinja2 import FileSystemLoader, StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(loader=FileSystemLoader(TEMPLATES), autoescape=False, undefined=StrictUndefined,
                                        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                                        finalize=template_finalize)
    env.filters["md"] = escape
    env.filters["edition_line"] = edition_line
    # Issue 40: provenance in plain words at first sight; the full text goes behind "Source details"
    env.filters["plain"] = first_sight
    env.filters["maintainer_words"] = has_maintainer_words
    env.filters["code"] = code
    env.filters["value"] = value
    env.filters["url"] = url
    env.filters["thousands"] = lambda n: f"{n:,}"
    env.filters["percent"] = lambda part, whole: f"{round(100 * part / whole)}%" if whole else "–"
    return env


def _render(template: str, **context: Any) -> str:
    text = environment().get_template(template).render(version=__version__, **context)
    return defuse(re.sub(r"\n{3,}", "\n\n", text).strip() + "\n", "markdown")


def render_coverage_markdown(data: dict[str, Any], by: str = "subcategory") -> str:
    task_names = {t["id"]: t["name"] for t in data["tasks"]}
    sub_names = {s["id"]: s["name"] for s in data["subcategories"]}
    return _render("coverage.md.j2", data=data, by=by, task_names=task_names, sub_names=sub_names,
                   thin=[s for s in data["subcategories"] if s["thin"]],
                   beyond={d["id"] for d in data["datasets"] if not d["in_medhelm"]})


def render_review_markdown(document: dict[str, Any]) -> str:
    return _render("review.md.j2", doc=document)


_KINDS = (("datasets", "dataset"), ("tasks", "task"), ("subcategories", "subcategory"), ("categories", "category"))
_CHANGES = (("added", "added"), ("removed", "removed"), ("renamed", "renamed"), ("moved", "moved"),
            ("changed", "edited"))


def in_short(summary: dict[str, int]) -> list[str]:
    """'6 datasets added', '1 task moved', ...: the non-zero counts of a diff summary, in reading order."""
    phrases = []
    for plural, singular in _KINDS:
        for change, verb in _CHANGES:
            n = summary.get(f"{plural}_{change}", 0)
            if plural == "datasets" and change == "moved":
                verb = "mapped to other subcategories"
            if n:
                phrases.append(f"{n} {singular if n == 1 else plural} {verb}")
    return phrases


def render_diff_markdown(diff: dict[str, Any]) -> str:
    return _render("diff.md.j2", diff=diff, in_short=in_short(diff["summary"]))
