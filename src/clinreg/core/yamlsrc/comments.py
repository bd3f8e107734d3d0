"""Comments that cut a plain value short: `note: Added in PR #3781` reads as `Added in PR`, without a word.

YAML starts a comment at a `#` that follows whitespace, also in the middle of an unquoted value, and libyaml
drops comments before anyone sees them. `cut_comments` reads the raw text beside libyaml's scalar events:
for each plain scalar that a comment follows on the same line, it decides whether the comment was more
likely meant as part of the text (see `_suspicious`). yamllint's `comments: min-spaces-from-content` rule is
the convention: two spaces before a comment that follows content.

The fast reader does not parse a file a second time for this: it asks `CommentScan.of(text)` once (None for a
file with no line on which a comment follows content, which costs two substring tests for most files) and
hands the plain values that end on a line holding a `#` to `CommentScan.check`, as `cut_comments` would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml
from yaml.events import (
    CollectionEndEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent,
)

from clinreg.core.yamlsrc.tags import Loader

# Content, whitespace and a `#` on one line: the only lines on which a comment can follow a value.
_CANDIDATE = re.compile(r"^[ \t]*[^ \t#\r\n][^\r\n]*?[ \t]#", re.MULTILINE)
_AFTER = re.compile(r"([ \t]+)#(.*)")
_PAIRS = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class CutComment:
    """A comment that follows a plain value on its line and probably belongs to the text."""

    line: int  # of the `#`, 1-based
    column: int
    path: tuple  # of the value
    kept: str  # the value as YAML reads it
    comment: str  # what YAML dropped, from the `#`
    why: str


def has_candidate(text: str) -> bool:
    """Whether a line of `text` holds content, whitespace and a `#` (as `_CANDIDATE.search(text)`, faster).

    `_CANDIDATE`'s `^` starts a line only after a `\n`, and its line stops at a `\r` or `\n`: an occurrence of
    ` #` or a tab and `#` counts when its segment, from the line's start, holds no `\r` before it and starts
    (after blanks) with a character other than `#` before the occurrence.
    """
    if " #" not in text and "\t#" not in text:
        return False
    for needle in (" #", "\t#"):
        at = text.find(needle)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            if text.find("\r", start, at) < 0:
                head = text[start:at].lstrip(" \t")
                if head and head[0] != "#":
                    return True
                # Every later occurrence on this line has the same head: skip to the next line.
                end = text.find("\n", at)
                if end < 0:
                    break
                at = end
            at = text.find(needle, at + 1)
    return False


class CommentScan:
    """What `cut_comments` needs of a file's text, for a reader that already walks its events."""

    __slots__ = ("lines", "hash_lines")

    def __init__(self, text: str):
        self.lines = text.splitlines()
        # The lines (as `lines` numbers them) holding a `#`: a value ending on another line has no comment after it.
        self.hash_lines = frozenset(i for i, line in enumerate(self.lines) if "#" in line)

    @classmethod
    def of(cls, text: str) -> CommentScan | None:
        """A scan of `text`, or None when no comment follows content in it (cut_comments would find nothing)."""
        return cls(text) if has_candidate(text) else None

    def check(self, value: str, end_mark, path: tuple, in_mapping: bool) -> CutComment | None:
        """The finding for a plain value scalar (not a key), as `cut_comments` reports it, or None."""
        return _check(self.lines, value, end_mark, path, in_mapping)


def cut_comments(text: str) -> list[CutComment]:
    """The comments in `text` that probably cut a plain value short (an empty list for almost every file).

    The reference reader's files use this; the fast reader finds the same through `CommentScan`."""
    if not has_candidate(text):
        return []
    lines = text.splitlines()
    found: list[CutComment] = []
    # One frame per open collection: [is a mapping, whether the next scalar is a key, path, next index or key]
    stack: list[list] = []
    loader = Loader(text)
    try:
        while True:
            event = loader.get_event()
            if event is None:
                break
            if isinstance(event, (MappingStartEvent, SequenceStartEvent)):
                path = _child_path(stack)
                _advance(stack)
                stack.append([isinstance(event, MappingStartEvent), True, path, 0])
            elif isinstance(event, CollectionEndEvent):
                stack.pop()
            elif isinstance(event, ScalarEvent):
                is_key = bool(stack) and stack[-1][0] and stack[-1][1]
                path = _child_path(stack)
                in_mapping = bool(stack) and stack[-1][0]
                if is_key:
                    stack[-1][3] = event.value
                _advance(stack)
                if not is_key and not event.style:  # plain: None from the Python parser, "" from libyaml
                    cut = _check(lines, event.value, event.end_mark, path, in_mapping)
                    if cut:
                        found.append(cut)
    except yaml.YAMLError:
        return found  # the readers report the syntax error
    finally:
        loader.dispose()
    return found


def _child_path(stack: list[list]) -> tuple:
    if not stack:
        return ()
    is_map, _, path, at = stack[-1]
    return path + (at,)


def _advance(stack: list[list]) -> None:
    if not stack:
        return
    frame = stack[-1]
    if frame[0]:
        frame[1] = not frame[1]
    else:
        frame[3] += 1


def _check(lines: list[str], value: str, end, path: tuple, in_mapping: bool) -> CutComment | None:
    if end.line >= len(lines):
        return None
    match = _AFTER.match(lines[end.line], end.column)
    if not match:
        return None
    why = _suspicious(value, match.group(1), match.group(2), in_mapping)
    if why is None:
        return None
    return CutComment(end.line + 1, match.start() + len(match.group(1)) + 1, path, value,
                      "#" + match.group(2).rstrip(), why)


def _suspicious(value: str, space: str, comment: str, in_mapping: bool) -> str | None:
    """Why a comment after `value` looks like part of the text, or None when it looks like a comment."""
    if comment[:1] not in ("", " ", "\t", "#"):
        return f"`#{comment.split()[0]}` starts a word"
    if _unclosed(value):
        return f"the value leaves {_unclosed(value)!r} open"
    if space == " " and in_mapping:
        return "a single space separates the value from the `#`"
    if space == " " and " " in value:
        return "a single space separates the text from the `#`"
    return None


def _unclosed(value: str) -> str | None:
    """The first bracket left open in `value`, if any."""
    open_: list[str] = []
    for ch in value:
        if ch in _PAIRS:
            open_.append(ch)
        elif open_ and ch == _PAIRS[open_[-1]]:
            open_.pop()
    return open_[0] if open_ else None
