"""Read a split's files batch by batch (issue 26): memory bounded by the batch, not by the file.

CSV and JSON lines go through Arrow's streaming C++ readers where the whole-file readers (sources.formats) would
use Arrow, and through the same Python parsing otherwise; parquet streams by record batch. Every batch holds exactly
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
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.json as pj
import pyarrow.parquet as pq

from clinreg.core.model import TableSpec
from clinreg.core.specfiles import file_patterns
from clinreg.sources.files import MatchedFile, checked_size, infer_format, match_files, open_bytes
from clinreg.sources.formats.arrow import parquet_batches
from clinreg.sources.formats.csv import csv_batches
from clinreg.sources.formats.jsonl import jsonl_batches
from clinreg.sources.formats.office import xlsx_batches
from clinreg.sources.read import located, with_parts
from clinreg.sources.readahead import read_ahead

# Arrow's block, and the Python readers' first batch of JSON lines: the part of a file that fixes its columns.
# 2 MiB keeps a build of a million rows under 250 MB (8 MiB blocks took it to about 500 MB: Arrow's memory
# pool keeps the freed blocks' pages for a while) and still holds a thousand rows of a typical record.
STREAM_BLOCK_BYTES = 2 << 20
STREAM_FORMATS = ("csv", "tsv", "jsonl", "parquet", "xlsx")
# Encodings in which a newline byte is always a newline (JSON lines are split on bytes before decoding).
_BYTE_LINE_ENCODINGS = {"utf-8", "utf-8-sig", "ascii", "latin-1", "iso8859-1", "cp1252", "iso8859-15"}


def stream_table(folder: Path, spec: TableSpec, where: str) -> Iterator[pa.Table] | None:
    """The spec's rows as a stream of tables, or None when the spec's files cannot be streamed."""
    if spec.archive is not None or isinstance(spec.files, dict):
        return None
    files: list[tuple[str, MatchedFile]] = []
    for pattern in file_patterns(spec.files):
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
            schemas = [pq.read_schema(item.path) for _, item in files]
            return all(s.equals(schemas[0]) for s in schemas)
        sep = spec.delimiter or ("\t" if files[0][0] == "tsv" else ",")
        heads = []
        for _, item in files:
            with open_bytes(item.path) as handle:
                heads.append(handle.readline(1 << 20).rstrip(b"\r\n").split(sep.encode()))
        return all(h == heads[0] for h in heads)
    except Exception:  # noqa: BLE001 - any failure to read the heads means: not the same header
        return False


def _located(files: list[tuple[str, MatchedFile]], spec: TableSpec, where: str) -> Iterator[pa.Table]:
    """Each file's batches, with its pattern parts as columns; a parser's error becomes one located line, as
    read.read_table makes it. At least one (possibly empty) table, so that the steps always see the columns."""
    yielded = False
    empty = None
    for fmt, item in files:
        batches = _batches(fmt, item.path, spec)
        while True:
            try:
                table = next(batches)
            except StopIteration:
                break
            except Exception as err:  # noqa: BLE001 - any reader failure becomes one located error
                raise located(err, where, item, fmt) from None
            table = with_parts(table, item.parts, where) if item.parts else table
            if table.num_rows:
                yielded = True
                yield table
            elif empty is None:
                empty = table
    if not yielded:
        yield empty if empty is not None else pa.table({})


def _batches(fmt: str, path: Path, spec: TableSpec) -> Iterator[pa.Table]:
    """The file's batches, by its format's reader (sources.formats)."""
    # Arrow parses the next block on a second thread while this one is built (readahead.py).
    if fmt in ("csv", "tsv"):
        return read_ahead(csv_batches(path, spec, "\t" if fmt == "tsv" else ",", STREAM_BLOCK_BYTES))
    if fmt == "jsonl":
        return read_ahead(jsonl_batches(path, spec, STREAM_BLOCK_BYTES))
    if fmt == "parquet":
        return parquet_batches(path)
    checked_size(path)  # as the batches are set up, before openpyxl opens the workbook
    return xlsx_batches(path, spec, batch_rows=1000)
