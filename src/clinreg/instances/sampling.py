"""Seeded `--limit` samples: each row gets a priority from (seed, split, index); the lowest priorities win.

The priority depends only on the row's position, so a streaming build (which sees one batch at a time and
keeps at most `limit` rows) picks exactly the rows a non-streaming build picks.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a fast, well-spread bijection on uint64."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
        return x ^ (x >> np.uint64(31))


def priorities(seed: int, split: str, indices: np.ndarray) -> np.ndarray:
    key = int.from_bytes(hashlib.sha256(f"{seed}\0{split}".encode()).digest()[:8], "little")
    with np.errstate(over="ignore"):
        return _mix(indices.astype(np.uint64) * _GOLDEN + np.uint64(key))


class SplitSample:
    """The `limit` lowest-priority rows of one split seen so far, with their source indices."""

    def __init__(self, limit: int, seed: int, split: str) -> None:
        self.limit, self.seed, self.split = limit, seed, split
        self.table: pa.Table | None = None
        self.indices = np.zeros(0, dtype=np.int64)
        self.priority = np.zeros(0, dtype=np.uint64)

    def add(self, table: pa.Table, indices: np.ndarray) -> None:
        if table.num_rows == 0:
            return
        merged = table if self.table is None else pa.concat_tables([self.table, table], promote_options="permissive")
        indices = np.concatenate([self.indices, indices])
        priority = np.concatenate([self.priority, priorities(self.seed, self.split, indices[len(self.indices):])])
        keep = np.sort(np.argsort(priority, kind="stable")[: self.limit])
        self.table, self.indices, self.priority = merged.take(pa.array(keep)), indices[keep], priority[keep]


def select_across(samples: list[SplitSample], limit: int) -> list[tuple[pa.Table, np.ndarray]]:
    """Keep the `limit` lowest priorities over all splits; each split's rows stay in source order."""
    pool = np.concatenate([s.priority for s in samples]) if samples else np.zeros(0, dtype=np.uint64)
    cutoff = np.sort(pool)[limit - 1] if len(pool) > limit else None
    chosen = []
    for sample in samples:
        if sample.table is None:
            chosen.append((None, sample.indices))
            continue
        keep = np.ones(len(sample.indices), dtype=bool) if cutoff is None else sample.priority <= cutoff
        chosen.append((sample.table.filter(pa.array(keep)), sample.indices[keep]))
    return chosen
