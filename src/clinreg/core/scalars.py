"""One pass over every file's scalar values for the rules that look at all of them (CLR702, CLR704, CLR106)."""

from __future__ import annotations

import re

from clinreg.core.diagnostics import Diagnostic, make

_URL_FIELDS = {"url"}
# Not `column`: a column is named by the data, and a name such as `A://` is a column, not a misplaced URL (the
# scaffold's property test wrote one from a card's features and CLR704 refused its own skeleton).
_NO_URL_FIELDS = {"repo", "config", "revision", "commit", "id"}
_REMOTE_CODE_KEYS = {"trust_remote_code", "trust-remote-code"}
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://")
# A host without user@, then no whitespace, no backslash (some clients read it as `/`) and none of the characters
# RFC 3986 never allows raw (`<>"{}|^` and backquote): they are what breaks out of an href in a report.
HTTPS_URL = re.compile(r"https://[^\s/?#@\\<>\"{}|^`]+(?:[/?#][^\s\\<>\"{}|^`]*)?")


CODES = ("CLR702", "CLR704", "CLR106")


def scan(ctx) -> dict[str, list[Diagnostic]]:
    """Diagnostics per code, from one walk over every file's scalars (`doc.scalar_items`).

    CLR702 looks at every file, even one that failed the schema (the key is dangerous either way); CLR704
    and CLR106 only at files that loaded. A file the validate path loaded was scanned then (`sf.scalar_findings`,
    see store._load), and its scalars let go.
    """
    out: dict[str, list[Diagnostic]] = {code: [] for code in CODES}
    for sf in ctx.reg.files:
        found = sf.scalar_findings if sf.scalar_findings is not None else scan_file(sf)
        for code, diagnostics in found.items():
            out[code].extend(diagnostics)
    return out


def scan_file(sf) -> dict[str, list[Diagnostic]]:
    """One file's CLR702, CLR704 and CLR106 diagnostics, by code (codes without any are left out).

    Each scalar is tested with cheap checks first, so most cost one type test and a dictionary look-up.
    """
    out: dict[str, list[Diagnostic]] = {}
    loaded = sf.model is not None
    items = iter(sf.doc.scalar_items)
    for path, value in zip(items, items):
        key = path[-1]
        if value is not False and value is not None:
            # Anything but false or null counts: a lenient loader would read "true", "yes" or 1 as enabling it.
            if type(key) is str and len(key) == 17 and key.lower() in _REMOTE_CODE_KEYS:
                _add(out, sf, "CLR702", path, "`trust_remote_code` is set; clinreg never runs dataset loading scripts",
                     "use a revision of the data that is plain files (parquet, JSON, CSV)")
        if not loaded or type(value) is not str:
            continue
        if key in _URL_FIELDS and type(key) is str:
            lowered = value.strip().lower()
            if not lowered.startswith("https://"):
                _add(out, sf, "CLR704", path, f"URL {value!r} is not https")
            elif not HTTPS_URL.fullmatch(value) or not value.isprintable():
                _add(out, sf, "CLR704", path, f"URL {value!r} is not a plain https URL",
                     "percent-encode spaces and <>\"{}|^`; no backslashes and no user@ part")
        elif key in _NO_URL_FIELDS and type(key) is str and "://" in value and _SCHEME.match(value.strip().lower()):
            _add(out, sf, "CLR704", path, f"`{key}` takes no URL", "put URLs in a `url` field")
        if "TODO" in value:
            field = ".".join(str(p) for p in path)
            _add(out, sf, "CLR106", path, f"`{field}` still holds a TODO marker",
                 "fill in the value, or remove the field if it is optional")
    return out


def _add(out: dict, sf, code: str, path: tuple, message: str, hint: str | None = None) -> None:
    line, col = sf.where(*path)
    out.setdefault(code, []).append(make(code, sf.rel, line, col, message, hint, key_path=path))
