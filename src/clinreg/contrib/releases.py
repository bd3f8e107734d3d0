"""Open the next registry release: a new `status: open` entry at the end of releases.yaml, which becomes `current`."""

from __future__ import annotations

import datetime as dt
import re

from clinreg.core.model import ReleaseHistory
from clinreg.core.semver import parse_semver
from clinreg.text.yamltext import yaml_scalar


class ReleaseRefused(ValueError):
    """The release cannot be opened; the message says why and what to do."""


def open_release(text: str, history: ReleaseHistory, version: str, title: str, today: dt.date) -> str:
    """releases.yaml's text with `version` appended as the open release and named in `current`.

    The file is edited as text, so that its comments and layout stay; the caller re-reads the result and
    checks that it says what was meant before writing it.
    """
    key = parse_semver(version)
    if key is None:
        raise ReleaseRefused(f"{version!r} is not a semantic version such as 1.8.0")
    if not title.strip():
        raise ReleaseRefused("--title must say in one line what the release is")
    newest = history.releases[-1]
    if newest.status == "open":
        raise ReleaseRefused(f"release {newest.version} is still open: add records to it, or publish it first "
                             "(status: published, its date and datasets_added) before opening another")
    newest_key = parse_semver(newest.version)
    if newest_key is not None and key <= newest_key:
        raise ReleaseRefused(f"{version} does not come after the newest release, {newest.version}")
    current = re.compile(r"^current:[ \t]*\S.*$", re.MULTILINE)
    if len(current.findall(text)) != 1 or not re.search(r"^releases:[ \t]*$", text, re.MULTILINE):
        raise ReleaseRefused("releases.yaml is not laid out as `current: X` and a block `releases:` list; edit it by hand")
    text = current.sub(f"current: {version}", text, count=1)
    entry = (f"  - version: {version}\n    date: {today.isoformat()}\n    title: {yaml_scalar(title.strip())}\n"
             "    status: open\n")
    return text.rstrip("\n") + "\n" + entry


README_TABLE_HEADER = "| release | date | datasets | access public/gated/private | added |"


def readme_row(version: str, today: dt.date, title: str, access: dict[str, int]) -> str:
    """The README release table's row for a release just opened: the records it holds so far (every current
    record; it has added none yet) by access tier. tests/test_readme_releases.py checks the table."""
    counts = " / ".join(str(access.get(t, 0)) for t in ("public", "gated", "private"))
    return f"| {version} | {today.isoformat()} | {sum(access.values())} | {counts} | none yet (open): {title.strip()} |"


def add_readme_row(text: str, row: str) -> str | None:
    """README's text with `row` after the release table's last row, or None when it has no such table."""
    start = text.find(README_TABLE_HEADER)
    if start < 0:
        return None
    lines = text[start:].split("\n")
    end = 2
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return text[:start] + "\n".join(lines[:end] + [row] + lines[end:])
