"""The read step's transformations (join, pick, join_list, extract, remove, adapter), applied to whole tables."""

from __future__ import annotations

import re
import time
from typing import Any, Callable

import pyarrow as pa
import pyarrow.compute as pc

from clinreg.core.model import ExtractStep, JoinListStep, JoinStep, PickStep, RemoveStep, Step
from clinreg.loaders.columns import as_strings, find_column, python_values
from clinreg.loaders.errors import JoinFailure, RecordProblem
from clinreg.text.patterns import PatternTimeout, deadline, nested_repetition

MAX_PATTERN_CHARS = 2000
# A regex runs on the text of every row; longer texts than this are not searched (they fall through to "no match").
MAX_EXTRACT_INPUT = 2_000_000
# The time all of an extract step's rows may take together (issue 21, class 10): every row stays under
# MATCH_SECONDS, but rows of 1.5 s each would otherwise add up without bound.
EXTRACT_BUDGET_SECONDS = 30.0
EXTRACT_SECONDS_PER_ROW = 0.02
MATCH_SECONDS = 5.0  # one row's matching, all patterns together (clinreg.text.patterns.deadline)


def apply_steps(table: pa.Table, steps: list[Step], tables: Callable[[str], pa.Table], where: str, counts: dict[str, int]) -> pa.Table:
    """`table` after each step in order; `tables(name)` reads a join's table; `counts` receives dropped rows."""
    for number, step in enumerate(steps, start=1):
        here = f"{where}: step {number}"
        if step.join is not None:
            try:
                table = join(table, tables(step.join.table), step.join, here, counts)
            except JoinFailure as err:
                err.step = number - 1
                raise
        elif step.pick is not None:
            table = pick(table, step.pick, here)
        elif step.join_list is not None:
            table = join_list(table, step.join_list, here)
        elif step.extract is not None:
            table = extract(table, step.extract, here)
        elif step.remove is not None:
            table = remove(table, step.remove, here)
        elif step.render is not None:
            table = render(table, step.render, here)
        elif step.dedupe is not None:
            table = dedupe(table, step.dedupe, here, counts)
        elif step.keep is not None:
            table = keep_rows(table, step.keep, here)
        elif step.adapter is not None:
            from clinreg.loaders.adapters import run_adapter

            table = run_adapter(step.adapter.name, table, step.adapter.options, tables, here, counts)
    return table


def keep_rows(table: pa.Table, expression: str, where: str) -> pa.Table:
    """The rows where `expression` is true: the split's share of a file that holds several (not counted as dropped)."""
    import numpy as np

    from clinreg.loaders.rowfilters import FilterExpression

    mask = FilterExpression(expression, "the split's rows", where).keep(table, "", 0)
    return table.filter(pa.array(np.asarray(mask, dtype=bool)))


def _column(table: pa.Table, name: str, where: str, what: str = "column") -> pa.Array:
    column = find_column(table, name)
    if column is None:
        raise RecordProblem(f"{where}: {what} {name!r} is not in the data (columns: {', '.join(table.column_names)})")
    return column


def _keys(table: pa.Table, on: list[str], where: str, side: str) -> list[tuple]:
    columns = [as_strings(_column(table, name, where, f"key column of the {side}")).to_pylist() for name in on]
    return list(zip(*columns))


def _replace(table: pa.Table, name: str, values: pa.Array) -> pa.Table:
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, values)
    return table.append_column(name, values)


def join(left: pa.Table, right: pa.Table, spec: JoinStep, where: str, counts: dict[str, int]) -> pa.Table:
    """Bring the columns of `right` into `left` by key, checking the declared cardinality."""
    left_keys = _keys(left, spec.keys, where, "rows")
    right_keys = _keys(right, spec.keys, where, f"table {spec.table!r}")
    index: dict[tuple, list[int]] = {}
    for i, key in enumerate(right_keys):
        index.setdefault(key, []).append(i)
    if spec.cardinality in ("one_to_one", "many_to_one"):
        for key, rows in index.items():
            if len(rows) > 1:
                raise JoinFailure(
                    f"{where}: table {spec.table!r} has {len(rows)} rows for key {_show(spec.keys, key)}; "
                    f"`cardinality: {spec.cardinality}` allows one (use one_to_many to join them)"
                )
    if spec.cardinality == "one_to_one":
        seen: dict[tuple, int] = {}
        for i, key in enumerate(left_keys):
            if key in seen:
                raise JoinFailure(
                    f"{where}: rows {seen[key]} and {i} share key {_show(spec.keys, key)}; `cardinality: one_to_one` allows one"
                )
            seen[key] = i
    keep, take = [], []
    for i, key in enumerate(left_keys):
        rows = index.get(key)
        if rows is None:
            if spec.unmatched == "error":
                raise JoinFailure(f"{where}: row {i} (key {_show(spec.keys, key)}) matches no row of table {spec.table!r}")
            if spec.unmatched == "drop":
                continue
        keep.append(i)
        take.append(rows)
    dropped = left.num_rows - len(keep)
    if dropped:
        counts[f"no match in {spec.table}"] = counts.get(f"no match in {spec.table}", 0) + dropped
    out = left.take(pa.array(keep, pa.int64())) if dropped else left
    # The rows already hold the keys; taking them from the table would blank them on rows kept unmatched.
    names = [n for n in (spec.columns if spec.columns is not None else right.column_names) if n not in spec.keys]
    for name in names:
        values = _column(right, name, where, f"column of table {spec.table!r}")
        if spec.cardinality == "one_to_many" and spec.many == "first":
            array = values.take(pa.array([None if not rows else rows[0] for rows in take], pa.int64()))
        elif spec.cardinality == "one_to_many":
            array = pa.array(_joined_texts(values, take, spec, where), pa.string())
        else:
            positions = pa.array([None if not rows else rows[0] for rows in take], pa.int64())
            array = values.take(positions)
        target = name if name not in out.column_names else name + spec.suffix
        out = _replace(out, target, array)
    return out


