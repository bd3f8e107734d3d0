"""Arrow column helpers: find a (dotted) column, read it as strings or Python values, rebuild list arrays."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from clinreg.core.builderrors import RecordProblem

JSON_EXTENSION = "arrow.json"


def find_column(table: pa.Table, name: str) -> pa.Array | None:
    """A column by exact name, else by a dotted path into struct fields (`context.contexts`); None if absent."""
    if name in table.column_names:
        return _flat(table.column(name))
    head, _, rest = name.partition(".")
    if not rest or head not in table.column_names:
        return None
    array = _flat(table.column(head))
    for part in rest.split("."):
        if not pa.types.is_struct(array.type) or array.type.get_field_index(part) < 0:
            return None
        array = pc.struct_field(array, part)
    return array


def has_column(schema: pa.Schema, name: str) -> bool:
    """Whether `name` (possibly a dotted struct path, possibly through lists) exists in a schema."""
    if name in schema.names:
        return True
    head, _, rest = name.partition(".")
    if not rest or head not in schema.names:
        return False
    kind = schema.field(head).type
    for part in rest.split("."):
        while pa.types.is_list(kind) or pa.types.is_large_list(kind):
            kind = kind.value_type
        if not pa.types.is_struct(kind) or kind.get_field_index(part) < 0:
            return False
        kind = kind.field(part).type
    return True


def one_array(column: pa.ChunkedArray) -> pa.Array:
    """The column as one array: its only chunk as it is (combine_chunks would copy it), else the chunks joined."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _flat(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    array = one_array(column) if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    return array


def is_json(array: pa.Array) -> bool:
    return isinstance(array.type, pa.BaseExtensionType) and array.type.extension_name == JSON_EXTENSION


def as_strings(array: pa.Array) -> pa.Array:
    """Values as strings, the way labels are compared: ints as digits, whole floats as ints, bools as true/false."""
    if is_json(array):
        array = array.storage
    kind = array.type
    if pa.types.is_null(kind):
        return pa.nulls(len(array), pa.string())
    if pa.types.is_floating(kind):
        # A CSV column with blanks is read as float; its whole values still compare as "0" and "1".
        # Whole values past int64 (1e19) keep their float spelling: casting them would overflow.
        array = pc.if_else(pc.is_nan(array), pa.scalar(None, kind), array)
        whole = pc.and_(pc.is_finite(array), pc.equal(pc.floor(array), array))
        fits = pc.and_(pc.greater_equal(array, -(2.0**63)), pc.less(array, 2.0**63))
        if pc.all(pc.fill_null(pc.and_(whole, fits), True)).as_py():
            array = pc.cast(array, pa.int64())
        elif pc.any(pc.fill_null(pc.and_(whole, fits), False)).as_py():
            # Mixed: the whole values that fit are written as ints, the others as the float they are.
            as_int = pc.cast(pc.cast(pc.if_else(pc.and_(whole, fits), array, pa.scalar(None, kind)), pa.int64()),
                             pa.string())
            return pc.coalesce(as_int, pc.cast(array, pa.string()))
    if pa.types.is_string(kind):
        return array
    if pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return pc.cast(array, pa.string())
    if pa.types.is_integer(array.type) or pa.types.is_floating(array.type) or pa.types.is_boolean(array.type):
        return pc.cast(array, pa.string())
    if pa.types.is_decimal(kind):
        return pc.cast(array, pa.string())
    raise TypeError(f"a column of type {kind} cannot be read as text")


def text_column(array: pa.Array, where: str, what: str) -> pa.Array:
    """`as_strings`, or a RecordProblem naming the column when its type has no text form (lists, structs)."""
    try:
        return as_strings(array)
    except TypeError as err:
        raise RecordProblem(f"{where}: {what}: {err}") from None


def python_values(array: pa.Array) -> list[Any]:
    """Python values as `datasets` shows them: JSON columns decoded, NaN as None."""
    if is_json(array):
        return [None if v is None else json.loads(v) for v in array.storage.to_pylist()]
    if pa.types.is_floating(array.type):
        array = pc.if_else(pc.is_nan(array), pa.scalar(None, array.type), array)
    return array.to_pylist()


def list_lengths(array: pa.Array) -> np.ndarray:
    return pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False).astype(np.int64)


def rebuild_lists(lengths: np.ndarray, values: pa.Array) -> pa.ListArray:
    """A list array whose row i holds the next lengths[i] values."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values)


def constant_lists(items: list[str], n: int) -> pa.ListArray:
    values = pa.array(items * n, pa.string())
    return rebuild_lists(np.full(n, len(items), dtype=np.int64), values)
