"""Split fingerprints, duplicates inside a split and overlaps between splits, on normalised instance texts.

What is compared is an instance's input: the question or note a model reads, without its options (a fixed set of
options such as yes / no / maybe would make short questions look alike) and without the answer instruction
clinreg adds (the same for every instance). Texts are normalised first: Unicode NFKC, case folded, and cut into
words (runs of letters, digits and underscores); punctuation and whitespace only separate words. Two instances
are

- *exact duplicates* when their normalised texts are equal (compared by a 16-byte BLAKE2b digest);
- *near duplicates* when the Jaccard similarity of their sets of word 5-grams is at least 0.8 (a text of fewer
  than five words is one shingle of all its words, so it only ever matches a text of the same words), leaving out
  the boilerplate 5-grams: those found in at least half of the evaluation instances (and in at least ten), which
  are the template's or a column every row shares (EHRSQL's database schema), not the instance's own; a text of
  boilerplate alone is compared exactly only. Candidate pairs are found with MinHash (128 hash functions) and
  locality-sensitive hashing (32 bands of 4), and every candidate's Jaccard similarity is then computed exactly
  from the two shingle sets: the threshold is exact; a pair at 0.8 is missed as a candidate with a probability
  below 1e-7.

Memory is bounded by the evaluation side: its shingle sets (8 bytes a shingle) and signatures (1 KiB an
instance) are held; the other side (a training split) is streamed, one instance at a time, and pairs are counted
as they are found (`Summary` keeps the rows involved and the first 20 pairs). A text that normalises to no words
is counted as empty and compared with nothing.

The split fingerprint is `sha256:` over the sorted digests of each instance's normalised input, options and gold
answer: it does not change with row order, case, punctuation, whitespace or Unicode compatibility forms, and
changes with any word of any instance. (The lock's `instances_sha256` is the other hash: the exact bytes of a
mapping's instances, in order.)
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Iterator

import numpy as np

SHINGLE_WORDS = 5
THRESHOLD = 0.8
PERMUTATIONS = 128
BANDS = 32
ROWS_PER_BAND = PERMUTATIONS // BANDS
# A 5-gram in at least half of the evaluation instances (and in at least 10 of them) is the template's or a shared
# column's (EHRSQL's database schema, an instruction), not the instance's own: it is left out of near comparisons.
BOILERPLATE_SHARE = 0.5
BOILERPLATE_MIN = 10
OVERLAP_METHOD = (f"exact: equal normalised text (NFKC, case folded, words only); near: Jaccard >= {THRESHOLD} "
                  f"over word {SHINGLE_WORDS}-grams, candidates by MinHash ({PERMUTATIONS} functions, {BANDS} bands of "
                  f"{ROWS_PER_BAND}), every candidate's Jaccard computed exactly, without boilerplate 5-grams "
                  f"(those in at least {BOILERPLATE_SHARE:.0%} and {BOILERPLATE_MIN} of the evaluation instances)")

_WORD = re.compile(r"\w+")
_PRIME = np.uint64(4294967311)  # the first prime past 2**32: a*h + b stays below 2**64 for a, b, h < 2**32
_LOW32 = np.uint64(0xFFFFFFFF)
_rng = np.random.default_rng(56)  # fixed: the same functions in every run, so results do not vary by run
_A = _rng.integers(1, 2**32, size=PERMUTATIONS, dtype=np.uint64)
_B = _rng.integers(0, 2**32, size=PERMUTATIONS, dtype=np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)
_CHUNK = 4096  # shingles per MinHash step: a (128 x 4096) block of 8-byte values at most


def normalise(text: str) -> str:
    """NFKC, case folded, words joined by single spaces: `"Ｆever,  CHILD!"` -> `"fever child"`."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def digest(normalised: str) -> bytes:
    return hashlib.blake2b(normalised.encode("utf-8"), digest_size=16).digest()