# The text a one_to_many join may build, over all rows: repeated keys on both sides multiply (every row of a key
# on the left gets every row of it on the right), and 2 MB of CSV could ask for gigabytes.
MAX_JOIN_CHARS = 256 * 1024 * 1024


def _joined_texts(values: pa.Array, take: list, spec: JoinStep, where: str) -> list[str | None]:
    """Each row's matching values joined by the separator: built once per distinct key, the total size checked
    before any row's text is built twice."""
    text = as_strings(values).to_pylist() if not pa.types.is_string(values.type) else values.to_pylist()
    built: dict[int, str | None] = {}
    sizes: dict[int, int] = {}
    total = 0
    for rows in take:
        if not rows:
            continue
        key = id(rows)  # rows of one key share the same list of right-table rows
        if key not in sizes:
            sizes[key] = sum(len(text[r]) + len(spec.separator) for r in rows if text[r] is not None)
        total += sizes[key]
        if total > MAX_JOIN_CHARS:
            raise JoinFailure(
                f"{where}: joining table {spec.table!r} would build more than {MAX_JOIN_CHARS:,} characters of text "
                f"(keys repeat on both sides); declare `many: first`, or join on a key that is unique on the left"
            )
    out = []
    for rows in take:
        if not rows:
            out.append(None)
            continue
        key = id(rows)
        if key not in built:
            built[key] = spec.separator.join(text[r] for r in rows if text[r] is not None) or None
        out.append(built[key])
    return out


def _show(on: list[str], key: tuple) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in zip(on, key))


def pick(table: pa.Table, spec: PickStep, where: str) -> pa.Table:
    """The first item of a list column whose fields match `where` (or its `value` field), as a new column."""
    items = python_values(_column(table, spec.list, where, "list column"))
    picked = []
    for row in items:
        found = None
        for item in row or []:
            if all(_same(_field(item, path), wanted) for path, wanted in spec.where.items()):
                found = item if spec.value is None else _field(item, spec.value)
                break
        picked.append(found)
    try:
        array = pa.array(picked)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        array = pa.array([None if v is None else str(v) for v in picked], pa.string())
    return _replace(table, spec.column, array)


