"""Arrow's own formats: parquet (whole, or in record batches), feather and Arrow IPC files and streams."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from clinreg.core.model import TableSpec
from clinreg.sources.files import checked_size

# What Arrow's readers raise on a file they cannot read as the Python readers would (ragged rows, bad UTF-8, a
# value over Arrow's limits): the CSV and JSON-lines readers then read it the Python way.
ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowCapacityError, OSError)


def read_parquet(path: Path, spec: TableSpec) -> pa.Table:
    return pq.read_table(path, use_threads=False)


def parquet_batches(path: Path, batch_rows: int = 1000) -> Iterator[pa.Table]:
    """The file's row groups as tables of `batch_rows` rows; at least one (empty, with the file's columns)."""
    checked_size(path)
    with pq.ParquetFile(path) as handle:
        seen = False
        for batch in handle.iter_batches(batch_size=batch_rows, use_threads=False):
            seen = True
            yield pa.Table.from_batches([batch])
        if not seen:
            yield handle.schema_arrow.empty_table()


def read_feather(path: Path, spec: TableSpec) -> pa.Table:
    return feather.read_table(path, use_threads=False)


def read_arrow(path: Path, spec: TableSpec) -> pa.Table:
    with pa.memory_map(str(path)) as source:
        try:
            return ipc.open_file(source).read_all()
        except pa.ArrowInvalid:
            source.seek(0)
            return ipc.open_stream(source).read_all()
