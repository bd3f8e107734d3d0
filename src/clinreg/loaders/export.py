"""Write instance batches as canonical JSON lines, Parquet or a saved `datasets` folder, atomically."""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator

from clinreg.loaders.batch import InstanceBatch
from clinreg.safeio import atomic_open

FORMATS = ("jsonl", "json", "parquet", "hf")


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


_quote = json.encoder.encode_basestring  # the C quoting json.dumps uses with ensure_ascii=False
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_json_default)


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 text: the form the lock file hashes."""
    return _CANONICAL.encode(value)


def _text(value: str | None) -> str:
    return "null" if value is None else _quote(value)


def _texts(values: list[str]) -> str:
    return "[" + ",".join(map(_quote, values)) + "]"


def canonical_lines(batches: Iterable[InstanceBatch]) -> Iterator[str]:
    """Each instance as `canonical_json(row) + "\\n"`, assembled field by field (keys already in sorted order).

    The per-batch constants are encoded once; this is the hot loop of every JSON-lines build and lock.
    """
    for batch in batches:
        stem = f"{batch.dataset}/{batch.mapping}/{batch.split}/"
        dataset, mapping = _quote(batch.dataset), _quote(batch.mapping)
        split, tasks = _quote(batch.split), _texts(batch.tasks)
        for variant, index, text, choices, answer, refs, meta in zip(
            batch.variant, batch.source_index, batch.input, batch.choices, batch.answer, batch.references, batch.metadata
        ):
            instance_id = f"{stem}{index}" if variant is None else f"{stem}{index}/{variant}"
            yield (
                f'{{"answer":{_text(answer)},"choices":{_texts(choices)},"dataset":{dataset},"id":{_quote(instance_id)},'
                f'"input":{_quote(text)},"mapping":{mapping},"metadata":{_CANONICAL.encode(meta) if meta else "{}"},'
                f'"references":{_texts(refs)},"source_index":{index},"split":{split},"tasks":{tasks},'
                f'"variant":{_text(variant)}}}\n'
            )


def hash_instances(batches: Iterable[InstanceBatch]) -> tuple[str, int]:
    """sha256 of the canonical JSON lines (each ending in a newline), and how many there were."""
    digest, count = hashlib.sha256(), 0
    for line in canonical_lines(batches):
        digest.update(line.encode("utf-8"))
        count += 1
    return digest.hexdigest(), count


def write_instances(batches: Iterable[InstanceBatch], fmt: str, output: str | Path | None) -> int:
    """Write every instance; return how many. JSON lines go to stdout when `output` is None."""
    if fmt == "jsonl":
        return _write_jsonl(batches, output)
    if fmt == "json":
        return _write_json(batches, output)
    if output is None:
        raise ValueError(f"--format {fmt} needs -o PATH")
    if fmt == "parquet":
        with atomic_open(output, "wb", encoding=None) as handle:
            return _write_parquet(batches, handle)
    if fmt == "hf":
        return _write_hf(batches, Path(output))
    raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")


def _write_jsonl(batches: Iterable[InstanceBatch], output: str | Path | None) -> int:
    count = 0
    if output is None or str(output) == "-":
        for line in canonical_lines(batches):
            sys.stdout.write(line)
            count += 1
        sys.stdout.flush()
        return count
    with atomic_open(output, "w") as handle:
        for line in canonical_lines(batches):
            handle.write(line)
            count += 1
    return count


def _json_array(batches: Iterable[InstanceBatch]) -> Iterator[str]:
    """The instances as one JSON array, streamed piece by piece (one canonical instance per line)."""
    first = True
    yield "["
    for line in canonical_lines(batches):
        yield ("\n" if first else ",\n") + line.rstrip("\n")
        first = False
    yield "\n]\n" if not first else "]\n"


def _write_json(batches: Iterable[InstanceBatch], output: str | Path | None) -> int:
    count = 0

    def counted() -> Iterator[InstanceBatch]:
        nonlocal count
        for batch in batches:
            count += len(batch.source_index)
            yield batch

    if output is None or str(output) == "-":
        for piece in _json_array(counted()):
            sys.stdout.write(piece)
        sys.stdout.flush()
        return count
    with atomic_open(output, "w") as handle:
        for piece in _json_array(counted()):
            handle.write(piece)
    return count


def arrow_schema():
    import pyarrow as pa

    text_list = pa.list_(pa.string())
    return pa.schema(
        [
            ("id", pa.string()), ("dataset", pa.string()), ("mapping", pa.string()), ("tasks", text_list),
            ("split", pa.string()), ("variant", pa.string()), ("input", pa.string()), ("choices", text_list),
            ("answer", pa.string()), ("references", text_list), ("metadata", pa.string()), ("source_index", pa.int64()),
        ],
        metadata={b"clinreg": b"metadata holds a JSON object as text"},
    )


def to_arrow(batch: InstanceBatch):
    """One instance batch as an Arrow table; `metadata` becomes canonical JSON text."""
    import pyarrow as pa

    schema = arrow_schema()
    columns: dict[str, list] = {name: [] for name in schema.names}
    for row in batch.rows():
        for name in schema.names:
            value = row[name]
            columns[name].append(canonical_json(value) if name == "metadata" else value)
    return pa.table(columns, schema=schema)


def _write_parquet(batches: Iterable[InstanceBatch], handle) -> int:
    import pyarrow.parquet as pq

    count = 0
    with pq.ParquetWriter(handle, arrow_schema()) as writer:
        for batch in batches:
            if len(batch):
                writer.write_table(to_arrow(batch))
                count += len(batch)
    return count


def _write_hf(batches: Iterable[InstanceBatch], output: Path) -> int:
    """A `datasets.save_to_disk` folder whose `metadata` column is a Json feature (decoded to a dict)."""
    import datasets

    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}.", dir=output.parent))
    try:
        parquet = work / "instances.parquet"
        with parquet.open("wb") as handle:
            count = _write_parquet(batches, handle)
        dataset = datasets.Dataset.from_parquet(str(parquet), cache_dir=str(work / "cache"), split="train")
        dataset = dataset.cast_column("metadata", datasets.Json())
        staged = work / "saved"
        dataset.save_to_disk(str(staged))
        _replace_folder(staged, output)
        return count
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _replace_folder(staged: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    final = target.parent / f".{target.name}.new"
    shutil.rmtree(final, ignore_errors=True)
    shutil.move(str(staged), str(final))
    old = target.parent / f".{target.name}.old"
    if target.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(target, old)
    os.replace(final, target)
    shutil.rmtree(old, ignore_errors=True)

