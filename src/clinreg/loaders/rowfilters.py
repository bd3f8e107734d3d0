"""A mapping's row selection as data: filter expressions and per-group caps, counted by reason."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pyarrow as pa

from clinreg.core.model import Mapping
from clinreg.loaders.columns import as_strings, find_column, python_values
from clinreg.loaders.errors import RecordProblem, TemplateFailure
from clinreg.loaders.templates import ROW_VARIABLE, InputTemplate

MAX_EXPRESSION_CHARS = 1000
_DELIMITERS = re.compile(r"\{\{|\}\}|\{%|%\}|\{#|#\}")


class FilterExpression:
    """One `keep:` expression, compiled once in the row sandbox (with its caps) and evaluated per row."""

    def __init__(self, expression: str, why: str, where: str) -> None:
        if len(expression) > MAX_EXPRESSION_CHARS or _DELIMITERS.search(expression) or "\n" in expression:
            raise RecordProblem(f"{where}: filter {expression!r} must be one Jinja expression on one line, without {{{{ }}}} or {{% %}}")
        self.expression, self.why, self.where = expression, why, where
        self.template = InputTemplate("{% if (" + expression + ") %}1{% endif %}", f"{where} filter")

    def keep(self, table: pa.Table, split: str, offset: int, among: np.ndarray | None = None) -> np.ndarray:
        """Which rows pass; with `among`, only those rows are evaluated (the others are not kept)."""
        names = self.template.variables
        wanted = table.column_names if self.template.uses_row else [n for n in table.column_names if n in names]
        missing = sorted(n for n in names - {ROW_VARIABLE} if n not in table.column_names and find_column(table, n) is None)
        if missing:
            raise RecordProblem(f"{self.where}: filter {self.expression!r} reads {', '.join(map(repr, missing))}, not in the data")
        values = [python_values(find_column(table, n)) for n in wanted]
        out = np.zeros(table.num_rows, dtype=bool)
        rows = range(table.num_rows) if among is None else np.flatnonzero(among)
        for i, context in self.template.row_contexts(wanted, values, rows):
            try:
                out[i] = self.template.render_with_globals(context) == "1"
            except TemplateFailure as err:
                raise TemplateFailure(f"{self.where}: split {split!r}, row {offset + i}: filter {self.expression!r} failed: {err}") from None
        return out


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
            raise RecordProblem(f"{self.where}: {what} column {name!r} is not in the data (columns: {', '.join(table.column_names)})")
        return as_strings(column).to_pylist()

    def _count(self, reason: str, mask: np.ndarray) -> None:
        n = int(mask.sum())
        if n:
            self.dropped[reason] = self.dropped.get(reason, 0) + n
