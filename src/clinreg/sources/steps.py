"""The read step's transformations (join, pick, join_list, extract, remove, adapter), applied to whole tables."""

from __future__ import annotations

import re
import time
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from clinreg.core.model import ExtractStep, JoinListStep, JoinStep, PickStep, RemoveStep, Step
from clinreg.sources.adapters import run_adapter
from clinreg.sources.diskjoin import DiskSeen, DiskTable
from clinreg.core.builderrors import ColumnMissing, JoinFailure, RecordProblem, SlowPattern, TemplateFailure
from clinreg.templating.columns import as_strings, find_column, one_array, python_values
from clinreg.templating.rowfilters import FilterExpression
from clinreg.templating.sandbox import InputTemplate
from clinreg.text.patterns import PatternTimeout, deadline, nested_repetition

MAX_PATTERN_CHARS = 2000
# A regex runs on the text of every row; longer texts than this are not searched (they fall through to "no match").
MAX_EXTRACT_INPUT = 2_000_000
# The time all of an extract step's rows may take together (issue 21, class 10): every row stays under
# MATCH_SECONDS, but rows of 1.5 s each would otherwise add up without bound.
EXTRACT_BUDGET_SECONDS = 30.0
EXTRACT_SECONDS_PER_ROW = 0.02
MATCH_SECONDS = 5.0  # one row's matching, all patterns together (clinreg.text.patterns.deadline)


def apply_steps(table: pa.Table, steps: list[Step], tables: Callable[[str], pa.Table], where: str,
                counts: dict[str, int]) -> pa.Table:
    """`table` after each step in order; `tables(name)` reads a join's table; `counts` receives dropped rows."""
    return StepRun(steps, tables, where, counts).apply(table)


# Steps that look at one row at a time (given the state a StepRun carries from batch to batch): a split whose
# steps are all of these kinds can be read, and its steps applied, batch by batch.
# Not `pick`: it infers its column's type from the values it picks (1 and 2.5 make 1.0), which a batch would
# infer from its own values only.
ROW_STEPS = ("join", "join_list", "extract", "remove", "render", "keep")


class StepRun:
    """A read step's transformations over one split, applied to the whole table or batch after batch.

    What a step needs across rows lives here, so that batches give the whole table's result: a join's right
    table, read once and indexed; the keys a one-to-one join has seen; the text a one-to-many join has built;
    compiled extract patterns and the time they have taken; render templates and their time budget; and the
    number of rows before the batch, so that messages name the row of the split.
    """

    def __init__(self, steps: list[Step], tables: Callable[[str], pa.Table], where: str, counts: dict[str, int],
                 columns: Callable[[str, list[str], bool], Any] | None = None) -> None:
        self.steps, self.tables, self.where, self.counts = list(steps), tables, where, counts
        # A table with only the named columns, where the reader can read it so; with True, it may be a DiskTable
        # (diskjoin) when the table is large.
        self.columns = columns
        self.offset = 0
        self.reached: dict[int, int] = {}  # rows that reached each step in earlier batches (steps may drop rows)
        self.state: dict[int, Any] = {}

    @property
    def streamable(self) -> bool:
        return all(any(getattr(step, kind) is not None for kind in ROW_STEPS) for step in self.steps)

    def _right(self, spec: JoinStep) -> pa.Table:
        """The join's table; only its keys and the columns it brings when the step lists them (plain names)."""
        if self.columns is None or spec.columns is None or any("." in name for name in [*spec.keys, *spec.columns]):
            return self.tables(spec.table)
        return self.columns(spec.table, list(dict.fromkeys([*spec.keys, *spec.columns])), first_match(spec))

    def _join_state(self, number: int, spec: JoinStep, here: str) -> JoinState:
        """Step `number`'s join state: its table read and indexed once, at the first batch or by `read_joins`."""
        state = self.state.get(number)
        if state is None:
            state = self.state[number] = JoinState(self._right(spec), spec, here)
        return state

    def read_joins(self) -> None:
        """Read and index every join's table now, as the first batch would. A split's stream calls this before
        its own reader opens: Arrow's streaming readers read up to 32 blocks ahead once open (64 MB of a split's
        text at 2 MiB blocks), which would otherwise be held while a large join table is read (DischargeMe)."""
        for number, step in enumerate(self.steps, start=1):
            if step.join is not None:
                try:
                    self._join_state(number, step.join, f"{self.where}: step {number}")
                except JoinFailure as err:
                    err.step = number - 1
                    raise

    def apply(self, table: pa.Table) -> pa.Table:
        rows = table.num_rows
        for number, step in enumerate(self.steps, start=1):
            here = f"{self.where}: step {number}"
            state = self.state.get(number)
            offset = self.reached.get(number, 0)
            self.reached[number] = offset + table.num_rows
            if step.join is not None:
                try:
                    state = self._join_state(number, step.join, here)
                    table = join(table, state.right, step.join, here, self.counts, state=state, offset=offset)
                except JoinFailure as err:
                    err.step = number - 1
                    raise
            elif step.pick is not None:
                table = pick(table, step.pick, here)
            elif step.join_list is not None:
                table = join_list(table, step.join_list, here)
            elif step.extract is not None:
                if state is None:
                    state = self.state[number] = ExtractState(step.extract, here)
                table = extract(table, step.extract, here, state=state, offset=offset)
            elif step.remove is not None:
                table = remove(table, step.remove, here)
            elif step.render is not None:
                if state is None:
                    state = self.state[number] = InputTemplate(step.render.template,
                                                               f"{here} render {step.render.column!r}")
                table = render(table, step.render, here, template=state, offset=offset)
            elif step.dedupe is not None:
                table = dedupe(table, step.dedupe, here, self.counts)
            elif step.keep is not None:
                if state is None:
                    state = self.state[number] = FilterExpression(step.keep, "the split's rows", here)
                table = keep_rows(table, step.keep, here, compiled=state, offset=offset)
            elif step.adapter is not None:
                table = run_adapter(step.adapter.name, table, step.adapter.options, self.tables, here, self.counts)
        self.offset += rows
        return table


