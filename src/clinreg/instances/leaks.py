"""The gold-leak rule: an open-ended instance whose reference text (or a long span of it) is in its input."""

from __future__ import annotations

import re
from typing import Callable, Iterator

# A reference shorter than this is too generic to call a leak wherever it is found ("CORRECT", a code, a
# number): it leaks only as a whole copy, the whole input or a whole line or sentence of it (`_whole_copy_of`).
MIN_REFERENCE_CHARS = 40
# A short reference with fewer words than this leaks only as the whole input: "yes" or "Metformin." may be a
# line of a note without the note giving the answer away.
MIN_WHOLE_LINE_WORDS = 3
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# Longer references leak when any window of this many characters (whitespace folded) is in the input.
SPAN_CHARS = 200


def _fold(text: str) -> str:
    # str.split() splits at exactly the characters `\s` matches (str.isspace()), several times faster than re.sub.
    return " ".join(text.split())


def leaked_span(reference: str, text: str) -> str | None:
    """The part of `reference` found in `text`, or None; whitespace differences are ignored."""
    return _checker(reference)(text)


def _never(text: str) -> None:
    return None


def _checker(reference: str) -> Callable[[str], str | None]:
    """`leaked_span` for one reference, with what depends on the reference alone worked out once: a batch checks
    many inputs against the same few references ("CORRECT")."""
    gold = _fold(reference)
    if not gold:
        return _never
    if len(gold) < MIN_REFERENCE_CHARS:
        whole = _whole_copy_of(gold)
        return lambda text: gold if whole(text) else None
    if len(gold) <= SPAN_CHARS:
        # The folded text holds the folded reference only if the text holds each of its words as it is (a word
        # has no whitespace, so it lies within one word of the text): the longest first, then the others.
        words = sorted(set(gold.split(" ")), key=len, reverse=True)
        return lambda text: gold if all(word in text for word in words) and gold in _fold(text) else None
    return lambda text: _long_span(gold, text)


def _long_span(gold: str, text: str) -> str | None:
    haystack = _fold(text)
    # Any common span of SPAN_CHARS holds one of these half-length pieces whole; each place a piece occurs is
    # then widened both ways to see whether the text around it matches the reference for SPAN_CHARS in all.
    half = SPAN_CHARS // 2
    for start in range(0, len(gold) - half + 1, half):
        piece = gold[start : start + half]
        at = haystack.find(piece)
        while at != -1:
            need = SPAN_CHARS - half
            left = _common_prefix(gold[max(0, start - need) : start][::-1], haystack[max(0, at - need) : at][::-1])
            end, stop = start + half, at + half
            right = _common_prefix(gold[end : end + need], haystack[stop : stop + need])
            if left + half + right >= SPAN_CHARS:
                return gold[start - left : end + right]
            at = haystack.find(piece, at + 1)
    return None


def _bare(text: str) -> str:
    return text.rstrip(".!?;:").strip().casefold()


def _whole_copy_of(gold: str) -> Callable[[str], bool]:
    """Whether a short (folded) reference is copied whole: the entire input, or (with a few words) a whole line or
    sentence of it. Its own words are split once."""
    want = _bare(gold)
    few = len(gold.split()) < MIN_WHOLE_LINE_WORDS
    words = want.split()
    at_most = len(words) + 1
    longest = max(words, key=len) if words else ""  # "" is in every text: no filter for a reference of no words

    def copied(text: str) -> bool:
        if few:
            # Only the whole input can be the copy. Folding keeps the text's words, and `_bare` takes at most the
            # last one away: a text of two words more than `want` cannot be it (one bounded split, no folding).
            if len(text.split(None, at_most)) > at_most:
                return False
        # Case folding maps each character on its own and keeps whitespace whitespace: a copy's casefolded text
        # holds each word of `want` as it is. Most texts hold no copy and fail this in one C-level search.
        if longest not in text.casefold():
            return False
        if want == _bare(_fold(text)):
            return True
        if few:
            return False
        for line in text.splitlines():
            if longest not in line.casefold():
                continue  # the same test, line by line: only a line holding the word can be the copy
            line = _fold(line)
            if line and (_bare(line) == want or any(_bare(s) == want for s in _SENTENCE_END.split(line))):
                return True
        return False

    return copied


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    low, high = 0, n  # a[:low] == b[:low] and a[:high] != b[:high]
    while high - low > 1:
        mid = (low + high) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid
    return low


def gold_leaks(inputs: list[str], references: list[str | None], rows: list[int],
               exempt: frozenset[int] = frozenset()) -> Iterator[tuple[int, str]]:
    """(source row, leaked span) for every instance whose reference is in its input, but for `exempt` rows."""
    checkers: dict[str, Callable[[str], str | None]] = {}
    for text, reference, row in zip(inputs, references, rows):
        if reference and text and row not in exempt:
            check = checkers.get(reference)
            if check is None:
                check = checkers[reference] = _checker(reference)
            span = check(text)
            if span is not None:
                yield row, span


def describe(where: str, split: str, found: list[tuple[int, str]]) -> str:
    rows = ", ".join(str(r) for r, _ in found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
    sample = found[0][1]
    sample = sample if len(sample) <= 60 else sample[:57] + "..."
    return (
        f"{where}: split {split!r}, row(s) {rows}: the reference answer is in the input (e.g. {sample!r}); "
        f"remove it from the input (a `remove` read step); list the row(s) with the reason in `gold_in_input_rows` "
        f"where a few references are legitimately extractive; or set `gold_in_input` if every row is so by design"
    )


def exempt_rows(mapping, split: str) -> frozenset[int]:
    """The rows of `split` the mapping's `gold_in_input_rows` exempts from the leak check."""
    return frozenset(r for entry in mapping.gold_in_input_rows if entry.split == split for r in entry.rows)


def batch_leaks(batch, exempt: frozenset[int] = frozenset()) -> list[tuple[int, str]]:
    """(source row, leaked span) for each instance of a built batch whose gold text is in its prompt."""
    return list(gold_leaks(batch.prompt, [gold["value"] for gold in batch.gold], batch.source_index, exempt))
