"""Provenance in plain words at first sight (issue 40): what a clinician reads first carries no commit hashes, pull
request numbers, file paths, content hashes or notes on how a maintainer checked a fact. The full text is kept, word
for word, for a "Source details" disclosure beside it.

`first_sight` takes those words out of a sentence: a parenthesis that holds one goes whole, "at commit 63754d05"
and "PR #3403" go, a path is cut to its file name, and "not resolved here (no network)" says "not yet checked against
the source". It never adds a claim; it only leaves out what a maintainer needs and a clinician does not."""

from __future__ import annotations

import re

# A commit or content hash: 7 or more hex digits, at least one a digit and one a letter (so neither a year like
# 2025 nor an English word such as "defaced" is taken for one).
HEX = r"(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}"
_PATH = (r"`?(?<!:/)(?<![\w.])(?:[\w.~-]+/)+"
         r"([\w.~-]+\.(?:ya?ml|py|jsonl?|csv|tsv|md|txt|parquet|js|html|png|svg|pdf|zip|gz|xlsx))\b`?")
MAINTAINER_WORDS = re.compile(
    rf"\b(?:sha256:)?{HEX}\b|\bPR\s*#\s*\d+|#\d{{3,}}|\bfacts file\b|\bno network\b|{_PATH}|\(S\d{{1,3}}\)",
    re.IGNORECASE)
_PARENS = re.compile(r"\s*[(\[][^()\[\]]*[)\]]")  # innermost first
_HIDE, _SHOW = str.maketrans("()[]", "\x01\x02\x03\x04"), str.maketrans("\x01\x02\x03\x04", "()[]")
_STEPS = (
    # "has not been resolved here" is a maintainer's note on an offline check: say what it means to a reader
    (re.compile(r"\b(?:has|have|had) not been resolved here\b", re.I), "has not yet been checked against the source"),
    (re.compile(r"\bnot resolved here\b", re.I), "not yet checked against the source"),
    (re.compile(rf"\s*,?\s*\b(?:(?:at|in|from|on)\s+)?(?:the\s+)?(?:(?:fork|upstream|its|a)\s+)?"
                rf"(?:commit|revision|rev\.|version)\s+`?(?:sha256:)?{HEX}`?", re.I), ""),
    (re.compile(r"\s*,?\s*\b(?:(?:HELM|GitHub|its)\s+)?PR\s*#\s*\d+", re.I), ""),
    (re.compile(r"\s*#\d{3,}\b"), ""),
    (re.compile(r"\s*[;,]?\s*\b(?:(?:the|its|a)\s+)?facts file(?:\s+S\d+)?", re.I), ""),
    (re.compile(r"\s*[;,]?\s*\b(?:(?:as there is|there is|with|because of)\s+)?no network\b", re.I), ""),
    (re.compile(rf"-{HEX}\b"), ""),
    (re.compile(rf"\s*`?\b(?:sha256:)?{HEX}\b`?"), ""),
)


def has_maintainer_words(text: str | None) -> bool:
    return bool(text) and MAINTAINER_WORDS.search(text) is not None


def first_sight(text: str | None) -> str:
    """`text` without the words only a maintainer needs; unchanged when it holds none."""
    if not text or not has_maintainer_words(text):
        return text or ""
    out = _drop_parentheses(text)
    out = re.sub(_PATH, lambda m: m.group(1), out)
    for pattern, words in _STEPS:
        out = pattern.sub(words, out)
    out = re.sub(r"[ \t]+", " ", out)
    out = re.sub(r"\s+([.,;:)\]])", r"\1", out)
    out = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", out)
    out = re.sub(r"[,;:]+\s*([.)\]])", r"\1", out)
    out = re.sub(r"\(\s*\)|\[\s*\]", "", out)
    return out.strip(" ,;:") or ""


def _drop_parentheses(text: str) -> str:
    """Each parenthesis or bracket that holds a maintainer's word, whole; the others are kept, nested or not."""
    while (found := _PARENS.search(text)) is not None:
        kept = "" if has_maintainer_words(found.group(0)) else found.group(0).translate(_HIDE)
        text = text[:found.start()] + kept + text[found.end():]
    return text.translate(_SHOW)


def split(text: str | None) -> tuple[str, str | None]:
    """(the first-sight words, the full text when it differs, else None)."""
    plain = first_sight(text)
    return plain, (text if text and plain != text else None)


__all__ = ["HEX", "MAINTAINER_WORDS", "first_sight", "has_maintainer_words", "split"]
