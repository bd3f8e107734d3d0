"""Answer options of closed tasks, read from a batch of rows as one Arrow list array (options in letter order)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from clinreg.core.model import LETTERS, Choices, MappedScheme
from clinreg.core.builderrors import ColumnMissing, RecordProblem
from clinreg.templating.columns import constant_lists, find_column, list_lengths, rebuild_lists, text_column


@dataclass
class BatchChoices:
    texts: pa.ListArray  # the options of each row, A first
    ids: pa.ListArray | None = None  # with `items` + `id_key`: each option's id, for option_id labels
    # How many of each row's options a gold letter may name. Missing (null) options are left out of `texts`,
    # which moves the later ones up a letter; a positional gold past the first missing option would then name
    # the wrong text, so it may only name the options before it. None: all of `texts`.
    nameable: np.ndarray | None = None

    def counts(self) -> np.ndarray:
        return self.nameable if self.nameable is not None else list_lengths(self.texts)


def fixed_is_templated(spec: Choices | None) -> bool:
    return bool(spec and spec.fixed and any("{{" in t or "{%" in t for t in spec.fixed))


def batch_choices(spec: Choices | None, scheme: object, table: pa.Table, where: str) -> BatchChoices:
    """Options for every row of `table`. Templated `fixed` options are rendered by the caller, not here."""
    n = table.num_rows
    if spec is None:
        # A mapped scheme without options still has named classes: its source values, in letter order.
        if isinstance(scheme, MappedScheme):
            return BatchChoices(constant_lists([k for k, _ in sorted(scheme.map.items(), key=lambda kv: kv[1])], n))
        return BatchChoices(constant_lists([], n))
    if spec.fixed is not None:
        return BatchChoices(constant_lists(list(spec.fixed), n))
    if spec.columns is not None:
        return _stack([(c, _required(table, c, where)) for c in spec.columns], n, where)
    if spec.struct is not None:
        return _from_struct(_required(table, spec.struct, where), spec.struct, n, where)
    if spec.items is not None:
        return _from_items(_required(table, spec.items, where), spec, where)
    raise RecordProblem(f"{where}: choices gives none of columns, struct, items or fixed")


def _required(table: pa.Table, name: str, where: str) -> pa.Array:
    array = find_column(table, name)
    if array is None:
        raise ColumnMissing(f"{where}: choices column {name!r} is not in the data "
                            f"(columns: {', '.join(table.column_names)})")
    return array


def _stack(columns: list[tuple[str, pa.Array]], n: int, where: str) -> BatchChoices:
    """Interleave k option columns into one list per row, leaving out missing (null) options."""
    k = len(columns)
    if k == 0 or n == 0:
        return BatchChoices(constant_lists([], n))
    stacked = pa.concat_arrays([text_column(c, where, f"choices column {name!r}") for name, c in columns])
    row_major = stacked.take(pa.array(np.arange(n * k).reshape(k, n).T.ravel()))
    return _without_missing(np.full(n, k, dtype=np.int64), row_major)


def _without_missing(lengths: np.ndarray, values: pa.Array, ids: pa.Array | None = None) -> BatchChoices:
    """Lists of the next lengths[i] values per row, null values (and their ids) left out; see `nameable`."""
    present = values.is_valid().to_numpy(zero_copy_only=False).astype(bool)
    if present.all():
        return BatchChoices(rebuild_lists(lengths, values), None if ids is None else rebuild_lists(lengths, ids))
    keep = pa.array(present)
    parents = np.repeat(np.arange(len(lengths)), lengths)
    kept = np.bincount(parents[present], minlength=len(lengths)).astype(np.int64)
    # Options before each row's first missing one: its position in the row, or the row's length if none.
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    nameable = lengths.astype(np.int64).copy()
    gaps = np.flatnonzero(~present)
    np.minimum.at(nameable, parents[gaps], gaps - starts[parents[gaps]])
    texts = rebuild_lists(kept, values.filter(keep))
    if ids is not None:
        # Options are named by id, not position: leaving one out moves no gold, and a gold naming it fits none.
        return BatchChoices(texts, rebuild_lists(kept, ids.filter(keep)))
    return BatchChoices(texts, nameable=nameable)


def _from_struct(array: pa.Array, name: str, n: int, where: str) -> BatchChoices:
    if pa.types.is_struct(array.type):
        names = [array.type.field(i).name for i in range(array.type.num_fields)]
        # Keys that are letters (MedQA's {A: ..., B: ...}) give the order; otherwise the struct's own order does.
        order = (sorted(range(len(names)), key=lambda i: names[i]) if all(n in LETTERS for n in names)
                 else range(len(names)))
        # A null struct gives null fields: the row has no options, and no gold letter fits it.
        return _stack([(f"{name}.{names[i]}", pc.struct_field(array, i)) for i in order], n, where)
    if pa.types.is_map(array.type):
        offsets = array.offsets.to_numpy()
        values = array.items.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
        lengths = np.diff(offsets).astype(np.int64)
        return _without_missing(lengths, text_column(values, where, f"choices struct column {name!r} values"))
    raise RecordProblem(f"{where}: choices struct column has type {array.type}, not a struct or map")


def _from_items(array: pa.Array, spec: Choices, where: str) -> BatchChoices:
    if not (pa.types.is_list(array.type) or pa.types.is_large_list(array.type)):
        raise RecordProblem(f"{where}: choices items column {spec.items!r} has type {array.type}, not a list")
    lengths = list_lengths(array)
    flat = pc.list_flatten(array)
    texts = flat
    ids = None
    if pa.types.is_struct(flat.type):
        if not spec.text_key or flat.type.get_field_index(spec.text_key) < 0:
            raise RecordProblem(f"{where}: choices text_key {spec.text_key!r} is not a key of {spec.items!r}")
        texts = pc.struct_field(flat, spec.text_key)
        if spec.id_key:
            if flat.type.get_field_index(spec.id_key) < 0:
                raise RecordProblem(f"{where}: choices id_key {spec.id_key!r} is not a key of {spec.items!r}")
            ids = text_column(pc.struct_field(flat, spec.id_key), where,
                              f"choices id_key {spec.id_key!r} of {spec.items!r}")
    what = f"choices items column {spec.items!r}" + (f" text_key {spec.text_key!r}" if texts is not flat else "")
    return _without_missing(lengths, text_column(texts, where, what), ids)
