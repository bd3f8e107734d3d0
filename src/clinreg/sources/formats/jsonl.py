"""JSON lines, whole or in batches: through Arrow's C++ reader where it gives exactly the table the Python reader
would, else line by line in Python (json_line_object)."""

from __future__ import annotations

import json
import mmap
import re
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.json as pj

from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.model import TableSpec
from clinreg.sources.files import checked_size, open_bytes, read_text
from clinreg.sources.formats.arrow import ARROW_ERRORS
from clinreg.sources.formats.json import from_rows


def read_jsonl(path: Path, spec: TableSpec) -> pa.Table:
    """JSON lines: through Arrow's C++ reader where it gives exactly the table the Python reader would (plain
    UTF-8, and only null, boolean, integer, float, text, list and struct values), else line by line in Python."""
    table = _read_jsonl_arrow(path, spec)
    return table if table is not None else _read_jsonl_python(path, spec)


# Types Arrow's JSON reader produces that json.loads + pa.array produce too. Arrow also reads ISO-looking
# strings as timestamps, which the Python reader keeps as text: such a file goes the Python way.
_LONG_DIGITS = re.compile(rb"\d{19,}")


def _has_float(t: pa.DataType) -> bool:
    if pa.types.is_struct(t):
        return any(_has_float(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _has_float(t.value_type)
    return pa.types.is_floating(t)


def _plain_json_type(t: pa.DataType, in_list: bool = False) -> bool:
    # Lists only of scalars: Arrow's reader mistakes nulls inside nested lists and lists of nulls (found by the
    # hypothesis test against the Python reader).
    if pa.types.is_struct(t):
        return not in_list and all(_plain_json_type(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return not in_list and _plain_json_type(t.value_type, in_list=True)
    return ((pa.types.is_null(t) and not in_list) or pa.types.is_boolean(t) or t == pa.int64() or t == pa.float64()
            or pa.types.is_string(t) or pa.types.is_large_string(t))


def _arrow_may_read(path: Path, spec: TableSpec) -> bool:
    """Whether Arrow's C++ readers may try the file: plain UTF-8 as declared, not gzip-compressed (those go
    through files.read_text, which bounds the unpacking)."""
    return spec.encoding.lower().replace("-", "").replace("_", "") == "utf8" and not path.name.lower().endswith(".gz")


def _read_jsonl_arrow(path: Path, spec: TableSpec) -> pa.Table | None:
    if not _arrow_may_read(path, spec):
        return None
    checked_size(path)
    with path.open("rb") as handle:
        if handle.read(3) == b"\xef\xbb\xbf":  # a byte-order mark: the Python reader drops it
            return None
    try:
        table = pj.read_json(path, read_options=pj.ReadOptions(use_threads=True, block_size=8 << 20),
                             parse_options=pj.ParseOptions(newlines_in_values=False))
    except ARROW_ERRORS:
        return None  # a bad line, mixed types, a duplicate key, a huge integer: the Python reader decides
    if not table.num_columns or not all(_plain_json_type(f.type) for f in table.schema):
        return None
    if any(_has_float(f.type) for f in table.schema):
        # Arrow reads an integer past int64 as a float; the Python reader keeps it exact, as text. Only a table
        # with a float column can hold one, so only then is the file scanned for a long run of digits.
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            if _LONG_DIGITS.search(view):
                return None
    try:
        # Arrow's reader drops a null that opens a list (its offsets then outrun the values): a full validation
        # catches that, and any such file goes the Python way.
        table.validate(full=True)
    except (pa.ArrowInvalid, pa.ArrowIndexError):
        return None
    return table.combine_chunks()


def _read_jsonl_python(path: Path, spec: TableSpec) -> pa.Table:
    rows = []
    # Only "\n" ends a record: str.splitlines() also splits at U+2028, U+0085 and form feeds, which JSON allows raw in
    # strings.
    for line_no, line in enumerate(read_text(path, spec.encoding).split("\n"), start=1):
        if not line.strip():
            continue
        rows.append(json_line_object(line, path.name, line_no))
    return from_rows(rows)


def json_line_object(line: str, name: str, line_no: int) -> dict[str, Any]:
    """One line of a JSON-lines file as its object, or a located error."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as err:
        raise SourceUnavailable(f"{name}:{line_no}: not JSON: {err.msg}") from None
    if not isinstance(row, dict):
        raise SourceUnavailable(f"{name}:{line_no}: a line must hold one JSON object")
    return row


class _NotPlain(Exception):
    pass


def jsonl_batches(path: Path, spec: TableSpec, block_bytes: int) -> Iterator[pa.Table]:
    """The file's rows in batches, each as read_jsonl gives them: through Arrow's streaming reader in blocks of
    `block_bytes` where Arrow reads the file as the Python reader would, else (or from where Arrow stops) line
    by line, the columns then being the fields of the first `block_bytes` (a later new field stops the read)."""
    done = 0
    columns: list[str] | None = None
    with open_bytes(path) as handle:
        bom = handle.read(3) == b"\xef\xbb\xbf"
    utf8 = spec.encoding.lower().replace("-", "").replace("_", "") == "utf8"
    if utf8 and not bom and hasattr(pj, "open_json"):
        stack = ExitStack()
        try:
            reader = pj.open_json(stack.enter_context(open_bytes(path)),
                                  read_options=pj.ReadOptions(use_threads=True, block_size=block_bytes),
                                  parse_options=pj.ParseOptions(newlines_in_values=False))
            columns, types = reader.schema.names, reader.schema.types
            if not columns or not all(_plain_json_type(f.type) for f in reader.schema):
                raise _NotPlain
            if any(_has_float(f.type) for f in reader.schema):
                # Arrow reads an integer past int64 as a float; the Python reader keeps it exact, as text.
                if path.name.lower().endswith(".gz"):
                    raise _NotPlain
                with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
                    if _LONG_DIGITS.search(view):
                        raise _NotPlain
            for batch in reader:
                table = pa.Table.from_batches([batch])
                table.validate(full=True)  # Arrow drops a null that opens a list: such a batch goes the Python way
                yield table
                done += table.num_rows
            return
        except (_NotPlain, pa.ArrowIndexError, *ARROW_ERRORS):
            pass  # the Python reader decides, from the first row Arrow did not pass on
        finally:
            stack.close()
    yield from _jsonl_python_batches(path, spec, done, dict(zip(columns, types)) if done else None,
                                     block_bytes)


def _jsonl_python_batches(path: Path, spec: TableSpec, skip: int, columns: dict[str, pa.DataType] | None,
                          block_bytes: int, batch_rows: int = 1000) -> Iterator[pa.Table]:
    """_read_jsonl_python, a batch at a time, leaving out the first `skip` rows (Arrow read them).

    The columns, and their types, are those of the first `block_bytes` (or of the rows Arrow passed on)."""
    sig = spec.encoding.lower().replace("-", "").replace("_", "") in ("utf8", "utf8sig")
    encoding = "utf-8" if sig else spec.encoding
    rows: list[dict[str, Any]] = []
    count = 0
    size = 0
    known = dict(columns) if columns is not None else None
    first_line = 1
    with open_bytes(path) as handle:
        for line_no, raw in enumerate(handle, start=1):
            line = raw.decode(encoding)
            if line_no == 1 and sig and line.startswith("\ufeff"):
                line = line[1:]  # a byte-order mark is not part of the first row
            if line.endswith("\n"):
                line = line[:-1]
            if line.endswith("\r"):
                line = line[:-1]
            if not line.strip():
                continue
            count += 1
            if count <= skip:
                continue
            row = json_line_object(line, path.name, line_no)
            if known is not None:
                for key in row:
                    if str(key) not in known:
                        raise SourceUnavailable(
                            f"{path.name}:{line_no}: field {str(key)!r} first appears here, after the first "
                            f"{block_bytes >> 20} MiB of the file; a file is read in batches whose columns are "
                            f"the fields of its first {block_bytes >> 20} MiB (put a row with every field first)")
            if not rows:
                first_line = line_no
            rows.append(row)
            size += len(raw)
            if (known is None and size >= block_bytes) or (known is not None and len(rows) >= batch_rows):
                table = _conformed(rows, known, f"{path.name}:{first_line}-{line_no}")
                if known is None:
                    known = dict(zip(table.column_names, table.schema.types))
                yield table
                rows = []
    if rows or count <= skip:
        yield _conformed(rows, known, f"{path.name}:{first_line}-")


def _conformed(rows: list[dict[str, Any]], known: dict[str, pa.DataType] | None, lines: str) -> pa.Table:
    """A batch's rows as from_rows makes them, with the columns and value types the file's earlier rows
    fixed, so that every value reads as the whole-file reader would give it; `known` learns a type first seen here.

    Where the whole-file reader would keep a column as text (its values mix types), a later batch's values
    become that text (JSON for non-text values); a change the earlier batches cannot follow stops the read."""
    table = from_rows(rows)
    if known is None:
        return table
    n = table.num_rows
    columns = []
    for name, kind in known.items():
        column = table.column(name) if name in table.column_names else pa.nulls(n)
        if pa.types.is_null(column.type):
            column = pa.nulls(n, kind)
        elif pa.types.is_null(kind):
            known[name] = column.type  # earlier rows were all null: they read the same under any type
        elif column.type != kind:
            if pa.types.is_floating(kind) and pa.types.is_integer(column.type):
                column = column.cast(kind)  # the whole file's column is a float column
            elif pa.types.is_string(kind):
                # Mixed types: the whole-file reader keeps the column as text, JSON for the non-text values.
                values = [row.get(name) for row in rows]
                column = pa.array([None if v is None else v if isinstance(v, str) else json.dumps(v) for v in values],
                                  pa.string())
            else:
                raise SourceUnavailable(
                    f"{lines}: field {name!r} holds {column.type} values here and {kind} values in the rows before; "
                    f"a file is read in batches, and a field's values must keep one type (or be text throughout)")
        columns.append(column)
    return pa.table(columns, names=list(known)) if known else table
