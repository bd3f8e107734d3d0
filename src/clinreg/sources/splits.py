"""A located record's splits, read in batches: through `datasets` (SplitReader), or, for a record that declares
`source.read`, through clinreg's own readers and read steps (FileSplitReader), streamed where they allow it."""

from __future__ import annotations

import shutil
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from clinreg.core.builderrors import BuildError, RecordProblem, SourceUnavailable, SplitMissing, one_line
from clinreg.core.model import TableSpec
from clinreg.core.specfiles import file_patterns
from clinreg.sources.diskjoin import DiskTable, over_threshold, spillable
from clinreg.sources.files import infer_format
from clinreg.sources.hub import download_hub_files, hub_problem, hub_quiet, local_copy
from clinreg.sources.location import DataLocation
from clinreg.sources.mirror import check_mirror_metadata
from clinreg.sources.read import concat_tables, read_table
from clinreg.sources.steps import StepRun, apply_steps
from clinreg.sources.streams import stream_table


class SplitReader:
    """Opens splits of one location through `datasets`, with a cache folder private to this build.

    `datasets` keys its cache of a local folder on the folder's name and file patterns, so a rewritten file
    can come back stale and two folders with the same name share an entry. A fresh cache folder per build,
    removed by `close()`, rules out both.
    """

    def __init__(self, location: DataLocation, streaming: bool = False) -> None:
        self.location = location
        self.streaming = streaming
        if location.kind == "mirror" and location.folder is not None:
            check_mirror_metadata(location.folder, location.record_id or location.folder.name)
        self.cache_dir = tempfile.mkdtemp(prefix="clinreg-cache-")
        self._splits: dict[str, Any] = {}

    def open(self, split: str, record_id: str) -> Any:
        """The split as a `datasets.Dataset` (or `IterableDataset` when streaming)."""
        if split not in self._splits:
            self._splits[split] = self._load(split, record_id)
        return self._splits[split]

    def num_rows(self, split: str, record_id: str) -> int | None:
        data = self.open(split, record_id)
        return None if self.streaming else len(data)

    def batches(self, split: str, record_id: str, batch_size: int) -> Iterator[Any]:
        """The split as Arrow tables of at most `batch_size` rows, in source order."""
        if self.streaming and self.location.kind == "mirror":
            local = self._local_parquet(split, record_id)
            if local is not None:
                yield from _local_parquet_batches(*local, batch_size)
                return
        data = self.open(split, record_id)
        batches = iter(data.with_format("arrow").iter(batch_size=batch_size))
        while True:
            try:
                table = next(batches)
            except StopIteration:
                return
            except Exception as err:  # noqa: BLE001 - a file that fails to parse half-way through
                raise SourceUnavailable(f"{record_id}: cannot read split {split!r}: {one_line(err)}") from None
            _check_nested(table, split, record_id)
            yield table

    def _local_parquet(self, split: str, record_id: str) -> tuple[list[str], Any] | None:
        """Files and features of a local parquet split, to stream without `datasets`' read-ahead.

        `datasets` streams parquet through a threaded pyarrow scanner that reads ahead of a slow consumer
        without bound (hundreds of MB for a million rows); a plain single-threaded reader keeps memory flat.
        """
        import datasets
        from datasets.packaged_modules.parquet.parquet import Parquet

        loc = self.location
        try:
            builder = datasets.load_dataset_builder(str(loc.folder), name=loc.config, cache_dir=self.cache_dir)
        except Exception:  # noqa: BLE001 - datasets raises many types
            return None  # let the ordinary path raise its usual, located error
        data_files = builder.config.data_files or {}
        if not isinstance(builder, Parquet) or split not in data_files:
            return None
        features = builder.info.features
        if features is None:
            first = next((f for files in data_files.values() for f in files), None)
            features = datasets.Features.from_arrow_schema(pq.read_schema(first)) if first else None
        return list(data_files[split]), features

    def _load(self, split: str, record_id: str) -> Any:
        import datasets

        loc = self.location
        path = str(loc.folder) if loc.kind == "mirror" else loc.repo
        kwargs: dict[str, Any] = {"split": split, "streaming": self.streaming}
        if loc.config:
            kwargs["name"] = loc.config
        if loc.kind == "hub":  # the user's datasets cache: a second build downloads nothing
            kwargs["revision"] = loc.revision
        else:
            kwargs["cache_dir"] = self.cache_dir
        try:
            with hub_quiet():
                return datasets.load_dataset(path, **kwargs)
        except BuildError:
            raise
        except Exception as err:  # noqa: BLE001 - datasets raises many types; each becomes one located line
            # A wrong config or split is a plain ValueError that only datasets' words tell apart: read them here,
            # once, and carry what they say as the error's fields.
            said = str(err)
            config = {"path": ("source", "config")} if "BuilderConfig" in said else {}
            if loc.kind == "hub":
                problem = hub_problem(err, loc.repo, loc.revision, f"reading split {split!r}")
                where = local_copy(loc.repo.replace("/", "__"))
                raise SourceUnavailable(f"{record_id}: {problem.text}; {problem.advise(where)}", record=record_id,
                                        split=split, **config) from None
            message = f"{record_id}: cannot read split {split!r} of mirror folder {loc.folder}: {one_line(err)}"
            if not config and ("Unknown split" in said or "Bad split" in said):
                raise SplitMissing(message, reason=one_line(err), record=record_id, split=split) from None
            raise SourceUnavailable(message, record=record_id, split=split, **config) from None

    def close(self) -> None:
        self._splits.clear()
        shutil.rmtree(self.cache_dir, ignore_errors=True)


