"""Gold labels normalised per label scheme, vectorised over an Arrow batch: letters, reference texts, ranges."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from clinreg.core.builderrors import ColumnMissing, RecordProblem
from clinreg.templating.columns import find_column, list_lengths, text_column
from clinreg.core.model import (
    LETTERS,
    FreeTextScheme,
    IndexScheme,
    LetterScheme,
    MappedScheme,
    NumberScheme,
    OptionIdScheme,
)

OK, UNLABELED, BAD = 0, 1, 2
CLOSED_SCHEMES = (LetterScheme, IndexScheme, OptionIdScheme, MappedScheme)
_NUMBER = r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$"


@dataclass
class BatchLabels:
    """Per-row outcome of one batch: status (OK / UNLABELED / BAD) and the normalised gold."""

    status: np.ndarray
    values: pa.Array  # the source values as strings (null where missing), for messages
    letters: pa.Array | None = None  # closed schemes: the gold letter
    gold_text: pa.Array | None = None  # free text and number schemes: the reference text
    lower: pa.Array | None = None  # number scheme: the accepted range
    upper: pa.Array | None = None


def is_closed(scheme: object) -> bool:
    return isinstance(scheme, CLOSED_SCHEMES)


def allowed_values(scheme: object) -> list[str]:
    """The source values a scheme accepts, for messages (empty for open schemes)."""
    if isinstance(scheme, LetterScheme):
        return list(scheme.letters)
    if isinstance(scheme, IndexScheme):
        return [str(scheme.base + i) for i in range(scheme.count)]
    if isinstance(scheme, MappedScheme):
        return list(scheme.map)
    return []


def source_values(scheme: object, table: pa.Table, where: str, variant_label: str | None = None) -> pa.Array:
    """The label column as strings; a variant's constant label when the mapping has variants."""
    if variant_label is not None:
        return pa.repeat(pa.scalar(variant_label, pa.string()), table.num_rows)
    if scheme.column is None:
        raise RecordProblem(f"{where}: the label scheme has no `column` and this variant gives no `label`")
    column = find_column(table, scheme.column)
    if column is None:
        raise ColumnMissing(
            f"{where}: label column {scheme.column!r} is not in the data (columns: {', '.join(table.column_names)})"
        )
    return text_column(column, where, f"label column {scheme.column!r}")


def normalise(
    scheme: object,
    table: pa.Table,
    where: str,
    *,
    choice_counts: np.ndarray | None = None,
    option_ids: pa.ListArray | None = None,
    variant_label: str | None = None,
) -> BatchLabels:
    """Normalise the gold label of every row of `table` without a per-row Python loop."""
    values = source_values(scheme, table, where, variant_label)
    if isinstance(scheme, (FreeTextScheme, NumberScheme)):
        return _open(scheme, table, values, where)
    unlabeled = _unlabeled_mask(scheme, values)
    if isinstance(scheme, OptionIdScheme):
        if option_ids is None:
            raise RecordProblem(f"{where}: option_id labels need choices `items` with an `id_key`")
        position = _option_positions(values, option_ids)
        limit = scheme.max_options
    else:
        allowed = allowed_values(scheme)
        position = pc.index_in(values, value_set=pa.array(allowed, pa.string()))
        # Each accepted value becomes a letter; the letter's place in the alphabet is the option position.
        letter_of = pa.array(_letters_of(scheme, allowed), pa.string())
        position = pc.index_in(pc.take(letter_of, position), value_set=pa.array(list(LETTERS)))
        limit = len(LETTERS)
    pos = pc.fill_null(position, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    fits = (pos >= 0) & (pos < limit)
    if choice_counts is not None:
        # A row with no options (a null options struct) has nothing a gold letter could name.
        fits &= pos < choice_counts
    status = np.where(fits, OK, BAD).astype(np.int8)
    status[unlabeled & ~fits] = UNLABELED
    letters = pc.take(pa.array(list(LETTERS)), pa.array(np.where(fits, pos, 0))).cast(pa.string())
    letters = pc.if_else(pa.array(fits), letters, pa.scalar(None, pa.string()))
    return BatchLabels(status, values, letters=letters)


def _letters_of(scheme: object, allowed: list[str]) -> list[str]:
    if isinstance(scheme, MappedScheme):
        return [scheme.map[v] for v in allowed]
    if isinstance(scheme, IndexScheme):
        return list(LETTERS[: len(allowed)])
    return allowed


def _unlabeled_mask(scheme: object, values: pa.Array) -> np.ndarray:
    markers: list[str] = []
    if isinstance(scheme, IndexScheme) and scheme.unlabeled is not None:
        markers = [str(scheme.unlabeled)]
    elif isinstance(scheme, MappedScheme):
        markers = list(scheme.unlabeled)
    if not markers:
        return np.zeros(len(values), dtype=bool)
    return pc.fill_null(pc.is_in(values, value_set=pa.array(markers, pa.string())),
                        False).to_numpy(zero_copy_only=False)


def _option_positions(values: pa.Array, option_ids: pa.ListArray) -> pa.Array:
    """Position of the option whose id equals the row's gold id (first match), or null."""
    n = len(values)
    lengths = list_lengths(option_ids)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if n else np.zeros(0, dtype=np.int64)
    flat = pc.list_flatten(option_ids)
    parents = pc.list_parent_indices(option_ids).to_numpy(zero_copy_only=False)
    gold = pc.take(values, pa.array(parents))
    match = pc.fill_null(pc.equal(flat, gold), False).to_numpy(zero_copy_only=False)
    hits = np.flatnonzero(match)
    rows, first = np.unique(parents[hits], return_index=True)
    position = np.full(n, -1, dtype=np.int64)
    position[rows] = hits[first] - starts[rows]
    return pa.array(np.where(position >= 0, position, 0), mask=position < 0)


def _open(scheme: object, table: pa.Table, values: pa.Array, where: str) -> BatchLabels:
    # Surrounding whitespace is never part of a reference answer (and every harness strips it too).
    trimmed = pc.utf8_trim_whitespace(values)
    filled = pc.fill_null(pc.greater(pc.utf8_length(trimmed), 0), False)
    status = np.where(filled.to_numpy(zero_copy_only=False), OK, BAD).astype(np.int8)
    labels = BatchLabels(status, values, gold_text=trimmed)
    if isinstance(scheme, NumberScheme):
        labels.lower, labels.upper = _range(scheme, table, values, where)
    return labels


def _range(scheme: NumberScheme, table: pa.Table, values: pa.Array, where: str) -> tuple[pa.Array, pa.Array]:
    bounds = []
    for name in (scheme.lower_column, scheme.upper_column):
        column = None if name is None else find_column(table, name)
        if name is not None and column is None:
            raise ColumnMissing(f"{where}: range column {name!r} is not in the data")
        bounds.append(None if column is None else text_column(column, where, f"range column {name!r}"))
    if bounds[0] is not None or bounds[1] is not None:
        missing = pa.nulls(len(values), pa.string())
        return (bounds[0] if bounds[0] is not None else missing, bounds[1] if bounds[1] is not None else missing)
    numeric = pc.fill_null(pc.match_substring_regex(values, _NUMBER), False)
    number = pc.cast(pc.if_else(numeric, values, pa.scalar(None, pa.string())), pa.float64())
    tolerance = pa.repeat(pa.scalar(scheme.absolute_tolerance or 0.0), len(values))
    if scheme.relative_tolerance:
        tolerance = pc.max_element_wise(tolerance, pc.multiply(pc.abs(number), scheme.relative_tolerance))
    return pc.subtract(number, tolerance), pc.add(number, tolerance)
