"""A mapping's row selection as data: its filter expressions and per-group caps, applied batch after batch and
counted by reason."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from clinreg.core.builderrors import ColumnMissing
from clinreg.core.model import Mapping
from clinreg.templating.columns import as_strings, find_column
from clinreg.templating.rowfilters import FilterExpression


class RowSelection:
    """The rows of one split that a mapping keeps, batch after batch (caps span batches)."""

    def __init__(self, mapping: Mapping, where: str) -> None:
        self.where = where
        self.filters = [FilterExpression(f.keep, f.why, where) for f in mapping.filters]
        self.cap = mapping.cap
        self.per_group: dict[Any, int] = {}
        self.dropped: dict[str, int] = {}

    @property
    def active(self) -> bool:
        return bool(self.filters or self.cap)

    def keep(self, table: pa.Table, split: str, offset: int) -> np.ndarray:
        keep = np.ones(table.num_rows, dtype=bool)
        for f in self.filters:
            # A filter sees only the rows the earlier ones kept, so `x is not none` can guard `x.strip()`.
            passed = f.keep(table, split, offset, keep)
            self._count(f.why, keep & ~passed)
            keep &= passed
        if self.cap is not None:
            groups = self._strings(table, self.cap.per, "cap")
            over = np.zeros(table.num_rows, dtype=bool)
            for i, group in enumerate(groups):
                if not keep[i]:
                    continue
                taken = self.per_group.get(group, 0)
                if taken >= self.cap.rows:
                    over[i] = True
                else:
                    self.per_group[group] = taken + 1
            self._count(f"over {self.cap.rows} per {self.cap.per}", over)
            keep &= ~over
        return keep

    def _strings(self, table: pa.Table, name: str, what: str) -> list[str | None]:
        column = find_column(table, name)
        if column is None:
            raise ColumnMissing(f"{self.where}: {what} column {name!r} is not in the data "
                                f"(columns: {', '.join(table.column_names)})")
        return as_strings(column).to_pylist()

    def _count(self, reason: str, mask: np.ndarray) -> None:
        n = int(mask.sum())
        if n:
            self.dropped[reason] = self.dropped.get(reason, 0) + n