def _local_parquet_batches(files: list[str], features: Any, batch_size: int) -> Iterator[Any]:
    from datasets.table import table_cast

    schema = None if features is None else features.arrow_schema
    for path in files:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=batch_size, use_threads=False):
            table = pa.Table.from_batches([batch])
            yield table if schema is None else table_cast(table, schema)


def _check_nested(table: Any, split: str, record_id: str) -> None:
    """Refuse a batch whose list or struct columns are not valid Arrow.

    `datasets` before 5.2 reads a JSON list that mixes nulls and numbers (`[null, 0]`) into a list array whose
    offsets point past its values; every later step would fail on it with an Arrow index error, or read
    garbage. Only nested columns can carry that fault, so flat tables cost nothing here.
    """
    for index, field in enumerate(table.schema):
        if not pa.types.is_nested(field.type):
            continue
        try:
            table.column(index).validate(full=True)
        except pa.ArrowException as err:
            import datasets

            version = datasets.__version__
            advice = "; datasets 5.2 or later reads it correctly" if _older_than(version, (5, 2)) else ""
            raise SourceUnavailable(
                f"{record_id}: split {split!r}: column {field.name!r} was read into an invalid Arrow array "
                f"({one_line(err)}) by datasets {version}{advice}"
            ) from None


def _older_than(version: str, floor: tuple[int, ...]) -> bool:
    parts = []
    for piece in version.split(".")[: len(floor)]:
        digits = "".join(c for c in piece if c.isdigit()) if piece[:1].isdigit() else ""
        parts.append(int(digits[:9]) if digits else 0)
    return tuple(parts) < floor


