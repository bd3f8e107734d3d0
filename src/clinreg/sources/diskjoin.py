"""A join's right table kept on disk (SQLite, from the standard library) once it passes a size (issue 41).

In memory, a one-key join holds the right table's keys and brought columns, a dict of each key's first row and,
for a one-to-one join, every left key seen: about 1.6 GB for DischargeMe at a million admissions. Past
`DISK_JOIN_ROWS` rows or `DISK_JOIN_BYTES` bytes of the read columns, the rows go into a SQLite file in the
reader's cache folder instead, with an index of each key's first row, and the left keys a one-to-one join has
seen go into it too. The joined rows, values, order and messages are the in-memory join's (a test forces this
path with a tiny threshold and compares).

Only text columns go to disk (CSV, TSV and xlsx tables, whose every value is text), and only for the joins that
take at most a key's first row (`steps.JoinState.by_first`); any other join keeps its table in memory.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any, Iterable

import pyarrow as pa

DISK_JOIN_ROWS = 100_000
DISK_JOIN_BYTES = 32 << 20
# Keys sent in one `IN (...)` query: under SQLite's oldest limit on parameters (999).
_CHUNK = 900


def _lookup(db: sqlite3.Connection, select: str, keys: Iterable[Any]) -> dict[Any, Any]:
    """{key: value} for the distinct non-null `keys` found by `select` (a two-column query ending in the key column
    of its WHERE clause), asked `_CHUNK` keys at a time to stay under SQLite's limit on bound parameters."""
    wanted = list({k for k in keys if k is not None})
    found: dict[Any, Any] = {}
    for begin in range(0, len(wanted), _CHUNK):
        chunk = wanted[begin : begin + _CHUNK]
        found.update(db.execute(f"{select} IN ({', '.join('?' * len(chunk))})", chunk).fetchall())
    return found


def spillable(table: pa.Table) -> bool:
    return all(pa.types.is_string(t) or pa.types.is_large_string(t) for t in table.schema.types)


def over_threshold(rows: int, size: int) -> bool:
    return rows > DISK_JOIN_ROWS or size > DISK_JOIN_BYTES


class DiskTable:
    """A text table's rows in a SQLite file, in order (`pos` from 0), read back by position and by key."""

    def __init__(self, folder: str | Path, names: list[str], types: list[pa.DataType]) -> None:
        self.column_names, self.types = list(names), list(types)
        self.num_rows = 0
        self._dir = tempfile.mkdtemp(prefix="join-", dir=folder)
        self.db = sqlite3.connect(str(Path(self._dir) / "right.sqlite3"), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode = OFF")
        self.db.execute("PRAGMA synchronous = OFF")
        self.db.execute("PRAGMA temp_store = FILE")
        columns = ", ".join(f"c{i}" for i in range(len(names)))
        self.db.execute(f"CREATE TABLE r (pos INTEGER PRIMARY KEY, {columns})")
        self._insert = f"INSERT INTO r VALUES (?, {', '.join('?' * len(names))})"
        self.db.execute("BEGIN")
        self._seen = 0
        self._indexed: dict[str, None | int] = {}  # key column -> the first row of the null key (None: no null key)

    def append(self, table: pa.Table) -> None:
        columns = [table.column(name).to_pylist() for name in self.column_names]
        start = self.num_rows
        self.db.executemany(self._insert, zip(range(start, start + table.num_rows), *columns))
        self.num_rows += table.num_rows

    def finish(self) -> DiskTable:
        self.db.execute("COMMIT")
        return self

    def _col(self, name: str) -> str:
        return f"c{self.column_names.index(name)}"

    def index_first(self, key: str) -> None:
        """Each value of column `key` (as text) with its first row: the lookups of a first-match join."""
        if key in self._indexed:
            return
        col = self._col(key)
        table = f"first_{col}"
        self.db.execute("BEGIN")
        self.db.execute(f"CREATE TABLE {table} (k TEXT PRIMARY KEY, pos INTEGER) WITHOUT ROWID")
        self.db.execute(f"INSERT OR IGNORE INTO {table} SELECT {col}, pos FROM r WHERE {col} IS NOT NULL ORDER BY pos")
        self.db.execute("COMMIT")
        null = self.db.execute(f"SELECT MIN(pos) FROM r WHERE {col} IS NULL").fetchone()[0]
        self._indexed[key] = null

    def repeated(self, key: str) -> tuple[Any, int] | None:
        """The first key (in row order) held by more than one row, and how many rows hold it; None if none."""
        col = self._col(key)
        found = self.db.execute(
            f"SELECT {col}, COUNT(*), MIN(pos) FROM r GROUP BY {col} HAVING COUNT(*) > 1 ORDER BY MIN(pos) LIMIT 1"
        ).fetchone()
        return None if found is None else (found[0], found[1])

    def first_positions(self, key: str, values: list[Any]) -> list[int | None]:
        """The first row holding each value in column `key`, or None."""
        self.index_first(key)
        table = f"first_{self._col(key)}"
        found = _lookup(self.db, f"SELECT k, pos FROM {table} WHERE k", values)
        null = self._indexed[key]
        return [null if v is None else found.get(v) for v in values]

    def take(self, name: str, positions: pa.Array) -> pa.Array:
        """Column `name` at `positions` (null where a position is null), as Arrow's take gives it."""
        wanted = positions.to_pylist()
        values = _lookup(self.db, f"SELECT pos, {self._col(name)} FROM r WHERE pos", wanted)
        return pa.array([None if p is None else values[p] for p in wanted], self.types[self.column_names.index(name)])

    def seen_keys(self) -> DiskSeen:
        """A fresh, empty record of left keys, for one read of a split through a one-to-one join."""
        self._seen += 1
        return DiskSeen(self.db, str(self._seen))

    def close(self) -> None:
        self.db.close()
        shutil.rmtree(self._dir, ignore_errors=True)


class DiskSeen:
    """The left keys a one-to-one join has seen, with the row of each, in the join's SQLite file."""

    def __init__(self, db: sqlite3.Connection, name: str) -> None:
        self.db, self.table = db, f"seen_{name}"
        self.db.execute(f"CREATE TABLE {self.table} (k TEXT PRIMARY KEY, pos INTEGER) WITHOUT ROWID")
        self.null: int | None = None

    def first_repeat(self, keys: Iterable[Any], offset: int) -> tuple[int, int, Any] | None:
        """Record `keys` (rows from `offset`); the first (earlier row, row, key) that repeats a key, or None."""
        keys = list(keys)
        batch: dict[Any, int] = {}
        earlier = _lookup(self.db, f"SELECT k, pos FROM {self.table} WHERE k", keys)
        for i, key in enumerate(keys, start=offset):
            if key is None:
                if self.null is not None:
                    return self.null, i, key
                self.null = i
                continue
            if key in earlier:
                return earlier[key], i, key
            if key in batch:
                return batch[key], i, key
            batch[key] = i
        self.db.execute("BEGIN")
        self.db.executemany(f"INSERT INTO {self.table} VALUES (?, ?)", batch.items())
        self.db.execute("COMMIT")
        return None