def keep_rows(table: pa.Table, expression: str, where: str, *, compiled: Any = None, offset: int = 0) -> pa.Table:
    """The rows where `expression` is true: the split's share of a file that holds several (not counted as dropped).

    `compiled` is the expression compiled once (StepRun reuses it batch after batch); `offset`, the rows before."""
    check = compiled or FilterExpression(expression, "the split's rows", where)
    mask = check.keep(table, "", offset)
    return table.filter(pa.array(np.asarray(mask, dtype=bool)))


def _column(table: pa.Table, name: str, where: str, what: str = "column") -> pa.Array:
    column = find_column(table, name)
    if column is None:
        raise ColumnMissing(f"{where}: {what} {name!r} is not in the data (columns: {', '.join(table.column_names)})")
    return column


def _keys(table: pa.Table, on: list[str], where: str, side: str) -> list[tuple]:
    columns = [as_strings(_column(table, name, where, f"key column of the {side}")).to_pylist() for name in on]
    return list(zip(*columns))


def _replace(table: pa.Table, name: str, values: pa.Array) -> pa.Table:
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, values)
    return table.append_column(name, values)


def first_match(spec: JoinStep) -> bool:
    """Whether a join takes at most a key's first row by one key (one-to-many `first`, or a key that must not
    repeat), or only asks whether a key matches: the joins that need no list of rows per key."""
    brings = spec.columns is None or any(name not in spec.keys for name in spec.columns)
    return len(spec.keys) == 1 and not (spec.cardinality == "one_to_many" and spec.many == "all" and brings)


class JoinState:
    """A join's right table and its index, built once per split; the left keys seen (one-to-one); text built.

    A join on one key column that takes at most the first matching row looks each key up in a dict of the key's
    first row and takes the right table's columns with Arrow: no list of rows per key is built, which for a
    large table was most of a build's memory. Other joins index the right table's rows by key in a dict.
    """

    def __init__(self, right: pa.Table, spec: JoinStep, where: str) -> None:
        self.right = right
        self.seen: dict[Any, int] = {}
        self.joined_chars = 0
        self.by_first = False  # a one-key join that takes at most the first match (`first` below)
        self.first: dict[Any, int] = {}  # each key's first row, for the one-key joins
        self.index: dict[tuple, list[int]] = {}
        self.disk = right if isinstance(right, DiskTable) else None
        if self.disk is not None:  # only a first-match join's table goes to disk
            if spec.cardinality != "one_to_many" and (repeated := self.disk.repeated(spec.keys[0])) is not None:
                key, count = repeated
                raise JoinFailure(
                    f"{where}: table {spec.table!r} has {count} rows for key {_show(spec.keys, (key,))}; "
                    f"`cardinality: {spec.cardinality}` allows one (use one_to_many to join them)"
                )
            self.by_first = True
            self.disk.index_first(spec.keys[0])
            if spec.cardinality == "one_to_one":
                self.seen = self.disk.seen_keys()
            return
        # A one-to-many join that brings no column only asks whether a key matches: the first match will do.
        if first_match(spec):
            keys = as_strings(_column(right, spec.keys[0], where, f"key column of the table {spec.table!r}"))
            if spec.cardinality == "one_to_many" or not _repeats(keys):
                self.by_first = True
                first = self.first
                for i, key in enumerate(keys.to_pylist()):
                    first.setdefault(key, i)
                return
        self.index = join_index(right, spec, where)  # names the repeated key, or indexes a multi-key join


