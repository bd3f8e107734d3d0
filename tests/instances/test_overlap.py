"""The overlap method: normalisation, exact and near duplicates at the threshold's edges, empty texts, and the
split fingerprint."""

from __future__ import annotations

import numpy as np
import pytest

from clinreg.instances.overlap import (
    BOILERPLATE_MIN, SHINGLE_WORDS, THRESHOLD, EvalIndex, Fingerprint, Item, jaccard, normalise, shingles, summarise,
)


def _words(n: int, prefix: str = "w") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def _item(split: str, row: int, text: str, gold: str = "") -> Item:
    return Item(split, row, None, normalise(text), normalise(gold))


def test_normalise_folds_case_punctuation_whitespace_and_unicode_forms():
    assert normalise("Ｆever,  CHILD!\n\tAged 3") == "fever child aged 3"
    assert normalise("ﬁbrosis") == normalise("FIBROSIS")  # a ligature (NFKC) and case folding
    assert normalise("Straße") == normalise("STRASSE")
    assert normalise("café") == normalise("cafe\u0301")  # composed and combining accents are one form
    assert normalise("Ελληνικά κείμενα") == "ελληνικά κείμενα"  # words of any script are kept
    assert normalise("  ...  ") == ""


def test_shingles_are_word_five_grams_and_a_short_text_is_one_shingle():
    assert len(shingles(" ".join(_words(12)))) == 12 - SHINGLE_WORDS + 1
    assert len(shingles("a b c")) == 1
    assert len(shingles("")) == 0
    assert not np.array_equal(shingles("a b c"), shingles("a b c d"))  # a prefix is not the same shingle
    assert jaccard(shingles("a b c"), shingles("a b c")) == 1.0


def _pair(shared: int, tail: int) -> tuple[str, str]:
    """Two texts sharing their first `shared` words, then `tail` differing words each: (shared - 4) common 5-grams
    of (shared + 2 * tail - 4), so Jaccard (shared - 4) / (shared + 2 * tail - 4)."""
    head = _words(shared)
    return " ".join(head + _words(tail, "x")), " ".join(head + _words(tail, "y"))


def _found(a: str, b: str) -> list:
    index = EvalIndex()
    index.add(_item("test", 0, a))
    return index.query(_item("train", 7, b))


def test_near_duplicates_are_found_at_the_threshold_and_not_below():
    at, below = _pair(44, 5), _pair(44, 6)  # 40/50 = 0.8 exactly; 40/52 = 0.769
    assert jaccard(shingles(normalise(at[0])), shingles(normalise(at[1]))) == THRESHOLD
    (match,) = _found(*at)
    assert not match.exact and match.jaccard == THRESHOLD and (match.a.ref, match.b.ref) == ("test/0", "train/7")
    assert _found(*below) == []
    # well above the threshold, and far below it
    assert len(_found(*_pair(200, 1))) == 1 and _found(*_pair(10, 20)) == []


def test_an_exact_threshold_value_counts_for_short_texts_too():
    a, b = " ".join(_words(8)), " ".join(_words(9))  # 4 shingles, and 5 of which 4 are a's
    assert jaccard(shingles(a), shingles(b)) == 0.8
    (match,) = _found(a, b)
    assert match.jaccard == THRESHOLD and not match.exact
    assert _found(" ".join(_words(4)), " ".join(_words(5))) == []  # a short text matches only the same words


def test_exact_duplicates_ignore_case_and_punctuation_and_within_pairs_each_once():
    index = EvalIndex()
    for row, text in enumerate(["What is the dose?", "what IS the dose", "An unrelated question about renal failure",
                                "WHAT is the dose!!"]):
        index.add(_item("test", row, text))
    pairs = list(index.within("test"))
    assert sorted((m.a.row, m.b.row) for m in pairs) == [(0, 1), (0, 3), (1, 3)]
    assert all(m.exact and m.jaccard == 1.0 for m in pairs)
    summary = summarise(pairs)
    assert summary["exact_pairs"] == 3 and summary["near_pairs"] == 0 and summary["rows"] == 2  # evaluation side
    assert summarise(pairs, both_sides=True)["rows"] == 3 and summarise(pairs, limit=1)["more"] == 2
    assert summary["pairs"][0] == {"a": "test/0", "b": "test/1", "exact": True, "jaccard": 1.0}


