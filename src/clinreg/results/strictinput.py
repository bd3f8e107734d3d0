"""The strict input helpers every results reader shares: capped reads, strict JSON, finite numbers, locations.

Every input is untrusted: a problem raises `Unreadable`, which the reader turns into one located finding.
"""

from __future__ import annotations

import errno
import json
import math
import re
from pathlib import Path
from typing import Any

from clinreg.errors import ClinregError
from clinreg.text.safeio import NotARegularFile, read_regular_file

MAX_TEXT_BYTES = 64 * 1024 * 1024  # one CSV or JSON file
MAX_JSON_DEPTH = 64


# What an `Unreadable` says went wrong, where a caller decides by it rather than by the message.
JSON_CONSTANT = "json_constant"  # NaN, Infinity or -Infinity, which JSON does not allow


class Unreadable(ClinregError):
    """Raised by the strict helpers; the reader turns it into one located CLR961 finding. `kind` names the problem
    where a caller acts on it (JSON_CONSTANT), else None."""

    default_code = "CLR961"

    def __init__(self, message: str, line: int = 1, column: int = 1, kind: str | None = None):
        super().__init__(message, line=line, column=column)
        self.kind = kind


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    """The file as UTF-8 text (a BOM dropped), refusing anything over `limit` bytes or not a regular file (a FIFO
    or a device is refused before it is opened: `read_regular_file`)."""
    try:
        data = read_regular_file(path, limit)
    except NotARegularFile:
        raise Unreadable("not a regular file") from None
    except FileNotFoundError:
        raise Unreadable("no such file") from None
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            raise Unreadable(f"larger than {limit // (1024 * 1024)} MiB; refusing to read it") from None
        raise Unreadable(f"cannot read it: {exc.strerror or exc}") from None
    return decode(data)


def decode(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise Unreadable(f"not UTF-8 (byte {exc.start})", line) from None
    return text[1:] if text.startswith("\ufeff") else text


class _ConstantRefused(ValueError):
    """A NaN or an infinity in strict JSON."""


def _no_constant(name: str) -> Any:
    raise _ConstantRefused(f"{name} is not a number JSON allows")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):  # rare: find the key that came twice, for the message
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen.add(key)
    return out


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # unrolled: no backtracking state per character
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


# What one parsed document may hold: 64 MiB of `{},{},...` would become 21 million dicts (1.6 GiB). A results
# file of 2,000 models x 37 benchmarks holds about 220,000.
MAX_JSON_CONTAINERS = 2_000_000


def _depth(text: str) -> int:
    """The deepest nesting of brackets outside strings (regular expressions, so it runs at C speed); a document
    with more than MAX_JSON_CONTAINERS objects and arrays is refused before it is parsed."""
    outside_strings = _JSON_STRING.sub("", text)
    # Counted with str.count before any skeleton is built: a document of millions of `{}` would otherwise make
    # a list of millions of pieces (2 GiB for 22 million) just to be refused.
    if outside_strings.count("{") + outside_strings.count("[") > MAX_JSON_CONTAINERS:
        raise Unreadable(f"holds more than {MAX_JSON_CONTAINERS:,} objects and arrays; refusing to parse it")
    skeleton = _NOT_BRACKET.sub("", outside_strings)
    depth = deepest = 0
    for ch in skeleton:
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def parse_json(text: str, constants: bool = False) -> Any:
    """Strict JSON: no NaN or Infinity, no duplicate keys, bounded nesting and size. With `constants` (Inspect's
    logs, which write an undefined metric, such as the mean of no rated sample, as NaN), NaN and the infinities
    read as null, which every reader then reports as not a finite number at its own place."""
    if _depth(text) <= MAX_JSON_DEPTH:  # well formed or not, nothing nests deep enough to matter
        return _loads(text, constants)
    # Deeper brackets, perhaps inside a string the fast skeleton misread in a broken document: the exact scan
    # decides, so that the message is the same as ever.
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:  # a cheap scan, so a deeply nested document never reaches the recursive parser
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                raise Unreadable(f"nested deeper than {MAX_JSON_DEPTH} levels")
        elif ch in "]}":
            depth -= 1
    return _loads(text, constants)


def _loads(text: str, constants: bool = False) -> Any:
    try:
        return json.loads(text, parse_constant=(lambda name: None) if constants else _no_constant,
                          object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise Unreadable(f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except _ConstantRefused as exc:
        raise Unreadable(f"not valid JSON: {exc}", kind=JSON_CONSTANT) from None
    except (ValueError, RecursionError) as exc:
        raise Unreadable(f"not valid JSON: {exc}") from None


def locate(text: str, *tokens: str) -> tuple[int, int]:
    """(line, column) of the first of `tokens` found in `text` (pass keys and names JSON-encoded); (1, 1) if none is."""
    for token in tokens:
        at = text.find(token)
        if at >= 0:
            return position(text, at)
    return 1, 1


def position(text: str, at: int) -> tuple[int, int]:
    """(line, column), both from 1, of character offset `at`."""
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


class Positions:
    """(line, column) of offsets met in increasing order, in one pass over the text: each call counts only the
    newlines since the previous offset, so locating every score of a file is linear in its size."""

    def __init__(self, text: str) -> None:
        self.text, self.at, self.line, self.line_start = text, 0, 1, 0

    def __call__(self, at: int) -> tuple[int, int]:
        if at < self.at:  # an offset before the last one: count from the start, as position() does
            return position(self.text, at)
        newlines = self.text.count("\n", self.at, at)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rfind("\n", self.at, at) + 1
        self.at = at
        return self.line, at - self.line_start + 1


def quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def finite_number(value: Any) -> float | None:
    """A JSON number as a float; None for anything else (bools, strings, NaN, infinities, and whole numbers too
    large for a float, such as 401 digits, which are as unusable as an infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def count(value: Any) -> int | None:
    """A whole number of at least 1, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and value >= 1 else None