def _repeats(keys: pa.Array) -> bool:
    return len(keys) > 0 and pc.max(pc.struct_field(pc.value_counts(keys), [1])).as_py() > 1


def join_index(right: pa.Table, spec: JoinStep, where: str) -> dict[tuple, list[int]]:
    """The right table's rows by key, its side of the declared cardinality checked."""
    index: dict[tuple, list[int]] = {}
    for i, key in enumerate(_keys(right, spec.keys, where, f"table {spec.table!r}")):
        index.setdefault(key, []).append(i)
    if spec.cardinality in ("one_to_one", "many_to_one"):
        for key, rows in index.items():
            if len(rows) > 1:
                raise JoinFailure(
                    f"{where}: table {spec.table!r} has {len(rows)} rows for key {_show(spec.keys, key)}; "
                    f"`cardinality: {spec.cardinality}` allows one (use one_to_many to join them)"
                )
    return index


def _first_match_join(left: pa.Table, spec: JoinStep, where: str, counts: dict[str, int], state: JoinState,
                offset: int) -> pa.Table:
    """`join` for one key column and the first matching row, by one dict lookup per row and Arrow takes (same
    rows, values and messages)."""
    keys = as_strings(_column(left, spec.keys[0], where, "key column of the rows"))
    values = keys.to_pylist()
    if spec.cardinality == "one_to_one":
        seen = state.seen
        if isinstance(seen, DiskSeen):
            if (repeat := seen.first_repeat(values, offset)) is not None:
                raise JoinFailure(f"{where}: rows {repeat[0]} and {repeat[1]} share key "
                                  f"{_show(spec.keys, (repeat[2],))}; "
                                  "`cardinality: one_to_one` allows one")
        else:
            for i, key in enumerate(values, start=offset):
                if key in seen:
                    raise JoinFailure(
                        f"{where}: rows {seen[key]} and {i} share key {_show(spec.keys, (key,))}; `cardinality: "
                        "one_to_one` allows one"
                    )
                seen[key] = i
    if state.disk is not None:
        positions = pa.array(state.disk.first_positions(spec.keys[0], values), pa.int64())
    else:
        # A dict built once: Arrow's index_in would hash the whole right table again for every batch.
        first = state.first
        positions = pa.array([first.get(key) for key in values], pa.int64())
    unmatched = positions.null_count
    out = left
    if unmatched and spec.unmatched == "error":
        first = pc.index(pc.is_null(positions), True).as_py()
        raise JoinFailure(f"{where}: row {offset + first} (key {_show(spec.keys, (keys[first].as_py(),))}) "
                                f"matches no row of table {spec.table!r}")
    if unmatched and spec.unmatched == "drop":
        matched = pc.is_valid(positions)
        out, positions = left.filter(matched), positions.filter(matched)
        counts[f"no match in {spec.table}"] = counts.get(f"no match in {spec.table}", 0) + unmatched
    right = state.right
    names = [n for n in (spec.columns if spec.columns is not None else right.column_names) if n not in spec.keys]
    for name in names:
        if state.disk is not None:
            array = state.disk.take(name, positions)
        else:
            array = _column(right, name, where, f"column of table {spec.table!r}").take(positions)
        out = _replace(out, name if name not in out.column_names else name + spec.suffix, array)
    return out


def join(left: pa.Table, right: pa.Table, spec: JoinStep, where: str, counts: dict[str, int], *,
         state: JoinState | None = None, offset: int = 0) -> pa.Table:
    """Bring the columns of `right` into `left` by key, checking the declared cardinality.

    `state` carries the index and what earlier batches of the split saw; `offset` is the rows before `left`.
    """
    state = state or JoinState(right, spec, where)
    if state.by_first:
        return _first_match_join(left, spec, where, counts, state, offset)
    index = state.index
    left_keys = _keys(left, spec.keys, where, "rows")
    if spec.cardinality == "one_to_one":
        seen = state.seen
        for i, key in enumerate(left_keys, start=offset):
            if key in seen:
                raise JoinFailure(
                    f"{where}: rows {seen[key]} and {i} share key {_show(spec.keys, key)}; `cardinality: one_to_one` "
                    "allows one"
                )
            seen[key] = i
    keep, take = [], []
    for i, key in enumerate(left_keys):
        rows = index.get(key)
        if rows is None:
            if spec.unmatched == "error":
                raise JoinFailure(f"{where}: row {offset + i} (key {_show(spec.keys, key)}) matches no row of table "
                                  f"{spec.table!r}")
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
            array = pa.array(_joined_texts(values, take, spec, where, state), pa.string())
        else:
            positions = pa.array([None if not rows else rows[0] for rows in take], pa.int64())
            array = values.take(positions)
        target = name if name not in out.column_names else name + spec.suffix
        out = _replace(out, target, array)
    return out


