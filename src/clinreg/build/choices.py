"""Answer options of closed tasks, read from a batch of rows as one Arrow list array (options in letter order)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from clinreg.build.columns import as_strings, constant_lists, find_column, list_lengths, rebuild_lists
from clinreg.build.errors import RecordProblem
from clinreg.model import LETTERS, Choices, MappedScheme


@dataclass
class BatchChoices:
    texts: pa.ListArray  # the options of each row, A first
    ids: pa.ListArray | None = None  # with `items` + `id_key`: each option's id, for option_id labels

    def counts(self) -> np.ndarray:
        return list_lengths(self.texts)


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
        return BatchChoices(_stack([_required(table, c, where) for c in spec.columns], n))
    if spec.struct is not None:
        return BatchChoices(_from_struct(_required(table, spec.struct, where), n, where))
    if spec.items is not None:
        return _from_items(_required(table, spec.items, where), spec, where)
    raise RecordProblem(f"{where}: choices gives none of columns, struct, items or fixed")


def _required(table: pa.Table, name: str, where: str) -> pa.Array:
    array = find_column(table, name)
    if array is None:
        raise RecordProblem(f"{where}: choices column {name!r} is not in the data (columns: {', '.join(table.column_names)})")
    return array


def _stack(columns: list[pa.Array], n: int) -> pa.ListArray:
    """Interleave k option columns into one list per row, leaving out missing (null) options."""
    k = len(columns)
    if k == 0 or n == 0:
        return constant_lists([], n)
    stacked = pa.concat_arrays([as_strings(c) for c in columns])
    row_major = stacked.take(pa.array(np.arange(n * k).reshape(k, n).T.ravel()))
    present = row_major.is_valid().to_numpy(zero_copy_only=False)
    return rebuild_lists(present.reshape(n, k).sum(axis=1), row_major.filter(pa.array(present)))


def _from_struct(array: pa.Array, n: int, where: str) -> pa.ListArray:
    if pa.types.is_struct(array.type):
        names = [array.type.field(i).name for i in range(array.type.num_fields)]
        # Keys that are letters (MedQA's {A: ..., B: ...}) give the order; otherwise the struct's own order does.
        order = sorted(range(len(names)), key=lambda i: names[i]) if all(n in LETTERS for n in names) else range(len(names))
        return _stack([pc.struct_field(array, i) for i in order], n)
    if pa.types.is_map(array.type):
        offsets = array.offsets.to_numpy()
        values = array.items.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
        return rebuild_lists(np.diff(offsets), as_strings(values))
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
            ids = rebuild_lists(lengths, as_strings(pc.struct_field(flat, spec.id_key)))
    return BatchChoices(rebuild_lists(lengths, as_strings(texts)), ids)
