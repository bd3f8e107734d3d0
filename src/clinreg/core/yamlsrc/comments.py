"""Comments that cut a plain value short: `note: Added in PR #3781` reads as `Added in PR`, without a word.

YAML starts a comment at a `#` that follows whitespace, also in the middle of an unquoted value, and libyaml
drops comments before anyone sees them. `cut_comments` reads the raw text beside libyaml's scalar events:
for each plain scalar that a comment follows on the same line, it decides whether the comment was more
likely meant as part of the text (see `_suspicious`). yamllint's `comments: min-spaces-from-content` rule is
the convention: two spaces before a comment that follows content.
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


def cut_comments(text: str) -> list[CutComment]:
    """The comments in `text` that probably cut a plain value short (an empty list for almost every file)."""
    if not _CANDIDATE.search(text):
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
                    cut = _check(lines, event, path, in_mapping)
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


def _check(lines: list[str], event: ScalarEvent, path: tuple, in_mapping: bool) -> CutComment | None:
    end = event.end_mark
    if end.line >= len(lines):
        return None
    match = _AFTER.match(lines[end.line], end.column)
    if not match:
        return None
    why = _suspicious(event.value, match.group(1), match.group(2), in_mapping)
    if why is None:
        return None
    return CutComment(end.line + 1, match.start() + len(match.group(1)) + 1, path, event.value,
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