# The text a one_to_many join may build, over all rows: repeated keys on both sides multiply (every row of a key
# on the left gets every row of it on the right), and 2 MB of CSV could ask for gigabytes.
MAX_JOIN_CHARS = 256 * 1024 * 1024


def _joined_texts(values: pa.Array, take: list, spec: JoinStep, where: str, state: JoinState) -> list[str | None]:
    """Each row's matching values joined by the separator: built once per distinct key, the total size (over
    the split's batches so far) checked before any row's text is built twice."""
    text = as_strings(values).to_pylist() if not pa.types.is_string(values.type) else values.to_pylist()
    built: dict[int, str | None] = {}
    sizes: dict[int, int] = {}
    total = state.joined_chars
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
    state.joined_chars = total
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


class ExtractState:
    """An extract step's compiled patterns, and the time and rows its matching has taken over the split."""

    def __init__(self, spec: ExtractStep, where: str) -> None:
        compiled = []
        for pattern in spec.patterns:
            if len(pattern) > MAX_PATTERN_CHARS:
                raise RecordProblem(f"{where}: an extract pattern is longer than {MAX_PATTERN_CHARS} characters")
            try:
                regex = re.compile(pattern)
            except re.error as err:
                raise RecordProblem(f"{where}: extract pattern {pattern!r} does not compile: {err}") from None
            if not regex.groupindex:
                raise RecordProblem(f"{where}: extract pattern {pattern!r} has no named group (`(?P<name>...)`) to "
                                    "keep")
            inner = nested_repetition(pattern)
            if inner:
                raise SlowPattern(f"{where}: extract pattern {pattern!r} repeats `{inner}` inside another repetition, "
                                    "which can take exponential time (CLR714)")
            compiled.append(regex)
        self.compiled = compiled
        self.names = list(dict.fromkeys(name for regex in compiled for name in regex.groupindex))
        self.spent = 0.0


def extract(table: pa.Table, spec: ExtractStep, where: str, *, state: ExtractState | None = None,
            offset: int = 0) -> pa.Table:
    state = state or ExtractState(spec, where)
    compiled, names = state.compiled, state.names
    texts = as_strings(_column(table, spec.column, where)).to_pylist()
    out: dict[str, list[str | None]] = {name: [] for name in names}
    regex = compiled[0]
    row = offset
    started = time.monotonic() - state.spent
    try:
        with deadline(MATCH_SECONDS) as arm:
            for row, text in enumerate(texts, start=offset):
                groups: dict[str, str | None] = {}
                arm()  # every row, so that the limit never spans two rows
                # ... and the whole step within a budget that grows with the rows: slow rows cannot add up
                spent = time.monotonic() - started
                if spent > EXTRACT_BUDGET_SECONDS + EXTRACT_SECONDS_PER_ROW * row:
                    raise SlowPattern(
                        f"{where}: extract patterns took {spent:.1f} s for {row} row(s), more than the budget of "
                        f"{EXTRACT_BUDGET_SECONDS:g} s + {EXTRACT_SECONDS_PER_ROW * 1000:g} ms a row; simplify the "
                        "pattern")
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
        raise SlowPattern(f"{where}: extract pattern {regex.pattern!r} ran for more than {MATCH_SECONDS:g} s on "
                            f"row {row}; simplify the pattern") from None
    finally:
        state.spent = time.monotonic() - started
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


def render(table: pa.Table, spec, where: str, *, template: Any = None, offset: int = 0) -> pa.Table:
    """A new column rendered row by row from a template in the row sandbox (size and time caps included).

    `template` is the step's compiled template when the split is rendered batch by batch (its time budget then
    spans the split); `offset` is the rows before this batch."""
    template = template or InputTemplate(spec.template, f"{where} render {spec.column!r}")
    fast = template.render_table(table)  # the whole batch in Arrow, where the template and columns allow
    if fast is not None and not len(fast[1]):
        return _replace(table, spec.column, fast[0])
    names = template.columns_read(table.column_names)
    values = [python_values(one_array(table.column(n))) for n in names]
    out = fast[0].to_pylist() if fast is not None else [None] * table.num_rows
    render_row = template.render_row
    for i, row in template.rows(names, values, range(table.num_rows) if fast is None else fast[1]):
        try:
            out[i] = render_row(row)
        except TemplateFailure as err:
            raise TemplateFailure(f"{where}: row {offset + i}: render {spec.column!r} failed: {err}") from None
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
