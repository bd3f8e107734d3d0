"""The leak check's prefilters (issue 41) change no answer: against the check before them, on any texts; a batch's
check, which prepares each distinct reference once, answers each row as leaked_span does."""

from __future__ import annotations

import re

import pytest
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
            if (line and (leaks._bare(line) == want
                          or any(leaks._bare(s) == want for s in re.split(r"(?<=[.!?])\s+", line)))):
                return gold
        return None
    if len(gold) <= leaks.SPAN_CHARS:
        return gold if gold in haystack else None
    return leaked_span(reference, text)  # the long-reference search is unchanged


# Few letters, so that copies and near-copies are common; every kind of whitespace and line break, case
# pairs (including ones casefold expands, ß and ŉ) and sentence ends.
_CHARS = st.sampled_from(list("abAB .!?;:\n\r\t\x0b\x0c\x1c\x85\u2028\u3000ßSsŉΣσς") + ["ss", "CORRECT", "Correct"])
_TEXT = st.lists(_CHARS, max_size=40).map("".join)


@pytest.mark.slow
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
@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "\n", " ", "  ", "\t", ".", "Delta"]), min_size=10,
                max_size=60),
       st.integers(0, 30), st.integers(12, 50))
def test_mid_length_references_are_found_as_before(words, start, length):
    text = "".join(words)
    reference = " ".join(text.split())[start : start + length] if start % 3 else "gamma " * 8
    assert leaked_span(reference, text) == old_leaked_span(reference, text)


# References of every kind: short (a whole copy only), mid-length (found whole) and long (a common span).
_LONG_WORDS = st.lists(st.sampled_from(["alpha", "beta", "gamma", "Delta", "ss", "ß"]), min_size=8, max_size=90)
_REFERENCE = _TEXT | _LONG_WORDS.map(" ".join) | st.sampled_from(["", "CORRECT", "Yes.", "a b c d e f"])


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(st.lists(_REFERENCE, min_size=1, max_size=4), st.data())
def test_a_batch_checks_each_row_as_leaked_span_does(pool, data):
    """gold_leaks prepares each distinct reference once and checks every row holding it with that: the rows and
    spans are leaked_span's (and the check's before the prefilters), row by row, whatever repeats."""
    # References of the same length, whose checkers a batch must still keep apart: each one's letters reordered.
    pool = pool + ["".join(data.draw(st.permutations(list(r)))) for r in pool]
    n = data.draw(st.integers(1, 12))
    references, inputs = [], []
    for _ in range(n):
        reference = data.draw(st.sampled_from(pool) | st.none())
        text = data.draw(_TEXT | _LONG_WORDS.map("\n".join))
        how = data.draw(st.integers(0, 4))
        copied = reference if how < 3 else data.draw(st.sampled_from(pool))  # 3, 4: another row's reference
        if copied and how in (1, 3):
            text = f"{text}\n{copied.upper()}\n{text}"
        elif copied and how in (2, 4):
            text = f"{text}. {copied} {text}"
        references.append(reference)
        inputs.append(text)
    rows = data.draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n, unique=True))
    exempt = frozenset(data.draw(st.lists(st.sampled_from(rows), max_size=3)))
    expected = []
    for text, reference, row in zip(inputs, references, rows):
        if reference and text and row not in exempt:
            span = leaked_span(reference, text)
            assert span == old_leaked_span(reference, text)
            if span is not None:
                expected.append((row, span))
    assert list(leaks.gold_leaks(inputs, references, rows, exempt)) == expected
