"""Untrusted text made safe for every place clinreg prints it: terminal, Markdown, CSV, HTML source and strict JSON.

Registry text comes from pull requests. Every renderer passes it through `shown` (no control, format or
line-separator character reaches a terminal raw) and its whole output through `defuse` (no line of it can be
read by GitHub Actions as a workflow command), and every JSON document is written by `to_json` (strict JSON:
no NaN or Infinity, and the same escapes).
"""

from __future__ import annotations

import json
import re
from typing import Any

from clinreg.errors import ClinregError

# Lines that GitHub Actions reads as workflow commands: `::name ...::data` at the start of a line (leading
# whitespace is ignored), and the older `##[name ...]data` anywhere in a line.
_COMMAND_LINE = re.compile(r"^([ \t]*):(?=:)", re.MULTILINE)
_OLD_COMMAND = re.compile(r"(?<=#)#(?=\[)")

# How each kind of output writes a ':' or a '#' that must not be read as one; each renders as the character.
_ESCAPES = {
    "text": ("\\:", "\\#"),
    "markdown": ("\\:", "\\#"),
    "html": ("&#58;", "&#35;"),
    "json": ("\\u003a", "\\u0023"),
}


_MAX_MESSAGE = 500


def _escape_char(c: str) -> str:
    return c.encode("unicode_escape").decode("ascii")


def shown(text: Any, keep: str = "") -> str:
    """`text` with every control, format (bidi, zero-width), separator and unassigned character shown as an escape.

    `\\n`, `\\x1b`, `\\u202e`: a reader sees that the character is there, and the terminal never acts on it.
    Printable text, including every script and emoji, is left alone, and so are the characters in `keep`
    (a multi-line document keeps its `\\n`; `defuse` then guards the lines).
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " or c in keep else _escape_char(c) for c in text)


# A spreadsheet runs a cell that starts with one of these as a formula; text from outside must stay text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any, reversible: bool = False) -> Any:
    """A CSV cell: text on one line with control characters shown escaped, and never a formula (a leading
    apostrophe). With `reversible`, text that starts with an apostrophe gets one more, so that `csv_uncell` gives
    back exactly the text shown."""
    if not isinstance(value, str):
        return value
    value = shown(value)
    starts = FORMULA_STARTS + ("'",) if reversible else FORMULA_STARTS
    return "'" + value if value.startswith(starts) else value


def csv_uncell(value: str) -> str:
    """A cell `csv_cell(..., reversible=True)` wrote, without the apostrophe it added."""
    return value[1:] if value.startswith("'") and value[1:2] and value[1] in "=+-@'\t\r" else value


def printable(text: str, limit: int = _MAX_MESSAGE) -> str:
    """`text` as `shown`, clipped to `limit`: a diagnostic's message, hint or file name.

    Messages quote registry values, and registry values are untrusted: a raw newline or ESC in a message would
    let a pull request forge `::error` workflow commands or terminal escapes in CI logs.
    """
    text = shown(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def template_finalize(value: Any) -> Any:
    """Jinja `finalize` for report templates: every `{{ ... }}` result is `shown`, keeping a document's line breaks."""
    if isinstance(value, str) and not value.isprintable():
        escaped = shown(value, keep="\n\t")
        return type(value)(escaped) if type(value) is not str else escaped  # a Markup stays Markup
    return value


def defuse(text: str, kind: str = "text") -> str:
    """Rendered output in which no line starts a GitHub workflow command, however registry text was wrapped.

    A name can reach the start of a line through wrapping, a table fold or a multi-line definition; the first
    `:` of such a line, and the `#` of a `##[`, are written escaped in the output's own way (`kind`: text,
    markdown, html or json), so they still read as `:` and `#` to a person.
    """
    colon, hash_ = _ESCAPES[kind]
    if "::" in text:
        text = _COMMAND_LINE.sub(lambda m: m.group(1) + colon, text)
    if "##[" in text:
        text = _OLD_COMMAND.sub(lambda m: hash_, text)
    return text


_JSON_UNSAFE = re.compile(r"[^\x20-\x7e\n]")


def _json_escape(match: re.Match) -> str:
    c = match.group(0)
    if c.isprintable():
        return c
    code = ord(c)
    if code > 0xFFFF:  # a non-printable astral character (unassigned or private use): a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


class NotStrictJSON(ClinregError, ValueError):
    """A value that JSON cannot hold (NaN, Infinity) reached a JSON writer."""

    default_code = "CLR988"


def to_json(data: Any, indent: int | None = 2, **options: Any) -> str:
    """Strict JSON that is safe to print: NaN and Infinity refused, every non-printable character escaped.

    Readable text stays as it is (`ensure_ascii=False`); only characters a terminal or a log would act on
    (C1 controls, bidi overrides, line separators) are written as `\\uXXXX`, which any JSON reader decodes back.
    """
    try:
        text = json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False, **options)
    except ValueError as exc:
        raise NotStrictJSON(f"cannot write a non-finite number as JSON ({exc})") from None
    if not text.isascii() or "##[" in text:
        text = _JSON_UNSAFE.sub(_json_escape, text)
        text = defuse(text, "json")
    return text