class FileSplitReader:
    """Reads a record's splits with clinreg's own readers, as `source.read` declares them (no `datasets`).

    A split streams batch by batch where its files and steps allow it (CSV, JSON lines, parquet, xlsx; steps that
    work row by row), whatever `streaming` says (it matters to the `datasets` path); other splits are read whole
    and then served in batches.
    """

    def __init__(self, location: DataLocation, streaming: bool = False) -> None:
        self.location = location
        self.streaming = streaming
        self.read = location.read
        self.cache_dir = tempfile.mkdtemp(prefix="clinreg-cache-")
        self._folder: Path | None = location.folder
        self._tables: dict[str, Any] = {}
        self._splits: dict[str, Any] = {}
        self.dropped: dict[str, dict[str, int]] = {}

    def folder(self) -> Path:
        if self._folder is None:
            self._folder = download_hub_files(self.location, self.read)
        return self._folder

    def spec(self, split: str, record_id: str) -> TableSpec:
        spec = self.read.splits.get(split)
        if spec is None:
            raise SourceUnavailable(f"{record_id}: split {split!r} is not in source.read.splits "
                                    f"({', '.join(self.read.splits)})")
        return spec

    def table(self, name: str, record_id: str, columns: list[str] | None = None, spill: bool = False):
        """A join's table, read once; with `columns`, only those columns are kept, batch by batch as the file is
        read where it streams with one type per column (CSV, parquet, xlsx), so that a join that needs the keys
        and one column of a large table does not hold the rest of it. With `spill`, a text table (CSV, TSV,
        xlsx) that passes diskjoin's threshold is kept on disk, a `DiskTable`."""
        key = (name, None if columns is None else tuple(columns), spill)
        if key not in self._tables:
            spec = self.read.tables.get(name)
            if spec is None:
                raise RecordProblem(f"{record_id}: a join names table {name!r}, which is not in source.read.tables")
            where = f"{record_id}: table {name!r}"
            parts = self._projected(spec, where, columns, spill) if columns is not None else None
            if isinstance(parts, DiskTable):
                self._tables[key] = parts
            else:
                self._tables[key] = (concat_tables(parts, where) if parts
                                     else read_table(self.folder(), spec, where, Path(self.cache_dir)))
        return self._tables[key]

    def _projected(self, spec: Any, where: str, columns: list[str],
                   spill: bool = False) -> list[Any] | DiskTable | None:
        files = file_patterns(spec.files)
        formats = {spec.format or infer_format(f) for f in files}
        if not files or not formats <= {"csv", "tsv", "parquet", "xlsx"}:
            return None  # JSON lines' batches may type a column differently from one another: read whole
        spill = spill and formats <= {"csv", "tsv", "xlsx"}  # every value text
        stream = stream_table(self.folder(), spec, where)
        if stream is None:
            return None
        parts: list[Any] = []
        rows = size = 0
        disk = None
        try:
            with closing(stream):
                for batch in stream:
                    if not set(columns) <= set(batch.column_names):
                        if disk is not None:
                            disk.close()
                        return None  # a missing column: the whole table, and the join's own message
                    batch = batch.select(columns)
                    if disk is not None:
                        disk.append(batch)
                        continue
                    parts.append(batch)
                    rows, size = rows + batch.num_rows, size + batch.nbytes
                    if spill and over_threshold(rows, size) and all(spillable(p) for p in parts):
                        disk = DiskTable(self.cache_dir, columns, batch.schema.types)
                        for part in parts:
                            disk.append(part)
                        parts = []
        except BaseException:
            if disk is not None:
                disk.close()
            raise
        return disk.finish() if disk is not None else parts

    def open(self, split: str, record_id: str) -> Any:
        if split not in self._splits:
            spec = self.spec(split, record_id)
            where = f"{record_id}: split {split!r}"
            table = read_table(self.folder(), spec, where, Path(self.cache_dir))
            counts = self.dropped.setdefault(split, {})
            table = apply_steps(table, spec.steps, lambda name: self.table(name, record_id), where, counts)
            self._splits[split] = table
        return self._splits[split]

    def num_rows(self, split: str, record_id: str) -> int | None:
        if split not in self._splits and self._stream(split, record_id) is not None:
            return None  # counting the rows would read the files once more
        return self.open(split, record_id).num_rows

    def _stream(self, split: str, record_id: str) -> tuple[Any, Any] | None:
        """The split's files as a stream of tables and its steps, when both can go batch by batch; else None."""
        spec = self.spec(split, record_id)
        where = f"{record_id}: split {split!r}"
        # Each read of the split counts its own dropped rows (several mappings read one split): a fresh count.
        self.dropped[split] = {}
        run = StepRun(spec.steps, lambda name: self.table(name, record_id), where, self.dropped[split],
                      columns=lambda name, names, spill: self.table(name, record_id, names, spill))
        if not run.streamable:
            return None
        stream = stream_table(self.folder(), spec, where)
        return None if stream is None else (stream, run)

    def batches(self, split: str, record_id: str, batch_size: int) -> Iterator[Any]:
        """The split in tables of at most `batch_size` rows, in source order.

        Read and transformed batch by batch where the files and steps allow it (streams.stream_table,
        steps.StepRun), so that memory holds a batch, a join's right table and the output, not the split;
        otherwise read whole, as before."""
        streamed = None if split in self._splits else self._stream(split, record_id)
        if streamed is None:
            table = self.open(split, record_id)
            for start in range(0, table.num_rows, batch_size):
                yield table.slice(start, batch_size)
            return
        stream, run = streamed
        run.read_joins()  # before the split's reader opens and reads ahead
        for raw in stream:
            # A reader's block holds thousands of rows; the steps (which make Python values of whole columns)
            # and the instances see one batch at a time.
            for begin in range(0, max(raw.num_rows, 1), batch_size):
                table = run.apply(raw.slice(begin, batch_size))
                for start in range(0, table.num_rows, batch_size):
                    yield table.slice(start, batch_size)

    def close(self) -> None:
        self._splits.clear()
        for table in self._tables.values():
            if isinstance(table, DiskTable):
                table.close()
        self._tables.clear()
        shutil.rmtree(self.cache_dir, ignore_errors=True)
