"""The leak check's prefilters (issue 41) change no answer: against the check before them, on any texts."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from clinreg.instances import leaks
from clinreg.instances.leaks import leaked_span


def old_leaked_span(reference: str, text: str):
    """`leaked_span` before the prefilters: the whole text folded first, for every reference."""
    fold = leaks._fold
    gold, haystack = fold(reference), fold(text)
    if not gold:
        return None
    if len(gold) < leaks.MIN_REFERENCE_CHARS:
        want = leaks._bare(gold)
        if want == leaks._bare(fold(text)):
            return gold
        if len(gold.split()) < leaks.MIN_WHOLE_LINE_WORDS:
            return None
        for line in text.splitlines():
            line = fold(line)
            if line and (leaks._bare(line) == want or any(leaks._bare(s) == want for s in re.split(r"(?<=[.!?])\s+", line))):
                return gold
        return None
    if len(gold) <= leaks.SPAN_CHARS:
        return gold if gold in haystack else None
    return leaked_span(reference, text)  # the long-reference search is unchanged


# Few letters, so that copies and near-copies are common; every kind of whitespace and line break, case
# pairs (including ones casefold expands, ß and ŉ) and sentence ends.
_CHARS = st.sampled_from(list("abAB .!?;:\n\r\t\x0b\x0c\x1c\x85\u2028\u3000ßSsŉΣσς") + ["ss", "CORRECT", "Correct"])
_TEXT = st.lists(_CHARS, max_size=40).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_TEXT, _TEXT, st.integers(0, 3))
def test_the_prefilters_change_no_answer(reference, text, copies):
    # Often the reference really is in the text (whole, as a line, as a sentence, in another case).
    if copies == 1:
        text = f"{text}\n{reference.upper()}\n{text}"
    elif copies == 2:
        text = f"{text}. {reference} {text}"
    elif copies == 3 and text:  # the whole input, in other whitespace, ending in a word of punctuation
        text = f"\t{reference.lower()}  \n{text[0]}"
    assert leaked_span(reference, text) == old_leaked_span(reference, text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "\n", " ", "  ", "\t", ".", "Delta"]), min_size=10, max_size=60),
       st.integers(0, 30), st.integers(12, 50))
def test_mid_length_references_are_found_as_before(words, start, length):
    text = "".join(words)
    reference = " ".join(text.split())[start : start + length] if start % 3 else "gamma " * 8
    assert leaked_span(reference, text) == old_leaked_span(reference, text)
