"""Record a clinician's review decision in a taxonomy file, changing only the lines of the item's `review` block."""

from __future__ import annotations

import copy
import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from clinreg.core.model import Category, Review, Subcategory, Task
from clinreg.core.reviewstate import decision_value, derive_state, item_content, item_hash, policy_of
from clinreg.core.store import Registry, SourceFile
from clinreg.core.yamlsrc import parse_yaml
from clinreg.errors import ClinregError
from clinreg.text.safeio import file_lock
from clinreg.text.tracked import ChangedUnderneath, Tracked, edit_tracked
from clinreg.text.suggest import closest
from clinreg.text.yamltext import yaml_scalar

DECISIONS = ("approved", "rejected", "changes_requested")
# A comment without a decision: recorded in the history with its note and no `decision`, so the review state
# (derived from decisions only) and the block's status, date and hash stay as they were.
COMMENT = "comment"
ORCID = re.compile(r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$")
_REVIEW_ORDER = ("status", "reviewers", "date", "content_hash")


class SignOffError(ClinregError, ValueError):
    """A decision that cannot be recorded: unknown item, bad reviewer details, or a file that cannot be edited."""

    default_code = "CLR806"


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
    close = closest(item_id, known)
    what = {"task": "task", "subcategory": "subcategory"}.get(kind or "", "task or subcategory")
    message = f"no {what} {item_id!r} in the taxonomy"
    if close:
        message += f"; did you mean {close!r}?"
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
        raise SignOffError(f"{path}: a broken or looping link; nothing was written") from None
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


@dataclass
class Request:
    """One decision to record (see sign_off for the fields)."""

    item_id: str
    decision: str
    reviewer: str
    orcid: str | None = None
    note: str | None = None
    kind: str | None = None
    expected_hash: str | None = None
    date: dt.date | None = None  # the day the reviewer decided (a sheet's date column, the form's save time)
    adjudication: bool = False  # a maintainer's decision closing a split item; `note` is its reason


class AlreadyRecorded(SignOffError):
    """The same reviewer's same decision, note and hash is already recorded: importing a file twice adds nothing."""


def sign_off(reg: Registry, item_id: str, decision: str, reviewer: str, *, orcid: str | None = None,
             note: str | None = None, today: dt.date | None = None, kind: str | None = None,
             expected_hash: str | None = None, adjudication: bool = False) -> SignOff:
    """Record `decision` on the item and write its file atomically. Only the item's review block changes.

    The file is locked and read afresh, and the decision is applied to what is there now, so concurrent
    writers never lose each other's updates. With `expected_hash` (a decision made on a form or spreadsheet)
    the decision is refused with StaleDecision when the item's content no longer has that hash.
    """
    decision = decision_value(decision) or decision  # the sheet's words (approve, reject, request changes) too
    request = Request(item_id, decision, reviewer, orcid, note, kind, expected_hash, adjudication=adjudication)
    (outcome,) = sign_off_many(reg, [request], today=today)
    if isinstance(outcome, SignOffError):
        raise outcome
    return outcome


def sign_off_many(reg: Registry, requests: list[Request], *,
                  today: dt.date | None = None) -> list[SignOff | SignOffError]:
    """Record each decision as sign_off would, in order, and return its SignOff or the SignOffError that
    refused it. The decisions on one file are applied together: one lock, one read, one parse and one
    atomic write per file (a spreadsheet of 121 decisions touches six files)."""
    today = today or dt.date.today()
    outcomes: list[SignOff | SignOffError | None] = [None] * len(requests)
    by_file: dict[Path, list[tuple[int, Request, ReviewTarget]]] = {}
    for i, request in enumerate(requests):
        try:
            _check_request(request)
            target = find_item(reg, request.item_id, request.kind)
            real = resolve_in_tree(target.file.path, reg.root)
        except SignOffError as exc:
            outcomes[i] = exc
            continue
        by_file.setdefault(real, []).append((i, request, target))
    for real, items in by_file.items():
        for (i, _, _), outcome in zip(items, _sign_file(real, items, today, policy_of(reg))):
            outcomes[i] = outcome
    return outcomes  # type: ignore[return-value]


def _check_request(request: Request) -> None:
    if request.decision not in DECISIONS + (COMMENT,):
        raise SignOffError(f"decision {request.decision!r:.40} is not one of approve, reject, request changes "
                           f"(or {', '.join(DECISIONS + (COMMENT,))})")
    if request.decision == COMMENT and not (request.note or "").strip():
        raise SignOffError("a comment without a decision needs its note")
    if not " ".join((request.reviewer or "").split()):
        raise SignOffError("--reviewer must name the reviewer")
    if request.orcid is not None and not ORCID.match(request.orcid.strip()):
        raise SignOffError(f"--orcid {request.orcid!r} is not an ORCID iD such as 0000-0002-1825-0097")
    if request.adjudication and (request.decision == COMMENT or not (request.note or "").strip()):
        raise SignOffError("an adjudication needs a decision and its reason (--reason)")


def _sign_file(real: Path, items: list[tuple[int, Request, ReviewTarget]], today: dt.date,
               policy: Any = None) -> list[SignOff | SignOffError]:
    """The decisions on one file, applied to what the file holds now, under its lock."""
    rel = items[0][2].file.rel
    with file_lock(real):
        raw = real.read_bytes()
        bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
        try:
            text = raw[len(bom):].decode("utf-8")
        except UnicodeDecodeError:
            return [SignOffError(f"{rel}: not UTF-8 text; nothing was written")] * len(items)
        doc = parse_yaml(raw[len(bom):])
        if doc.problems:
            p = doc.problems[0]
            return [SignOffError(f"{rel}:{p.line}:{p.column}: {p.message}; nothing was written")] * len(items)
        data = doc.data
        outcomes: list[SignOff | SignOffError | None] = [None] * len(items)
        reviews: dict[tuple, dict] = {}  # each item's review block as the decisions so far leave it
        pending = []
        for n, (_, request, target) in enumerate(items):
            try:
                path, entry, digest, review = _decide(data, request, target, reviews, today, policy)
            except SignOffError as exc:
                outcomes[n] = exc
                continue
            reviews[path] = review
            pending.append((n, path, entry, digest, review, target, request.decision))
        if not pending:
            return outcomes  # type: ignore[return-value]
        try:
            new_text, starts = _splice_many(text, reviews)
            _verify(new_text, data, reviews, rel)
            failed = None
        except SignOffError as exc:
            failed = exc
        if failed is None:
            # Compare-and-swap: every writer holds the lock, but an editor or a script may not. Replace the file
            # only if it still holds what was read; otherwise say so rather than report a write that was lost.
            try:
                edit_tracked(Tracked(real, raw), bom + new_text.encode("utf-8"))
            except ChangedUnderneath:
                lost = SignOffError(f"{rel} changed while the decision was being written (by a program that does "
                                    "not take clinreg's lock); nothing was written, run the command again")
                return [lost if outcome is None else outcome for outcome in outcomes]  # type: ignore[misc]
    if failed is not None:
        if len(items) > 1:  # one odd item must not sink the others: apply them one at a time (lock released)
            return [outcome for item in items for outcome in _sign_file(real, [item], today, policy)]
        return [failed if outcome is None else outcome for outcome in outcomes]  # type: ignore[misc]
    for n, path, entry, digest, review, target, decision in pending:
        line = new_text.count("\n", 0, starts[path]) + 1
        state = derive_state(Review.model_validate(review), digest, policy).state
        outcomes[n] = SignOff(target.kind, target.item.id, rel, line, decision, entry, entry["date"], digest,
                              len(review["reviewers"]), state)
    return outcomes  # type: ignore[return-value]


def _decide(data: Any, request: Request, target: ReviewTarget, reviews: dict[tuple, dict],
            today: dt.date, policy: Any = None) -> tuple[tuple, dict, str, dict]:
    """(path, reviewer entry, content hash, new review block) of one decision on freshly read data."""
    path, placement = _locate(data, target.kind, request.item_id)
    item_data = _get(data, path)
    try:
        item = (Task if target.kind == "task" else Subcategory).model_validate(item_data)
    except ValidationError:
        raise SignOffError(f"{target.file.rel}: {target.kind} {request.item_id!r} does not validate; run `clinreg "
                           "validate`") from None
    digest = item_hash(target.kind, item, placement)
    expected = request.expected_hash
    if expected is not None and expected != digest:
        raise StaleDecision(f"{target.kind} {request.item_id!r} changed since the decision was made (decided on "
                            f"{expected.split(':')[-1][:12]}, now {digest.split(':')[-1][:12]}); its decision "
                            "was not recorded: review the current wording again")
    old_review = reviews[path] if path in reviews else (item_data.get("review") or {})
    if request.adjudication:
        now = derive_state(Review.model_validate(old_review), digest, policy) if old_review else None
        if now is None or now.state not in ("split", "conflicting"):
            raise SignOffError(f"{target.kind} {request.item_id!r} is "
                               f"{(now.state if now else 'proposed').replace('_', ' ')}, "
                               "not split: only a split panel (or conflicting reviewers) is adjudicated")
    name = " ".join(request.reviewer.split())
    note = request.note.strip() if request.note and request.note.strip() else None
    comment = request.decision == COMMENT
    for earlier in old_review.get("reviewers") or []:
        if (isinstance(earlier, dict) and " ".join(str(earlier.get("name", "")).split()).casefold() == name.casefold()
                and earlier.get("decision") == (None if comment else request.decision)
                and earlier.get("content_hash") == digest and (earlier.get("note") or None) == note):
            what = "comment on" if comment else request.decision.replace("_", " ") + " of"
            raise AlreadyRecorded(f"{target.kind} {request.item_id!r}: {name}'s {what} this wording is already "
                                  f"recorded (on {earlier.get('date')}); not added again")
    day = request.date or today
    entry: dict[str, Any] = {"name": name}
    if request.orcid:
        entry["orcid"] = request.orcid.strip()
    entry["date"] = day
    if not comment:
        entry["decision"] = request.decision
    if request.adjudication:
        entry["adjudication"] = True
    if request.note and request.note.strip():
        entry["note"] = request.note.strip()
    entry["content_hash"] = digest
    entry["reviewed"] = item_content(target.kind, item, placement)

    review = {k: copy.deepcopy(old_review[k]) for k in _REVIEW_ORDER if k in old_review}
    review.update({k: copy.deepcopy(v) for k, v in old_review.items() if k not in review})
    review["reviewers"] = list(review.get("reviewers") or []) + [entry]
    if comment:  # status, date and hash belong to the latest decision; a comment leaves them as they were
        review.setdefault("status", "proposed")
    else:
        review["status"] = request.decision
        review["date"] = max(day, review["date"]) if isinstance(review.get("date"), dt.date) else day
        review["content_hash"] = digest
    review = {k: review[k] for k in _REVIEW_ORDER if k in review} | {k: v for k, v in review.items()
                                                                     if k not in _REVIEW_ORDER}
    return path, entry, digest, review


def _get(data: Any, path: tuple) -> Any:
    for p in path:
        data = data[p]
    return data


def _verify(new_text: str, old_data: Any, reviews: dict[tuple, dict], rel: str) -> None:
    """The edited file must parse to the old content with only the items' reviews replaced."""
    doc = parse_yaml(new_text.encode("utf-8"))
    expected = copy.deepcopy(old_data)
    for path, review in reviews.items():
        _get(expected, path)["review"] = review
    if doc.problems or doc.data != expected:
        raise SignOffError(f"{rel}: could not edit the review block safely; edit it by hand (the file was not changed)")
    try:
        Category.model_validate(doc.data)
    except ValidationError as exc:  # the reviewer data breaks the schema
        raise SignOffError(f"{rel}: the new review would not validate: {str(exc).splitlines()[0]}") from None


# --------------------------------------------------------------------------------------------- the text splice


def splice_review(text: str, path: tuple, review: dict) -> str:
    """Replace (or insert) the `review` value of the mapping at `path`, leaving every other character as it was."""
    return _splice(text, path, review)[0]


def _splice(text: str, path: tuple, review: dict) -> tuple[str, int]:
    """splice_review, and where the item's mapping starts: the edit only touches text inside the item, after
    that point, so the offset holds in the new text too (and needs no second parse)."""
    new_text, starts = _splice_many(text, {path: review})
    return new_text, starts[path]


def _splice_many(text: str, reviews: dict[tuple, dict]) -> tuple[str, dict[tuple, int]]:
    """Replace (or insert) the `review` of each mapping at a path, from one parse of `text`; also where each
    item starts in the new text. Each edit is a region inside its own item's review (or an insertion point
    next to it), so the regions never overlap: they are applied from the end of the text backwards."""
    nl = "\r\n" if "\r\n" in text else "\n"
    loader = yaml.SafeLoader(text)  # the pure-Python loader: its marks index characters of `text`
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    edits: list[tuple[int, int, str]] = []
    item_starts: dict[tuple, int] = {}
    for path, review in reviews.items():
        parent = _node_at(root, path)
        if not isinstance(parent, yaml.MappingNode):
            raise SignOffError("the item is not a mapping")
        edits.append(_review_edit(text, parent, review, nl))
        item_starts[path] = parent.start_mark.index
    edits.sort(key=lambda e: (e[0], e[1]))
    if any(a[1] > b[0] for a, b in zip(edits, edits[1:])):
        raise SignOffError("two review blocks overlap in the file; edit them by hand (the file was not changed)")
    for start, end, replacement in reversed(edits):
        text = text[:start] + replacement + text[end:]
    shifted = {path: at + sum(len(r) - (e - s) for s, e, r in edits if s < at) for path, at in item_starts.items()}
    return text, shifted


def _review_edit(text: str, parent: yaml.MappingNode, review: dict, nl: str) -> tuple[int, int, str]:
    """(start, end, replacement): the region of `text` that gives the mapping `parent` this `review`."""
    pair = next(((k, v) for k, v in parent.value if isinstance(k, yaml.ScalarNode) and k.value == "review"), None)
    if pair is None:
        return _insert_review(text, parent, review, nl)
    key, value = pair
    if parent.flow_style:
        return value.start_mark.index, value.end_mark.index, _flow(review)
    if isinstance(value, yaml.MappingNode) and not value.flow_style:
        start, end = value.start_mark.index, _content_end(text, value)
        lines = _block_lines(review, 0)
        return start, end, (nl + " " * value.start_mark.column).join(lines)
    between = text[key.end_mark.index: value.start_mark.index]
    if between.strip() != ":":
        return value.start_mark.index, _content_end(text, value), _flow(review)
    indent = key.start_mark.column + 2
    body = ":" + nl + nl.join(" " * indent + line for line in _block_lines(review, 0))
    return key.end_mark.index, _content_end(text, value), body


def _insert_review(text: str, parent: yaml.MappingNode, review: dict, nl: str) -> tuple[int, int, str]:
    if parent.flow_style:
        at = parent.end_mark.index - 1  # just before the closing brace
        return at, at, ", review: " + _flow(review)
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
    return at, at, prefix + nl.join(lines) + nl


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

