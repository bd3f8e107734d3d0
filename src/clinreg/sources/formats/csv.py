"""CSV and TSV files, whole or in batches: through Arrow's C++ reader where the file is plain UTF-8 and Arrow
reads it exactly as the Python reader would, else with the csv module. Every value is text, as the file has it."""

from __future__ import annotations

import csv
import io
import struct
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.model import TableSpec
from clinreg.errors import ClinregError
from clinreg.sources.files import checked_size, open_bytes, read_text
from clinreg.sources.formats.arrow import ARROW_ERRORS

MAX_CELL_CHARS = 50_000_000


class CarriageReturns(ClinregError, OSError):
    """Raised inside Arrow's read when the text holds what LineFeeds cannot hand it safely (an OSError, so that
    the reader's own error handling sends the file the Python way)."""

    default_code = "CLR901"


class LineFeeds(io.RawIOBase):
    """A byte stream with every CRLF as LF, as the Python readers read text (`files.read_text`), also inside quoted
    values. Arrow's CSV reader loses the LF of a quoted CRLF that a block boundary splits (found by the
    streamed-CSV hypothesis test), so it is never given one. A CR that ends a chunk waits for the next.

    Arrow's reading thread calls `read` with the GIL held, so the build's own thread waits while Python code runs
    here: each call is one read of the inner stream, handed on as the bytes it makes (no copy into a buffer), with
    one search for a CR where the chunk has none. Where it has, Arrow's own kernel makes the CRLFs LFs, without
    the GIL (`_crlf_as_lf`)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.pending = b""  # what `readinto` has not handed on yet
        self.held = b""  # the CRs (at most two) that ended the last chunk

    def readable(self) -> bool:
        return True

    def _next(self, size: int) -> bytes:
        """The next piece, from about `size` bytes of the inner stream (longer only by CRs held from the last one,
        where `size` is that small); b"" at the end."""
        while True:
            chunk = self.inner.read(max(1, size - len(self.held)))
            if not chunk:
                chunk, self.held = self.held, b""
                return chunk
            if self.held:
                chunk = self.held + chunk
            # The last two CRs of the chunk wait for what follows: CR CR | LF must meet the check below whole. The
            # CRs before them go on (no LF can follow them), so a file of CRs is never held whole.
            kept = chunk.rstrip(b"\r")
            if len(chunk) - len(kept) > 2:
                kept = chunk[:-2]
            self.held = chunk[len(kept):]
            if kept:
                break
        return kept if b"\r" not in kept else _crlf_as_lf(kept)

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            rest, self.pending = self.pending, b""
            return rest + b"".join(iter(lambda: self._next(1 << 20), b""))
        if not self.pending:
            self.pending = self._next(size) if size else b""
        # Most calls take the piece whole: a slice to its length is the piece itself, no copy.
        out, self.pending = self.pending[:size], self.pending[size:]
        return out

    def readinto(self, buffer: Any) -> int:
        if not self.pending:
            self.pending = self._next(1 << 20)
        n = min(len(buffer), len(self.pending))
        buffer[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n

    def close(self) -> None:
        self.inner.close()
        super().close()


def _crlf_as_lf(data: bytes) -> bytes:
    """`data` with each CRLF as LF, made by Arrow's kernel, which lets go of the GIL while it runs (`re.sub` and
    `bytes.replace` hold it, and cost more: 0.76 and 1.80 ms a MiB of MEDEC's CSV, against 0.36 and a copy).

    CR CR LF reads as CR LF, which Arrow could split at a block boundary: such a text raises CarriageReturns, and
    the Python reader decides. Only a CR that is not part of a CRLF can start one; each CRLF made the text a byte
    shorter, so where there are as many CRs as bytes saved, there is none (numpy counts them without the GIL)."""
    array = pa.Array.from_buffers(pa.large_binary(), 1, [None, pa.py_buffer(_OFFSETS.pack(0, len(data))),
                                                        pa.py_buffer(data)])
    out = pc.replace_substring(array, "\r\n", "\n", memory_pool=_POOL)[0].as_buffer()
    if np.count_nonzero(np.frombuffer(data, np.uint8) == 13) != len(data) - len(out) and b"\r\r\n" in data:
        raise CarriageReturns("a CR before a CRLF")
    return out.to_pybytes()


_OFFSETS = struct.Struct("=qq")  # a large binary array's offsets: one value, from 0 to its length
# The kernel's output is copied out and freed at once: from malloc, whose heap the next piece reuses, not from Arrow's
# default pool, which kept such buffers (a million MEDEC rows peaked at 311 and 327 MiB with it, 295 to 300 with this,
# 280 and 287 with re.sub).
_POOL = pa.system_memory_pool()


def csv_bytes(path: Path) -> Any:
    """The file's bytes for Arrow's CSV reader: unpacked within the bound (`open_bytes`), CRLF read as LF."""
    return LineFeeds(open_bytes(path))


def read_csv(path: Path, spec: TableSpec, delimiter: str = ",") -> pa.Table:
    """Every value as text, as the file has it. Through Arrow's C++ reader where the file is plain UTF-8 and
    Arrow reads it as the Python reader would; else with the csv module, as before."""
    table = _read_csv_arrow(path, spec, delimiter)
    return table if table is not None else _read_csv_python(path, spec, delimiter)


def _arrow_header(path: Path, spec: TableSpec, sep: str) -> list[str] | None:
    """The header, when Arrow's reader may try the file (the whole file, or in batches); else None."""
    if spec.encoding.lower().replace("-", "").replace("_", "") != "utf8" or not checked_size(path):
        return None
    with open_bytes(path) as handle:  # a .gz file unpacks as a stream, within the inflation bound
        first = handle.readline(1 << 20)
    line = first[:-2] if first.endswith(b"\r\n") else first.rstrip(b"\n")
    if first.startswith(b"\xef\xbb\xbf") or b'"' in line or b"\r" in line:
        return None  # a byte-order mark, or a header the csv module parses its own way: the Python reader decides
    header = line.decode("utf-8", errors="replace").split(sep)
    if len(set(header)) != len(header) or any(not h for h in header):
        return None  # the Python reader names repeated columns
    return header


