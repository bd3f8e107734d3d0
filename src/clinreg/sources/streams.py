"""Read a split's files batch by batch (issue 26): memory bounded by the batch, not by the file.

CSV and JSON lines go through Arrow's streaming C++ readers where the whole-file readers (readers.py) would use
Arrow, and through the same Python parsing otherwise; parquet streams by record batch. Every batch holds exactly
the rows, values and columns that the whole-file reader gives for those rows, with one documented difference for
JSON lines: the columns are the fields of the file's first block (STREAM_BLOCK_BYTES), and a field that first
appears after it stops the read with its line, since the batches already passed on could not hold it.

xlsx sheets stream through openpyxl's read-only mode, every value as text. Gzip-compressed CSV and JSON lines
stream too, unpacked within the whole-file reader's inflation bound.
Anything else (archives, XML, text folders, JSON documents, several JSON-lines files) is not
streamed: `stream_table` returns None and the caller reads the table whole.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import mmap
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa

from clinreg.core.model import TableSpec
from clinreg.sources.errors import SourceUnavailable
from clinreg.sources.readers import (
    _LONG_DIGITS,
    MAX_CELL_CHARS,
    MatchedFile,
    _checked_size,
    csv_bytes,
    open_bytes,
    _has_float,
    _plain_json_type,
    _with_parts,
    infer_format,
    json_line_object,
    located,
    match_files,
)

# Arrow's block, and the Python readers' first batch of JSON lines: the part of a file that fixes its columns.
# 2 MiB keeps a build of a million rows under 250 MB (8 MiB blocks took it to about 500 MB: Arrow's memory
# pool keeps the freed blocks' pages for a while) and still holds a thousand rows of a typical record.
STREAM_BLOCK_BYTES = 2 << 20
STREAM_FORMATS = ("csv", "tsv", "jsonl", "parquet", "xlsx")
_ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowCapacityError, OSError)
# Encodings in which a newline byte is always a newline (JSON lines are split on bytes before decoding).
_BYTE_LINE_ENCODINGS = {"utf-8", "utf-8-sig", "ascii", "latin-1", "iso8859-1", "cp1252", "iso8859-15"}


def stream_table(folder: Path, spec: TableSpec, where: str) -> Iterator[pa.Table] | None:
    """The spec's rows as a stream of tables, or None when the spec's files cannot be streamed."""
    if spec.archive is not None or isinstance(spec.files, dict):
        return None
    patterns = [spec.files] if isinstance(spec.files, str) else list(spec.files)
    files: list[tuple[str, MatchedFile]] = []
    for pattern in patterns:
        matched = match_files(folder, pattern, spec.where, where)
        if not matched:
            return None  # the whole-file reader names what is missing
        fmt = spec.format or infer_format(pattern) or infer_format(matched[0].relative)
        if fmt not in STREAM_FORMATS or (fmt in ("parquet", "xlsx") and any(_gz(item.path) for item in matched)):
            return None
        files.extend((fmt, item) for item in matched)
    if fmt == "jsonl" and (len(files) > 1 or _codec(spec.encoding) not in _BYTE_LINE_ENCODINGS or not _open_json()):
        # Without Arrow's streaming JSON reader (pyarrow before it had one), the whole-file reader decides: the
        # Python reader there orders a struct's fields differently from Arrow's whole-file reader.
        return None
    if len({fmt for fmt, _ in files}) > 1 or (len(files) > 1 and not _same_columns(files, spec)):
        return None  # the whole-file reader unifies differing files' columns
    return _located(files, spec, where)


def _gz(path: Path) -> bool:
    return path.name.lower().endswith(".gz")


def _open_json() -> bool:
    import pyarrow.json as pj

    return hasattr(pj, "open_json")


def _codec(encoding: str) -> str:
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        return encoding


def _same_columns(files: list[tuple[str, MatchedFile]], spec: TableSpec) -> bool:
    """Whether several files have the same columns of the same types (the batches then agree)."""
    try:
        if files[0][0] == "xlsx":
            return False
        if files[0][0] == "parquet":
            import pyarrow.parquet as pq

            schemas = [pq.read_schema(item.path) for _, item in files]
            return all(s.equals(schemas[0]) for s in schemas)
        sep = spec.delimiter or ("\t" if files[0][0] == "tsv" else ",")
        heads = []
        for _, item in files:
            with open_bytes(item.path) as handle:
                heads.append(handle.readline(1 << 20).rstrip(b"\r\n").split(sep.encode()))
        return all(h == heads[0] for h in heads)
    except Exception:
        return False


def _located(files: list[tuple[str, MatchedFile]], spec: TableSpec, where: str) -> Iterator[pa.Table]:
    """Each file's batches, with its pattern parts as columns; a parser's error becomes one located line, as
    readers.read_table makes it. At least one (possibly empty) table, so that the steps always see the columns."""
    yielded = False
    empty = None
    for fmt, item in files:
        batches = _BATCHES[fmt](item.path, spec, fmt)
        while True:
            try:
                table = next(batches)
            except StopIteration:
                break
            except Exception as err:
                raise located(err, where, item, fmt) from None
            table = _with_parts(table, item.parts, where) if item.parts else table
            if table.num_rows:
                yielded = True
                yield table
            elif empty is None:
                empty = table
    if not yielded:
        yield empty if empty is not None else pa.table({})


# ------------------------------------------------------------------------------------------------- CSV


def _csv_batches(path: Path, spec: TableSpec, fmt: str) -> Iterator[pa.Table]:
    sep = spec.delimiter or ("\t" if fmt == "tsv" else ",")
    done = 0
    header = _arrow_csv_header(path, spec, sep)
    if header is not None:
        import pyarrow.csv as pcsv
        from contextlib import ExitStack

        stack = ExitStack()

        try:
            reader = pcsv.open_csv(
                stack.enter_context(csv_bytes(path)),
                read_options=pcsv.ReadOptions(use_threads=False, block_size=STREAM_BLOCK_BYTES),
                parse_options=pcsv.ParseOptions(delimiter=sep, newlines_in_values=True, ignore_empty_lines=True),
                convert_options=pcsv.ConvertOptions(column_types={h: pa.string() for h in header}, strings_can_be_null=True,
                                                    null_values=[""], quoted_strings_can_be_null=True),
            )
            if reader.schema.names != header:
                raise pa.ArrowInvalid("columns differ from the header")
            seen = False
            for batch in reader:  # CRLF arrives as LF (csv_bytes), as the Python reader reads it
                seen = True
                yield pa.Table.from_batches([batch])
                done += batch.num_rows
            if not seen:
                yield pa.table({h: pa.array([], pa.string()) for h in header})
            return
        except _ARROW_ERRORS:
            pass  # ragged rows, bad UTF-8, a field over Arrow's limits: the Python reader decides, from here on
        finally:
            stack.close()
    yield from _csv_python_batches(path, spec, sep, done)


def _arrow_csv_header(path: Path, spec: TableSpec, sep: str) -> list[str] | None:
    """The header, when Arrow may read the file as readers._read_csv_arrow would; else None."""
    if spec.encoding.lower().replace("-", "").replace("_", "") != "utf8" or not _checked_size(path):
        return None
    with open_bytes(path) as handle:
        first = handle.readline(1 << 20)
    line = first[:-2] if first.endswith(b"\r\n") else first.rstrip(b"\n")
    if first.startswith(b"\xef\xbb\xbf") or b'"' in line or b"\r" in line:
        return None
    header = line.decode("utf-8", errors="replace").split(sep)
    if len(set(header)) != len(header) or any(not h for h in header):
        return None
    return header


def _csv_python_batches(path: Path, spec: TableSpec, sep: str, skip: int, batch_rows: int = 1000) -> Iterator[pa.Table]:
    """readers._read_csv_python, a batch at a time, leaving out the first `skip` records (Arrow read them)."""
    encoding = spec.encoding
    if encoding.lower().replace("-", "") in ("utf8", "utf8sig"):
        encoding = "utf-8-sig"
    csv.field_size_limit(MAX_CELL_CHARS)
    with io.TextIOWrapper(open_bytes(path), encoding=encoding, newline="") as handle:
        reader = csv.reader(handle, delimiter=sep)
        header = next(reader, None)
        if header is None:
            yield pa.table({})
            return
        if len(set(header)) != len(header):
            dupes = sorted({h for h in header if header.count(h) > 1})
            raise SourceUnavailable(f"{path.name}: the header repeats column(s) {', '.join(map(repr, dupes))}")
        rows: list[list[str]] = []
        count = 0
        line_no = reader.line_num + 1
        for record in reader:
            start, line_no = line_no, reader.line_num + 1
            if not record:
                continue
            if len(record) > len(header):
                if any(field.strip() for field in record[len(header):]):
                    raise SourceUnavailable(f"{path.name}:{start}: {len(record)} fields where the header has {len(header)}")
                record = record[: len(header)]
            count += 1
            if count <= skip:
                continue
            rows.append(record)
            if len(rows) == batch_rows:
                yield _csv_table(header, rows)
                rows = []
        if rows or not skip:
            yield _csv_table(header, rows)


def _csv_table(header: list[str], rows: list[list[str]]) -> pa.Table:
    # The whole-file reader reads CRLF as LF before parsing, inside quoted values too.
    columns = [
        [(v.replace("\r\n", "\n") if "\r" in v else v) if (v := (r[i] if i < len(r) else "")) != "" else None for r in rows]
        for i in range(len(header))
    ]
    return pa.table({name: pa.array(values, pa.string()) for name, values in zip(header, columns)})


# ------------------------------------------------------------------------------------------------- JSON lines


class _NotPlain(Exception):
    pass


def _jsonl_batches(path: Path, spec: TableSpec, fmt: str) -> Iterator[pa.Table]:
    import pyarrow.json as pj

    done = 0
    columns: list[str] | None = None
    with open_bytes(path) as handle:
        bom = handle.read(3) == b"\xef\xbb\xbf"
    utf8 = spec.encoding.lower().replace("-", "").replace("_", "") == "utf8"
    if utf8 and not bom and hasattr(pj, "open_json"):
        from contextlib import ExitStack

        stack = ExitStack()
        try:
            reader = pj.open_json(stack.enter_context(open_bytes(path)), read_options=pj.ReadOptions(use_threads=True, block_size=STREAM_BLOCK_BYTES),
                                  parse_options=pj.ParseOptions(newlines_in_values=False))
            columns, types = reader.schema.names, reader.schema.types
            if not columns or not all(_plain_json_type(f.type) for f in reader.schema):
                raise _NotPlain
            if any(_has_float(f.type) for f in reader.schema):
                # Arrow reads an integer past int64 as a float; the Python reader keeps it exact, as text.
                if _gz(path):
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
        except (_NotPlain, pa.ArrowIndexError, *_ARROW_ERRORS):
            pass  # the Python reader decides, from the first row Arrow did not pass on
        finally:
            stack.close()
    yield from _jsonl_python_batches(path, spec, done, dict(zip(columns, types)) if done else None)


def _jsonl_python_batches(path: Path, spec: TableSpec, skip: int, columns: dict[str, pa.DataType] | None,
                          batch_rows: int = 1000) -> Iterator[pa.Table]:
    """readers._read_jsonl_python, a batch at a time, leaving out the first `skip` rows (Arrow read them).

    The columns, and their types, are those of the first STREAM_BLOCK_BYTES (or of the rows Arrow passed on)."""
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
                            f"{STREAM_BLOCK_BYTES >> 20} MiB of the file; a file is read in batches whose columns are "
                            f"the fields of its first {STREAM_BLOCK_BYTES >> 20} MiB (put a row with every field first)")
            if not rows:
                first_line = line_no
            rows.append(row)
            size += len(raw)
            if (known is None and size >= STREAM_BLOCK_BYTES) or (known is not None and len(rows) >= batch_rows):
                table = _conformed(rows, known, f"{path.name}:{first_line}-{line_no}")
                if known is None:
                    known = dict(zip(table.column_names, table.schema.types))
                yield table
                rows = []
    if rows or count <= skip:
        yield _conformed(rows, known, f"{path.name}:{first_line}-")


def _conformed(rows: list[dict[str, Any]], known: dict[str, pa.DataType] | None, lines: str) -> pa.Table:
    """A batch's rows as readers._from_rows makes them, with the columns and value types the file's earlier rows
    fixed, so that every value reads as the whole-file reader would give it; `known` learns a type first seen here.

    Where the whole-file reader would keep a column as text (its values mix types), a later batch's values
    become that text (JSON for non-text values); a change the earlier batches cannot follow stops the read."""
    from clinreg.sources.readers import _from_rows

    table = _from_rows(rows)
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


# ------------------------------------------------------------------------------------------------- parquet


def _parquet_batches(path: Path, spec: TableSpec, fmt: str, batch_rows: int = 1000) -> Iterator[pa.Table]:
    import pyarrow.parquet as pq

    _checked_size(path)
    with pq.ParquetFile(path) as handle:
        seen = False
        for batch in handle.iter_batches(batch_size=batch_rows, use_threads=False):
            seen = True
            yield pa.Table.from_batches([batch])
        if not seen:
            yield handle.schema_arrow.empty_table()


def _xlsx_batches(path: Path, spec: TableSpec, fmt: str) -> Iterator[pa.Table]:
    from clinreg.sources.readers import xlsx_batches

    _checked_size(path)
    return xlsx_batches(path, spec, batch_rows=1000)


_BATCHES = {"csv": _csv_batches, "tsv": _csv_batches, "jsonl": _jsonl_batches, "parquet": _parquet_batches,
            "xlsx": _xlsx_batches}