def test_variants_of_one_row_are_not_duplicates_of_each_other():
    index = EvalIndex()
    index.add(Item("test", 3, "a", "same text here"))
    index.add(Item("test", 3, "b", "same text here"))
    index.add(Item("test", 4, None, "same text here"))
    assert sorted((m.a.ref, m.b.ref) for m in index.within("test")) == [("test/3/a", "test/4"), ("test/3/b", "test/4")]


def test_empty_texts_and_empty_splits_match_nothing():
    index = EvalIndex()
    assert list(index.within("test")) == [] and index.query(_item("train", 0, "anything at all")) == []
    with pytest.raises(RuntimeError):  # finished by the first question
        index.add(_item("test", 0, "late"))
    index = EvalIndex()
    index.add(_item("test", 0, "!!!"))
    index.add(_item("test", 1, "???"))
    assert index.items == [] and len(index.empty) == 2
    assert list(index.within("test")) == [] and index.query(_item("train", 0, "...")) == []
    assert summarise([]) == {"exact_pairs": 0, "near_pairs": 0, "rows": 0, "pairs": [], "more": 0}


def test_fingerprint_is_order_free_form_free_and_changes_with_a_word_or_a_gold():
    def fp(items):
        f = Fingerprint()
        for i in items:
            f.add(i)
        return f.value()

    base = [_item("test", 0, "Fever in a child", "A"), _item("test", 1, "Cough and wheeze", "B")]
    assert fp(base).startswith("sha256:") and len(fp(base)) == 7 + 64
    assert fp(base) == fp(list(reversed(base)))
    assert fp(base) == fp([_item("test", 0, "FEVER, in a child!", "a"), _item("test", 1, "cough  and wheeze", "b")])
    assert fp(base) != fp([_item("test", 0, "Fever in an adult", "A"), base[1]])
    assert fp(base) != fp([_item("test", 0, "Fever in a child", "C"), base[1]])
    assert fp([]) == fp([]) and fp([]) != fp(base)


def test_boilerplate_shared_by_most_instances_is_left_out_of_near_comparisons():
    # EHRSQL-like: every input is a long schema then a short question; without the step, all look alike.
    schema = " ".join(f"table{i} column{i} integer" for i in range(40))
    questions = [f"how many patients had {w} in the ward during the last calendar year" for w in
                 ("sepsis", "asthma", "gout", "stroke", "anaemia", "rickets", "scurvy", "malaria", "measles", "mumps",
                  "psoriasis", "eczema")]
    index = EvalIndex()
    for row, q in enumerate(questions):
        index.add(_item("test", row, f"{schema} {q}"))
    assert list(index.within("test")) == []
    assert len(index.boilerplate) > 0
    (match,) = index.query(_item("train", 3, f"{schema} {questions[5]}"))  # the same question: exact
    assert match.exact and match.a.row == 5
    near = index.query(_item("train", 4, f"{schema} {questions[3]} overall"))
    # Its own 5-grams: the five around "stroke" (the rest is every question's) and one more: 5 of 6 shared, 0.83
    assert [(m.a.row, m.exact, round(m.jaccard, 2)) for m in near] == [(3, False, 0.83)]
    # a split too small to tell boilerplate keeps every 5-gram
    small = EvalIndex()
    for row, q in enumerate(questions[:BOILERPLATE_MIN - 1]):
        small.add(_item("test", row, f"{schema} {q}"))
    assert len(list(small.within("test"))) == (BOILERPLATE_MIN - 1) * (BOILERPLATE_MIN - 2) // 2
