"""The gold-leak rule: an open-ended instance whose reference text (or a long span of it) is in its input."""

from __future__ import annotations

import re
from typing import Iterator

# A reference shorter than this is too generic to call a leak when found ("CORRECT", a code, a number).
MIN_REFERENCE_CHARS = 40
# Longer references leak when any window of this many characters (whitespace folded) is in the input.
SPAN_CHARS = 200
_SPACE = re.compile(r"\s+")


def _fold(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def leaked_span(reference: str, text: str) -> str | None:
    """The part of `reference` found in `text`, or None; whitespace differences are ignored."""
    gold, haystack = _fold(reference), _fold(text)
    if len(gold) < MIN_REFERENCE_CHARS:
        return None
    if len(gold) <= SPAN_CHARS:
        return gold if gold in haystack else None
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


def gold_leaks(inputs: list[str], references: list[str | None], rows: list[int]) -> Iterator[tuple[int, str]]:
    """(source row, leaked span) for every instance whose reference is in its input."""
    for text, reference, row in zip(inputs, references, rows):
        if reference and text:
            span = leaked_span(reference, text)
            if span is not None:
                yield row, span


def describe(where: str, split: str, found: list[tuple[int, str]]) -> str:
    rows = ", ".join(str(r) for r, _ in found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
    sample = found[0][1]
    sample = sample if len(sample) <= 60 else sample[:57] + "..."
    return (
        f"{where}: split {split!r}, row(s) {rows}: the reference answer is in the input (e.g. {sample!r}); "
        f"remove it from the input (a `remove` read step), or set `gold_in_input` with the reason if that is by design"
    )


def batch_leaks(batch) -> list[tuple[int, str]]:
    """(source row, leaked span) for each instance of a built batch whose gold text is in its prompt."""
    return list(gold_leaks(batch.prompt, [gold["value"] for gold in batch.gold], batch.source_index))
