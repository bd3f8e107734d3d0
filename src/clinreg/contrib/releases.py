"""Open the next registry release: a new `status: open` entry at the end of releases.yaml, which becomes `current`."""

from __future__ import annotations

import datetime as dt
import re

from clinreg.core.model import ACCESS_TIERS, ReleaseHistory
from clinreg.core.semver import parse_semver
from clinreg.errors import ClinregError
from clinreg.text.yamltext import yaml_scalar


class ReleaseRefused(ClinregError, ValueError):
    """The release cannot be opened; the message says why and what to do."""

    default_code = "CLR987"


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
        raise ReleaseRefused("releases.yaml is not laid out as `current: X` and a block `releases:` list; edit it by "
                             "hand")
    text = current.sub(f"current: {version}", text, count=1)
    entry = (f"  - version: {version}\n    date: {today.isoformat()}\n    title: {yaml_scalar(title.strip())}\n"
             "    status: open\n")
    return text.rstrip("\n") + "\n" + entry


README_TABLE_HEADER = "| release | date | datasets | access public/gated/private | added |"


def readme_row(version: str, today: dt.date, title: str, access: dict[str, int]) -> str:
    """The README release table's row for a release just opened: the records it holds so far (every current
    record; it has added none yet) by access tier. tests/test_readme_releases.py checks the table."""
    counts = " / ".join(str(access.get(t, 0)) for t in ACCESS_TIERS)
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


def join_open_release(text: str, history: ReleaseHistory, dataset_id: str) -> str:
    """releases.yaml's text with `dataset_id` added to the open release's `datasets_added`, so that the README's
    release table and the release's record count agree while it is open. Raises ReleaseRefused where the file is
    not laid out as `clinreg new release` writes it (the caller then asks for the edit by hand)."""
    newest = history.releases[-1]
    if newest.status != "open":
        raise ReleaseRefused(f"release {newest.version} is not open")
    ids = [*(newest.datasets_added or []), dataset_id]
    starts = [m.start() for m in re.finditer(r"^  - version:", text, re.MULTILINE)]
    if not starts:
        raise ReleaseRefused("releases.yaml has no `  - version:` entries")
    head, entry = text[: starts[-1]], text[starts[-1]:]
    flow = _wrapped("    datasets_added: [", [yaml_scalar(i) for i in ids], "]")
    key = re.search(r"^    datasets_added:(.*)$", entry, re.MULTILINE)
    if key is None:
        status = re.search(r"^    status:[ \t]*open[ \t]*\n", entry, re.MULTILINE)
        if status is None:
            raise ReleaseRefused("the open release has no `status: open` line")
        entry = entry[: status.end()] + flow + entry[status.end():]
    else:
        # The key's value runs to the next line at the entry's key indent (or the end): a flow or block list.
        nxt = re.search(r"^    [^\s-]", entry[key.end() + 1:], re.MULTILINE)
        end = key.end() + 1 + nxt.start() if nxt else len(entry)
        entry = entry[: key.start()] + flow + entry[end:]
    return head + entry


def _wrapped(opening: str, items: list[str], closing: str, width: int = 116) -> str:
    """A YAML flow list over as many lines as it needs, continuation lines under its first item."""
    lines, line = [], opening
    for n, item in enumerate(items):
        piece = item + ("," if n < len(items) - 1 else closing)
        if line.strip() and line != opening and len(line) + 1 + len(piece) > width:
            lines.append(line.rstrip())
            line = " " * len(opening)
        line += ("" if line.endswith(("[", " ")) else " ") + piece
    if not items:
        line += closing
    return "\n".join(lines + [line]) + "\n"


def readme_join(text: str, version: str, tier: str, dataset_id: str) -> str | None:
    """README's text with the open release's row counting one more record (its total, its access tier, its `added`
    cell), or None when the table has no row for `version`."""
    start = text.find(README_TABLE_HEADER)
    if start < 0:
        return None
    lines = text[start:].split("\n")
    for n, line in enumerate(lines):
        if not line.startswith("|"):
            return None
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] != version:
            continue
        counts = [int(c) for c in re.findall(r"\d+", cells[3])]
        if not cells[2].isdigit() or len(counts) != len(ACCESS_TIERS) or tier not in ACCESS_TIERS:
            return None
        counts[ACCESS_TIERS.index(tier)] += 1
        added = cells[4]
        if added.startswith("none yet (open)"):
            added = f"open: {dataset_id}"
        elif added.startswith("open: "):
            ids, sep, rest = added.partition(" (")
            added = f"{ids}, {dataset_id}{sep}{rest}"
        else:
            return None
        lines[n] = f"| {cells[0]} | {cells[1]} | {int(cells[2]) + 1} | {' / '.join(map(str, counts))} | {added} |"
        return text[:start] + "\n".join(lines)
    return None
