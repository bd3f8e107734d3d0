"""Filter expressions (`keep:`): one Jinja expression per filter, compiled once in the row sandbox and evaluated
row by row. Used by a mapping's row selection and by the `keep` read step."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from clinreg.core.builderrors import ColumnMissing, TemplateDoesNotCompile, TemplateFailure
from clinreg.templating.columns import find_column, python_values
from clinreg.templating.sandbox import ROW_VARIABLE, InputTemplate

MAX_EXPRESSION_CHARS = 1000
_DELIMITERS = re.compile(r"\{\{|\}\}|\{%|%\}|\{#|#\}")


class FilterExpression:
    """One `keep:` expression, compiled once in the row sandbox (with its caps) and evaluated per row."""

    def __init__(self, expression: str, why: str, where: str) -> None:
        if len(expression) > MAX_EXPRESSION_CHARS or _DELIMITERS.search(expression) or "\n" in expression:
            raise TemplateDoesNotCompile(f"{where}: filter {expression!r} must be one Jinja expression on one line, "
                                         "without {{ }} or {% %}")
        self.expression, self.why, self.where = expression, why, where
        self.template = InputTemplate("{% if (" + expression + ") %}1{% endif %}", f"{where} filter")

    def keep(self, table: pa.Table, split: str, offset: int, among: np.ndarray | None = None) -> np.ndarray:
        """Which rows pass; with `among`, only those rows are evaluated (the others are not kept)."""
        names = self.template.variables
        wanted = self.template.columns_read(table.column_names)
        missing = sorted(n for n in names - {ROW_VARIABLE} if n not in table.column_names
                         and find_column(table, n) is None)
        if missing:
            raise ColumnMissing(f"{self.where}: filter {self.expression!r} reads {', '.join(map(repr, missing))}, "
                                "not in the data")
        fast = self.template.render_table(table, among)  # the whole batch in Arrow, where it applies
        if fast is not None:
            out = np.asarray(pc.equal(fast[0], "1").to_numpy(zero_copy_only=False), dtype=bool)
            if among is not None:
                out &= among
            if not len(fast[1]):
                return out
            rows = fast[1]
        else:
            out = np.zeros(table.num_rows, dtype=bool)
            rows = range(table.num_rows) if among is None else np.flatnonzero(among)
        values = [python_values(find_column(table, n)) for n in wanted]
        render = self.template.render_row
        for i, row in self.template.rows(wanted, values, rows):
            try:
                out[i] = render(row) == "1"
            except TemplateFailure as err:
                raise TemplateFailure(f"{self.where}: split {split!r}, row {offset + i}: filter {self.expression!r} "
                                      f"failed: {err}") from None
        return out
