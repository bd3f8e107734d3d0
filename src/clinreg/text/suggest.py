"""Did-you-mean hints at a cost that stays near-linear however many unknown values a file holds.

`difflib.get_close_matches` compares a value with every candidate, and each comparison costs time quadratic in
the lengths: 20,000 unknown task ids against the taxonomy once took over two minutes. A `Suggester` indexes its
candidates once by character trigrams, compares a value only with the few candidates that share the most
trigrams with it (and whose length allows a match at all), remembers each answer, and stops hinting after
`MAX_LOOKUPS` distinct values: a file with more unknown ids than that is not a typo.
"""

from __future__ import annotations

import difflib
import heapq
from collections import Counter
from functools import lru_cache
from typing import Iterable

MAX_LOOKUPS = 1000  # distinct values a Suggester answers; later ones get no hint
MAX_VALUE_CHARS = 200  # a longer value is not a typo of an id or a key
SHORTLIST = 8  # candidates compared with difflib per value


def _trigrams(text: str) -> set[str]:
    padded = f"  {text} "
    return {padded[i:i + 3] for i in range(len(padded) - 2)}


class Suggester:
    """The closest candidate to a value (difflib's ratio at or above `cutoff`), or None."""

    def __init__(self, candidates: Iterable[str], cutoff: float = 0.6, max_lookups: int | None = MAX_LOOKUPS) -> None:
        self.candidates = sorted({str(c) for c in candidates})
        self.cutoff = cutoff
        self.max_lookups = max_lookups
        self.lookups = 0
        self._answers: dict[str, str | None] = {}
        self._index: dict[str, list[int]] = {}
        for i, candidate in enumerate(self.candidates):
            for gram in _trigrams(candidate[:MAX_VALUE_CHARS]):
                self._index.setdefault(gram, []).append(i)

    def closest(self, value: object) -> str | None:
        text = str(value)
        if text in self._answers:
            return self._answers[text]
        if len(text) > MAX_VALUE_CHARS or not self.candidates:
            return None
        if self.max_lookups is not None:
            if self.lookups >= self.max_lookups:
                return None
            self.lookups += 1
        elif len(self._answers) > 10 * MAX_LOOKUPS:  # a long-lived process: memory stays bounded
            self._answers.clear()
        answer = self._answers[text] = self._closest(text)
        return answer

    def _closest(self, text: str) -> str | None:
        # ratio = 2M / (len(a) + len(b)) and M <= the shorter length, so lengths far apart can never reach the cutoff.
        # The bounds are widened by a hair: a length exactly on one (`ehr` and `ehrshot` at 0.6) computes as 6.999...
        slack = 1e-9
        low = len(text) * self.cutoff / (2 - self.cutoff) - slack
        high = len(text) * (2 - self.cutoff) / self.cutoff + slack
        shared: Counter[int] = Counter()
        for gram in _trigrams(text):
            shared.update(self._index.get(gram, ()))
        fits = (i for i in shared if low <= len(self.candidates[i]) <= high)
        ranked = heapq.nlargest(SHORTLIST, fits, key=lambda i: (shared[i], -i))  # ties: the first in sorted order
        if not ranked:  # nothing in common: a short value may still be close (`ab` and `ba`); try by length
            ranked = [i for i, c in enumerate(self.candidates) if low <= len(c) <= high][:SHORTLIST]
        matcher = difflib.SequenceMatcher()
        matcher.set_seq2(text)
        best, best_score = None, self.cutoff
        for i in ranked:
            candidate = self.candidates[i]
            matcher.set_seq1(candidate)
            if matcher.real_quick_ratio() >= best_score and matcher.quick_ratio() >= best_score:
                score = matcher.ratio()
                if score > best_score or (score == best_score and best is None):
                    best, best_score = candidate, score
        return best


@lru_cache(maxsize=256)
def _suggester(candidates: tuple[str, ...], cutoff: float) -> Suggester:
    return Suggester(candidates, cutoff, max_lookups=None)


def closest(value: object, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """For small, fixed candidate lists (a model's keys, an enum's values): one index and memo per list, kept for
    the process, without a lookup cap (each answer is cheap; a run's lists repeat)."""
    return _suggester(tuple(candidates), cutoff).closest(value)
