"""Bytes to text before any YAML is read: UTF-8 only, and no character that would make reported lines wrong."""

from __future__ import annotations

import re

from clinreg.core.yamlsrc.doc import Problem


# Characters refused before parsing: C0/C1 controls and non-characters (YAML forbids them), and the line
# breaks that YAML 1.1 counts but GitHub and git do not (NEL, LS, PS, a CR without LF). Those would make
# reported line numbers wrong, and would let a pull request hide a key on what a reviewer sees as one line.
# Also a byte-order mark anywhere but the very start: libyaml reads one differently from str and from bytes.
_REFUSED_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|\r(?!\n)")
_CANNOT_START_REFUSED = bytes(b for b in range(256) if b in (0x09, 0x0A) or 0x20 <= b <= 0x7E
                              or (b >= 0x80 and b not in (0xC2, 0xE2, 0xEF)))


def byte_location(raw: bytes, offset: int) -> tuple[int, int]:
    """Line and column (in characters, as editors count them) of a byte offset into possibly broken UTF-8."""
    start = raw.rfind(b"\n", 0, offset) + 1
    return raw.count(b"\n", 0, offset) + 1, len(raw[start:offset].decode("utf-8", "replace")) + 1


def _text_location(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


_UTF16_32_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def decode_bytes(raw: bytes) -> tuple[str | None, Problem | None]:
    if raw.startswith(_UTF16_32_BOMS):
        return None, Problem("CLR006", 1, 1, "the file is UTF-16 or UTF-32 text; registry files are UTF-8",
                             "save the file as UTF-8")
    if raw.startswith(b"\xef\xbb\xbf"):  # A UTF-8 byte-order mark is accepted and ignored (documented in SECURITY.md).
        raw = raw[3:]
    if b"\x00" in raw:
        line, col = byte_location(raw, raw.index(b"\x00"))
        return None, Problem("CLR006", line, col,
                             "the file holds binary data (a NUL byte); registry files are UTF-8 text")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = byte_location(raw, exc.start)
        return None, Problem(
            "CLR006", line, col, f"the file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})", "save the file as UTF-8"
        )
    # Most files hold no byte that could start a refused character: deleting every byte that cannot
    # (printable ASCII, tab, LF, and UTF-8 bytes other than the lead bytes of U+0080-U+009F, U+2028/9 and
    # U+FEFF/FFFE/FFFF) leaves nothing, at C speed. Anything left, including any CR, goes to the regex.
    bad = _REFUSED_CHAR.search(text) if raw.translate(None, _CANNOT_START_REFUSED) else None
    if bad:
        line, col = _text_location(text, bad.start())
        return None, _refused_char_problem(bad.group(), line, col)
    return text, None


def _refused_char_problem(char: str, line: int, col: int) -> Problem:
    if char == "\r":
        return Problem("CLR006", line, col,
                       "a carriage return (CR) without a line feed; YAML reads it as a line break, git and GitHub do "
                       "not", "save the file with LF (or CRLF) line endings")
    code = f"U+{ord(char):04X}"
    if char == "\ufeff":
        return Problem("CLR006", line, col, "a byte-order mark (U+FEFF) after the start of the file",
                       "remove it; only one, as the very first character, is allowed")
    if char in "\x85\u2028\u2029":
        return Problem("CLR006", line, col,
                       f"the line separator {code}, which YAML reads as a line break but git and GitHub do not",
                       "replace it with a newline or a space")
    what = "non-character" if char in "\ufffe\uffff" else "control character"
    return Problem("CLR006", line, col, f"the {what} {code}; registry files are plain text",
                   'remove it, or write it as an escape inside a double-quoted string, e.g. "\\t"')