@lru_cache(maxsize=1 << 16)
def _word_id(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")


def shingles(normalised: str) -> np.ndarray:
    """The sorted, distinct 64-bit hashes of the text's word 5-grams (one of all its words when it has fewer)."""
    words = normalised.split()
    if not words:
        return np.zeros(0, dtype=np.uint64)
    ids = np.fromiter((_word_id(w) for w in words), dtype=np.uint64, count=len(words))
    k = min(SHINGLE_WORDS, len(ids))
    out = np.full(len(ids) - k + 1, np.uint64(k), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):  # a polynomial over the k word ids, wrapping at 2**64
            out = out * _MIX + ids[j : len(ids) - k + 1 + j]
    return np.unique(out)


def signature(shingle_set: np.ndarray) -> np.ndarray:
    """The MinHash signature: per hash function, the least (a*h + b) mod p over the shingles' low 32 bits."""
    sig = np.full(PERMUTATIONS, _PRIME, dtype=np.uint64)
    low = shingle_set & _LOW32
    for start in range(0, len(low), _CHUNK):
        block = (_A[:, None] * low[None, start : start + _CHUNK] + _B[:, None]) % _PRIME
        np.minimum(sig, block.min(axis=1), out=sig)
    return sig


def _bands(sig: np.ndarray) -> Iterator[tuple[int, bytes]]:
    for band in range(BANDS):
        yield band, sig[band * ROWS_PER_BAND : (band + 1) * ROWS_PER_BAND].tobytes()


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """|a & b| / |a | b| of two sorted distinct shingle arrays (0 for two empty ones)."""
    if not len(a) and not len(b):
        return 0.0
    common = len(np.intersect1d(a, b, assume_unique=True))
    return common / (len(a) + len(b) - common)


@dataclass(frozen=True)
class Item:
    """One instance as compared: its split, source row, variant and normalised input; `rest` is the rest of it
    that the fingerprint covers (its options and gold answer)."""

    split: str
    row: int
    variant: str | None
    text: str
    rest: str = ""

    @property
    def ref(self) -> str:
        return f"{self.split}/{self.row}" + (f"/{self.variant}" if self.variant else "")


@dataclass
class Fingerprint:
    """A split's fingerprint, accumulated instance by instance (only 16 bytes each are kept)."""

    digests: list[bytes] = field(default_factory=list)

    def add(self, item: Item) -> None:
        self.digests.append(digest(item.text + "\x1f" + item.rest))

    def value(self) -> str:
        h = hashlib.sha256()
        for d in sorted(self.digests):
            h.update(d)
        return "sha256:" + h.hexdigest()


@dataclass
class Match:
    """`a` (an evaluation instance) and `b` are the same text (`jaccard` 1.0, exact) or near it."""

    a: Item
    b: Item
    jaccard: float
    exact: bool

    def to_dict(self) -> dict:
        return {"a": self.a.ref, "b": self.b.ref, "exact": self.exact, "jaccard": round(self.jaccard, 4)}


class EvalIndex:
    """The evaluation side, held in memory: digests, shingle sets, and MinHash bands for candidates.

    Add every evaluation instance, then `finish()` once (it drops the boilerplate 5-grams and builds the bands);
    `query` and `within` finish it if need be. Adding after that is refused.
    """

    def __init__(self, threshold: float = THRESHOLD) -> None:
        self.threshold = threshold
        self.items: list[Item] = []
        self.empty: list[Item] = []
        self.boilerplate = np.zeros(0, dtype=np.uint64)
        self._digests: list[bytes] = []
        self._shingles: list[np.ndarray] = []
        self._by_digest: dict[bytes, list[int]] = {}
        self._buckets: dict[tuple[int, bytes], list[int]] | None = None
        self._signatures: list[np.ndarray | None] = []

    def add(self, item: Item) -> None:
        if self._buckets is not None:
            raise RuntimeError("EvalIndex.add after finish()")
        if not item.text:
            self.empty.append(item)
            return
        at = len(self.items)
        self.items.append(item)
        d = digest(item.text)
        self._digests.append(d)
        self._by_digest.setdefault(d, []).append(at)
        self._shingles.append(shingles(item.text))

    def finish(self) -> None:
        """Find the boilerplate 5-grams (in at least BOILERPLATE_SHARE of the evaluation instances, and at least
        BOILERPLATE_MIN of them), take them out of every shingle set, and band the signatures."""
        if self._buckets is not None:
            return
        if len(self.items) >= BOILERPLATE_MIN and self._shingles:
            values, counts = np.unique(np.concatenate(self._shingles), return_counts=True)
            self.boilerplate = values[counts >= max(BOILERPLATE_MIN, BOILERPLATE_SHARE * len(self.items))]
            if len(self.boilerplate):
                self._shingles = [self._strip(s) for s in self._shingles]
        self._buckets = {}
        self._signatures = [signature(s) if len(s) else None for s in self._shingles]
        for at, sig in enumerate(self._signatures):
            if sig is not None:  # a text of boilerplate alone is compared exactly only
                for key in _bands(sig):
                    self._buckets.setdefault(key, []).append(at)

    def _strip(self, s: np.ndarray) -> np.ndarray:
        return np.setdiff1d(s, self.boilerplate, assume_unique=True) if len(self.boilerplate) else s

    def _matches(self, d: bytes, s: np.ndarray, sig: np.ndarray | None = None) -> Iterator[tuple[int, float, bool]]:
        self.finish()
        exact = self._by_digest.get(d, [])
        for at in exact:
            yield at, 1.0, True
        if not len(s):
            return
        seen = set(exact)
        for key in _bands(signature(s) if sig is None else sig):
            for at in self._buckets.get(key, ()):
                if at in seen:
                    continue
                seen.add(at)
                score = jaccard(self._shingles[at], s)
                if score >= self.threshold:
                    yield at, score, False

    def query(self, item: Item) -> list[Match]:
        """The evaluation instances `item` (of another split) duplicates or nearly duplicates."""
        if not item.text:
            return []
        self.finish()
        s = self._strip(shingles(item.text))
        return [Match(self.items[at], item, score, exact) for at, score, exact in self._matches(digest(item.text), s)]

    def within(self, split: str) -> Iterator[Match]:
        """Pairs of instances of `split` that duplicate each other, each pair once; two instances of the same
        source row (variants) are not a pair."""
        self.finish()
        for i, item in enumerate(self.items):
            if item.split != split:
                continue
            for at, score, exact in self._matches(self._digests[i], self._shingles[i], self._signatures[i]):
                other = self.items[at]
                if at > i and other.split == split and other.row != item.row:
                    yield Match(item, other, score, exact)


class Summary:
    """Counts of exact and near pairs, the evaluation rows they involve and the first `limit` pairs, added one
    match at a time (memory: the rows involved and `limit` pairs, however many pairs there are). `both_sides`
    counts the rows of both instances of a pair (duplicates inside one split), else the evaluation side's only."""

    def __init__(self, limit: int = 20, both_sides: bool = False) -> None:
        self.limit, self.both_sides = limit, both_sides
        self.exact = self.near = 0
        self.rows: set[tuple[str, int]] = set()
        self.pairs: list[dict] = []

    def add(self, match: Match) -> None:
        if match.exact:
            self.exact += 1
        else:
            self.near += 1
        self.rows.add((match.a.split, match.a.row))
        if self.both_sides:
            self.rows.add((match.b.split, match.b.row))
        if len(self.pairs) < self.limit:
            self.pairs.append(match.to_dict())

    def to_dict(self) -> dict:
        return {"exact_pairs": self.exact, "near_pairs": self.near, "rows": len(self.rows), "pairs": self.pairs,
                "more": self.exact + self.near - len(self.pairs)}


def summarise(matches: Iterable[Match], limit: int = 20, both_sides: bool = False) -> dict:
    """Counts and the first `limit` pairs: exact and near pairs, and how many distinct rows they involve."""
    summary = Summary(limit, both_sides)
    for match in matches:
        summary.add(match)
    return summary.to_dict()
