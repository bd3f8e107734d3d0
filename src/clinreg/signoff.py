"""Record a clinician's review decision in a taxonomy file, changing only the lines of the item's `review` block."""

from __future__ import annotations

import copy
import datetime as dt
import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from clinreg.model import Category, Review, Subcategory, Task
from clinreg.reviewstate import derive_state, item_content, item_hash
from clinreg.safeio import atomic_write_bytes, file_lock
from clinreg.scaffold import yaml_scalar
from clinreg.store import Registry, SourceFile
from clinreg.yamlsrc import parse_yaml

DECISIONS = ("approved", "rejected", "changes_requested")
ORCID = re.compile(r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$")
_REVIEW_ORDER = ("status", "reviewers", "date", "content_hash")


class SignOffError(ValueError):
    """A decision that cannot be recorded: unknown item, bad reviewer details, or a file that cannot be edited."""


@dataclass
class ReviewTarget:
    kind: str  # task | subcategory
    item: Any  # Task | Subcategory
    file: SourceFile
    path: tuple  # the item's path inside its category file


@dataclass
class SignOff:
    kind: str
    id: str
    file: str
    line: int
    status: str
    reviewer: dict[str, Any]
    date: dt.date
    content_hash: str
    reviewers: int
    state: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"item": self.id, "kind": self.kind, "file": self.file, "line": self.line, "status": self.status,
                "state": self.state,
                "reviewer": {k: (v.isoformat() if isinstance(v, dt.date) else v) for k, v in self.reviewer.items()},
                "date": self.date.isoformat(), "content_hash": self.content_hash, "reviewers": self.reviewers}


def find_item(reg: Registry, item_id: str, kind: str | None = None) -> ReviewTarget:
    """The task or subcategory with this id. Raises SignOffError with a did-you-mean hint."""
    found: list[ReviewTarget] = []
    for sub, _, sf, path in reg.subcategories():
        if sub.id == item_id and kind in (None, "subcategory"):
            found.append(ReviewTarget("subcategory", sub, sf, path))
        for j, task in enumerate(sub.tasks):
            if task.id == item_id and kind in (None, "task"):
                found.append(ReviewTarget("task", task, sf, path + ("tasks", j)))
    if len({t.kind for t in found}) > 1:
        raise SignOffError(f"{item_id!r} is both a task and a subcategory id; add --kind task or --kind subcategory")
    if found:
        return found[0]
    known = [s.id for s, *_ in reg.subcategories()] + list(reg.tasks())
    close = difflib.get_close_matches(item_id, known, n=1, cutoff=0.6)
    what = {"task": "task", "subcategory": "subcategory"}.get(kind or "", "task or subcategory")
    message = f"no {what} {item_id!r} in the taxonomy"
    if close:
        message += f"; did you mean {close[0]!r}?"
    elif any(d.severity == "error" and d.file.startswith("taxonomy/") for d in reg.diagnostics):
        message += " (some taxonomy files have errors; run `clinreg validate`)"
    else:
        message += " (`clinreg coverage --by task --format markdown` lists the ids)"
    raise SignOffError(message)


class StaleDecision(SignOffError):
    """The decision was made on content that has changed since: it is refused, and nothing is written for it."""


def resolve_in_tree(path: Path, root: Path) -> Path:
    """The real file behind `path`. A link is followed (so the link stays a link and its target is updated)
    only when the target is a regular file inside the registry root; anything else is refused."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise SignOffError(f"{path}: a broken or looping link; nothing was written")
    if not real.is_relative_to(root.resolve()):
        raise SignOffError(f"{path}: a link to {real}, outside the registry root; refusing to write through it")
    if not real.is_file():
        raise SignOffError(f"{path}: not a regular file; refusing to write it")
    return real


def _locate(data: Any, kind: str, item_id: str) -> tuple[tuple, str]:
    """The item's path in freshly read category data, and its placement (subcategory or category id)."""
    subs = data.get("subcategories") if isinstance(data, dict) else None
    for i, sub in enumerate(subs if isinstance(subs, list) else []):
        if not isinstance(sub, dict):
            continue
        if kind == "subcategory" and sub.get("id") == item_id:
            return ("subcategories", i), str(data.get("id"))
        for j, task in enumerate(sub.get("tasks") or []):
            if kind == "task" and isinstance(task, dict) and task.get("id") == item_id:
                return ("subcategories", i, "tasks", j), str(sub.get("id"))
    raise SignOffError(f"{kind} {item_id!r} is no longer in the file; run the command again")