def _field(item: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(item, dict):
            return None
        item = item.get(part)
    return item


def _same(value: Any, wanted: Any) -> bool:
    """Source files spell numbers as text often enough (`"1"` vs 1) that both must match.

    A boolean matches only a boolean or its text in any case (`TRUE` from a spreadsheet), never 1 or 0.
    """
    if value is None:
        return False
    if isinstance(value, bool) or isinstance(wanted, bool):
        truth = _truth(value)
        return truth is not None and truth == _truth(wanted)
    if value == wanted:
        return True
    return str(value).strip() == str(wanted)


def _truth(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return {"true": True, "false": False}.get(value.strip().lower())
    return None


def join_list(table: pa.Table, spec: JoinListStep, where: str) -> pa.Table:
    values = python_values(_column(table, spec.list, where, "list column"))
    joined = []
    for row in values:
        if row is None:
            joined.append(None)
        elif isinstance(row, (list, tuple)):
            joined.append(spec.separator.join(str(x) for x in row if x is not None))
        else:
            joined.append(str(row))  # some copies store the list already joined
    return _replace(table, spec.column, pa.array(joined, pa.string()))


def extract(table: pa.Table, spec: ExtractStep, where: str) -> pa.Table:
    compiled = []
    for pattern in spec.patterns:
        if len(pattern) > MAX_PATTERN_CHARS:
            raise RecordProblem(f"{where}: an extract pattern is longer than {MAX_PATTERN_CHARS} characters")
        try:
            regex = re.compile(pattern)
        except re.error as err:
            raise RecordProblem(f"{where}: extract pattern {pattern!r} does not compile: {err}") from None
        if not regex.groupindex:
            raise RecordProblem(f"{where}: extract pattern {pattern!r} has no named group (`(?P<name>...)`) to keep")
        inner = nested_repetition(pattern)
        if inner:
            raise RecordProblem(f"{where}: extract pattern {pattern!r} repeats `{inner}` inside another repetition, "
                                "which can take exponential time (CLR714)")
        compiled.append(regex)
    names = list(dict.fromkeys(name for regex in compiled for name in regex.groupindex))
    texts = as_strings(_column(table, spec.column, where)).to_pylist()
    out: dict[str, list[str | None]] = {name: [] for name in names}
    regex = compiled[0]
    row = 0
    started = time.monotonic()
    try:
        with deadline(MATCH_SECONDS) as arm:
            for row, text in enumerate(texts):
                groups: dict[str, str | None] = {}
                arm()  # every row, so that the limit never spans two rows
                # ... and the whole step within a budget that grows with the rows: slow rows cannot add up
                spent = time.monotonic() - started
                if spent > EXTRACT_BUDGET_SECONDS + EXTRACT_SECONDS_PER_ROW * row:
                    raise RecordProblem(
                        f"{where}: extract patterns took {spent:.1f} s for {row} row(s), more than the budget of "
                        f"{EXTRACT_BUDGET_SECONDS:g} s + {EXTRACT_SECONDS_PER_ROW * 1000:g} ms a row; simplify the pattern")
                if text is not None and len(text) <= MAX_EXTRACT_INPUT:
                    for regex in compiled:
                        m = regex.search(text)
                        if m:
                            groups = m.groupdict()
                            break
                for name in names:
                    value = groups.get(name)
                    out[name].append(value if value not in (None, "") else None)
    except PatternTimeout:
        raise RecordProblem(f"{where}: extract pattern {regex.pattern!r} ran for more than {MATCH_SECONDS:g} s on "
                            f"row {row}; simplify the pattern") from None
    for name in names:
        table = _replace(table, name, pa.array(out[name], pa.string()))
    return table


def remove(table: pa.Table, spec: RemoveStep, where: str) -> pa.Table:
    """`column` with every occurrence of the other columns' texts taken out (no gold answer left in an input)."""
    texts = as_strings(_column(table, spec.column, where)).to_pylist()
    for name in spec.values:
        targets = as_strings(_column(table, name, where)).to_pylist()
        texts = [
            t if t is None or not g or not g.strip() else t.replace(g, spec.replacement)
            for t, g in zip(texts, targets)
        ]
    return _replace(table, spec.column, pa.array(texts, pa.string()))


def render(table: pa.Table, spec, where: str) -> pa.Table:
    """A new column rendered row by row from a template in the row sandbox (size and time caps included)."""
    from clinreg.loaders.errors import TemplateFailure
    from clinreg.loaders.templates import InputTemplate

    template = InputTemplate(spec.template, f"{where} render {spec.column!r}")
    names = table.column_names if template.uses_row else [n for n in table.column_names if n in template.variables]
    values = [python_values(table.column(n).combine_chunks()) for n in names]
    out = []
    for i, context in template.row_contexts(names, values, range(table.num_rows)):
        try:
            out.append(template.render_with_globals(context))
        except TemplateFailure as err:
            raise TemplateFailure(f"{where}: row {i}: render {spec.column!r} failed: {err}") from None
    return _replace(table, spec.column, pa.array(out, pa.string()))


def dedupe(table: pa.Table, spec, where: str, counts: dict[str, int]) -> pa.Table:
    """One row per key, at the first duplicate's position, with the first or last duplicate's values."""
    keys = list(zip(*(as_strings(_column(table, name, where, "dedupe column")).to_pylist() for name in spec.columns)))
    first: dict[tuple, int] = {}
    chosen: dict[tuple, int] = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
        if spec.values_from == "last" or key not in chosen:
            chosen[key] = i
    if len(first) == len(keys):
        return table
    order = sorted(first.items(), key=lambda item: item[1])
    reason = f"duplicate {', '.join(spec.columns)}"
    counts[reason] = counts.get(reason, 0) + len(keys) - len(first)
    return table.take(pa.array([chosen[key] for key, _ in order], pa.int64()))


def count_true(mask: pa.Array) -> int:
    return int(pc.sum(pc.cast(mask, pa.int64())).as_py() or 0)