def _convert_options(header: list[str]) -> pcsv.ConvertOptions:
    """Every column as text, an empty field as null: as the Python reader reads them."""
    return pcsv.ConvertOptions(column_types={h: pa.string() for h in header}, strings_can_be_null=True,
                               null_values=[""], quoted_strings_can_be_null=True)


def _read_csv_arrow(path: Path, spec: TableSpec, delimiter: str) -> pa.Table | None:
    sep = spec.delimiter or delimiter
    header = _arrow_header(path, spec, sep)
    if header is None:
        return None
    try:
        with csv_bytes(path) as source:
            table = pcsv.read_csv(
                source,
                read_options=pcsv.ReadOptions(use_threads=False, block_size=8 << 20),
                parse_options=pcsv.ParseOptions(delimiter=sep, newlines_in_values=True, ignore_empty_lines=True),
                convert_options=_convert_options(header),
            )
    except ARROW_ERRORS:
        return None  # ragged rows, bad UTF-8, a field over Arrow's limits: the Python reader decides
    if table.column_names != header:
        return None
    columns = []
    for column in table.columns:
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
        if pc.any(pc.match_substring(column, "\r")).as_py():
            # The Python reader reads the text with CRLF as LF, inside quoted values too.
            column = pc.replace_substring(column, "\r\n", "\n")
        columns.append(column)
    return pa.table(columns, names=header)


def _read_csv_python(path: Path, spec: TableSpec, delimiter: str = ",") -> pa.Table:
    text = read_text(path, spec.encoding)
    csv.field_size_limit(MAX_CELL_CHARS)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=spec.delimiter or delimiter)
    header = next(reader, None)
    if header is None:
        return pa.table({})
    if len(set(header)) != len(header):
        dupes = sorted({h for h in header if header.count(h) > 1})
        raise SourceUnavailable(f"{path.name}: the header repeats column(s) {', '.join(map(repr, dupes))}")
    columns: list[list[str | None]] = [[] for _ in header]
    line_no = reader.line_num + 1  # the file line a record starts on (a quoted field can span lines)
    for record in reader:
        start, line_no = line_no, reader.line_num + 1
        if not record:
            continue  # a blank line is no record (pandas, and so `datasets`, skip them too)
        if len(record) > len(header):
            # Some files end every record in empty fields the header does not name (Medbullets' `,,,,,`).
            if any(field.strip() for field in record[len(header):]):
                raise SourceUnavailable(f"{path.name}:{start}: {len(record)} fields where the header has {len(header)}")
            record = record[: len(header)]
        for i, column in enumerate(columns):
            value = record[i] if i < len(record) else ""
            column.append(value if value != "" else None)
    # Every value stays text, as the file has it: `0`/`1` labels, ids with leading zeros, `TRUE`/`FALSE`.
    return pa.table({name: pa.array(values, pa.string()) for name, values in zip(header, columns)})


def csv_batches(path: Path, spec: TableSpec, delimiter: str, block_bytes: int) -> Iterator[pa.Table]:
    """The file's rows in batches, each exactly the rows read_csv gives for them: through Arrow's streaming
    reader in blocks of `block_bytes` where read_csv would use Arrow, else (or from where Arrow fails) the csv
    module's, a thousand rows at a time. At least one table."""
    sep = spec.delimiter or delimiter
    done = 0
    header = _arrow_header(path, spec, sep)
    if header is not None:
        stack = ExitStack()
        try:
            reader = pcsv.open_csv(
                stack.enter_context(csv_bytes(path)),
                read_options=pcsv.ReadOptions(use_threads=False, block_size=block_bytes),
                parse_options=pcsv.ParseOptions(delimiter=sep, newlines_in_values=True, ignore_empty_lines=True),
                convert_options=_convert_options(header),
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
        except ARROW_ERRORS:
            pass  # ragged rows, bad UTF-8, a field over Arrow's limits: the Python reader decides, from here on
        finally:
            stack.close()
    yield from _csv_python_batches(path, spec, sep, done)


def _csv_python_batches(path: Path, spec: TableSpec, sep: str, skip: int, batch_rows: int = 1000) -> Iterator[pa.Table]:
    """_read_csv_python, a batch at a time, leaving out the first `skip` records (Arrow read them)."""
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
                    raise SourceUnavailable(f"{path.name}:{start}: {len(record)} fields where the header has "
                                            f"{len(header)}")
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
        [(v.replace("\r\n", "\n") if "\r" in v else v) if (v := (r[i] if i < len(r) else "")) != "" else None
         for r in rows]
        for i in range(len(header))
    ]
    return pa.table({name: pa.array(values, pa.string()) for name, values in zip(header, columns)})