def sign_off(reg: Registry, item_id: str, decision: str, reviewer: str, *, orcid: str | None = None,
             note: str | None = None, today: dt.date | None = None, kind: str | None = None,
             expected_hash: str | None = None) -> SignOff:
    """Record `decision` on the item and write its file atomically. Only the item's review block changes.

    The file is locked and read afresh, and the decision is applied to what is there now, so concurrent
    writers never lose each other's updates. With `expected_hash` (a decision made on a form or spreadsheet)
    the decision is refused with StaleDecision when the item's content no longer has that hash.
    """
    if decision not in DECISIONS:
        raise SignOffError(f"decision must be one of {', '.join(DECISIONS)}")
    name = " ".join((reviewer or "").split())
    if not name:
        raise SignOffError("--reviewer must name the reviewer")
    if orcid is not None and not ORCID.match(orcid.strip()):
        raise SignOffError(f"--orcid {orcid!r} is not an ORCID iD such as 0000-0002-1825-0097")
    today = today or dt.date.today()
    target = find_item(reg, item_id, kind)
    real = resolve_in_tree(target.file.path, reg.root)
    with file_lock(real):
        raw = real.read_bytes()
        bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
        try:
            text = raw[len(bom):].decode("utf-8")
        except UnicodeDecodeError:
            raise SignOffError(f"{target.file.rel}: not UTF-8 text; nothing was written")
        doc = parse_yaml(raw[len(bom):])
        if doc.problems:
            p = doc.problems[0]
            raise SignOffError(f"{target.file.rel}:{p.line}:{p.column}: {p.message}; nothing was written")
        data = doc.data
        path, placement = _locate(data, target.kind, item_id)
        item_data = _get(data, path)
        try:
            item = (Task if target.kind == "task" else Subcategory).model_validate(item_data)
        except Exception:
            raise SignOffError(f"{target.file.rel}: {target.kind} {item_id!r} does not validate; run `clinreg validate`")
        digest = item_hash(target.kind, item, placement)
        if expected_hash is not None and expected_hash != digest:
            raise StaleDecision(f"{target.kind} {item_id!r} changed since the decision was made (decided on "
                                f"{expected_hash.split(':')[-1][:12]}, now {digest.split(':')[-1][:12]}); its decision "
                                "was not recorded: review the current wording again")
        entry: dict[str, Any] = {"name": name}
        if orcid:
            entry["orcid"] = orcid.strip()
        entry.update({"date": today, "decision": decision})
        if note and note.strip():
            entry["note"] = note.strip()
        entry["content_hash"] = digest
        entry["reviewed"] = item_content(target.kind, item, placement)

        old_review = item_data.get("review") or {}
        review = {k: copy.deepcopy(old_review[k]) for k in _REVIEW_ORDER if k in old_review}
        review.update({k: copy.deepcopy(v) for k, v in old_review.items() if k not in review})
        review["status"] = decision
        review["reviewers"] = list(review.get("reviewers") or []) + [entry]
        review["date"] = today
        review["content_hash"] = digest
        review = {k: review[k] for k in _REVIEW_ORDER if k in review} | {k: v for k, v in review.items() if k not in _REVIEW_ORDER}

        new_text, item_offset = _splice(text, path, review)
        _verify(new_text, data, path, review, target.file.rel)
        # Compare-and-swap: every writer holds the lock, but an editor or a script may not. Replace the file
        # only if it still holds what was read; otherwise say so rather than report a write that was lost.
        if real.read_bytes() != raw:
            raise SignOffError(f"{target.file.rel} changed while the decision was being written (by a program that "
                               "does not take clinreg's lock); nothing was written, run the command again")
        atomic_write_bytes(real, bom + new_text.encode("utf-8"))
    line = new_text.count("\n", 0, item_offset) + 1
    state = derive_state(Review.model_validate(review), digest).state
    return SignOff(target.kind, target.item.id, target.file.rel, line, decision, entry, today, digest,
                   len(review["reviewers"]), state)


def _get(data: Any, path: tuple) -> Any:
    for p in path:
        data = data[p]
    return data


def _verify(new_text: str, old_data: Any, path: tuple, review: dict, rel: str) -> None:
    """The edited file must parse to the old content with only the item's review replaced."""
    doc = parse_yaml(new_text.encode("utf-8"))
    expected = copy.deepcopy(old_data)
    _get(expected, path)["review"] = review
    if doc.problems or doc.data != expected:
        raise SignOffError(f"{rel}: could not edit the review block safely; edit it by hand (the file was not changed)")
    try:
        Category.model_validate(doc.data)
    except Exception as exc:  # pydantic ValidationError: the reviewer data breaks the schema
        raise SignOffError(f"{rel}: the new review would not validate: {str(exc).splitlines()[0]}")


# --------------------------------------------------------------------------------------------- the text splice


def splice_review(text: str, path: tuple, review: dict) -> str:
    """Replace (or insert) the `review` value of the mapping at `path`, leaving every other character as it was."""
    return _splice(text, path, review)[0]


def _splice(text: str, path: tuple, review: dict) -> tuple[str, int]:
    """splice_review, and where the item's mapping starts: the edit only touches text inside the item, after
    that point, so the offset holds in the new text too (and needs no second parse)."""
    nl = "\r\n" if "\r\n" in text else "\n"
    loader = yaml.SafeLoader(text)  # the pure-Python loader: its marks index characters of `text`
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    parent = _node_at(root, path)
    if not isinstance(parent, yaml.MappingNode):
        raise SignOffError("the item is not a mapping")
    return _splice_at(text, parent, review, nl), parent.start_mark.index


def _splice_at(text: str, parent: yaml.MappingNode, review: dict, nl: str) -> str:
    pair = next(((k, v) for k, v in parent.value if isinstance(k, yaml.ScalarNode) and k.value == "review"), None)
    if pair is None:
        return _insert_review(text, parent, review, nl)
    key, value = pair
    if parent.flow_style:
        return text[: value.start_mark.index] + _flow(review) + text[value.end_mark.index:]
    if isinstance(value, yaml.MappingNode) and not value.flow_style:
        start, end = value.start_mark.index, _content_end(text, value)
        lines = _block_lines(review, 0)
        body = (nl + " " * value.start_mark.column).join(lines)
        return text[:start] + body + text[end:]
    between = text[key.end_mark.index: value.start_mark.index]
    if between.strip() != ":":
        return text[: value.start_mark.index] + _flow(review) + text[_content_end(text, value):]
    indent = key.start_mark.column + 2
    body = ":" + nl + nl.join(" " * indent + line for line in _block_lines(review, 0))
    return text[: key.end_mark.index] + body + text[_content_end(text, value):]


def _insert_review(text: str, parent: yaml.MappingNode, review: dict, nl: str) -> str:
    if parent.flow_style:
        at = parent.end_mark.index - 1  # just before the closing brace
        return text[:at] + ", review: " + _flow(review) + text[at:]
    keys = [k.value for k, _ in parent.value]
    # Put the review next to the definition it covers: before `tasks`, after the key that precedes it.
    index = keys.index("tasks") - 1 if "tasks" in keys and keys.index("tasks") > 0 else len(keys) - 1
    key, value = parent.value[index]
    end = _content_end(text, value)
    line_end = text.find("\n", end)
    at = len(text) if line_end < 0 else line_end + 1
    prefix = "" if at == len(text) and text.endswith("\n") else (nl if line_end < 0 else "")
    indent = " " * key.start_mark.column
    lines = [indent + "review:"] + [indent + "  " + line for line in _block_lines(review, 0)]
    return text[:at] + prefix + nl.join(lines) + nl + text[at:]


def _node_at(node: yaml.Node, path: tuple) -> yaml.Node:
    for p in path:
        if isinstance(node, yaml.MappingNode):
            node = next(v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == str(p))
        elif isinstance(node, yaml.SequenceNode):
            node = node.value[p]
        else:
            raise SignOffError("the item's location in the file could not be found")
    return node


def _content_end(text: str, node: yaml.Node) -> int:
    """Index just after the node's last character of content (not the comments or blank lines after it)."""
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        return _content_end(text, last[1] if isinstance(node, yaml.MappingNode) else last)
    end = node.end_mark.index
    while end > node.start_mark.index and text[end - 1] in " \t\r\n":
        end -= 1
    return end


def _block_lines(mapping: dict, indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    for key, value in mapping.items():
        k = yaml_scalar(key)
        if isinstance(value, dict) and value:
            lines.append(f"{pad}{k}:")
            lines += _block_lines(value, indent + 2)
        elif isinstance(value, list) and value:
            lines.append(f"{pad}{k}:")
            for item in value:
                if isinstance(item, dict) and item:
                    sub = _block_lines(item, indent + 4)
                    lines.append(f"{pad}  - {sub[0].lstrip()}")
                    lines += sub[1:]
                else:
                    lines.append(f"{pad}  - {_flow(item)}")
        else:
            lines.append(f"{pad}{k}: {_flow(value)}")
    return lines


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{yaml_scalar(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return yaml_scalar(value)

