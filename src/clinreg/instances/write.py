"""Instance files: write instance batches as canonical JSON lines, a folder of Parquet shards or a saved `datasets`
folder, atomically."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from clinreg.instances.batch import InstanceBatch
from clinreg.instances.canonical import canonical_chunks, canonical_json, canonical_lines
from clinreg.text.safeio import BackgroundWrites, atomic_open

FORMATS = ("jsonl", "json", "parquet", "hf")
SHARD_ROWS = 100_000


def write_instances(
    batches: Iterable[InstanceBatch],
    fmt: str,
    output: str | Path | None,
    *,
    shard_rows: int = SHARD_ROWS,
    info: dict[str, str] | None = None,
) -> int:
    """Write every instance; return how many. JSON lines go to stdout when `output` is None.

    `parquet` writes a folder of shards of at most `shard_rows` rows; `hf` a `datasets.save_to_disk` folder
    with one split per source split and `info` (description, license, citation, homepage) in its DatasetInfo.
    """
    if fmt == "jsonl":
        return _write_jsonl(batches, output)
    if fmt == "json":
        return _write_json(batches, output)
    if output is None:
        raise ValueError(f"--format {fmt} needs -o PATH")
    if fmt == "parquet":
        return _write_parquet_folder(batches, Path(output), shard_rows)
    if fmt == "hf":
        return _write_hf(batches, Path(output), info or {})
    raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")


def _write_jsonl(batches: Iterable[InstanceBatch], output: str | Path | None) -> int:
    count = 0
    if output is None or str(output) == "-":
        sys.stdout.flush()
        raw = getattr(sys.stdout, "buffer", None)
        for chunk, lines in canonical_chunks(batches):
            if raw is None:
                sys.stdout.write(chunk.decode("utf-8"))
            else:
                raw.write(chunk)
            count += lines
        (raw or sys.stdout).flush()
        return count
    with atomic_open(output, "wb") as handle:
        writes = BackgroundWrites(handle)  # the next batch is built while this one is written
        try:
            for chunk, lines in canonical_chunks(batches):
                writes.write(chunk)
                count += lines
        except BaseException:
            writes.abandon()
            raise
        writes.close()
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
    text, text_list = pa.string(), pa.list_(pa.string())
    gold = pa.struct([("kind", text), ("letter", text), ("index", pa.int64()), ("value", text), ("lower", text),
                      ("upper", text)])
    source = pa.struct([("kind", text), ("repo", text), ("revision", text), ("content_sha256", text)])
    provenance = pa.struct([
        ("instance_schema", pa.int64()), ("record", text), ("record_version", text), ("registry_release", text),
        ("clinreg_version", text), ("canary", text), ("source", source),
    ])
    return pa.schema(
        [
            ("id", text), ("dataset", text), ("mapping", text), ("tasks", text_list), ("split", text),
            ("variant", text), ("source_index", pa.int64()), ("prompt", text), ("input", text), ("choices", text_list),
            ("answer", text), ("gold", gold), ("references", text_list), ("context", text), ("provenance", provenance),
        ],
        metadata={b"clinreg": b"context holds a JSON object as text", b"clinreg_instance_schema": b"2"},
    )


def to_arrow(batch: InstanceBatch):
    """One instance batch as an Arrow table; `context` becomes canonical JSON text."""
    schema = arrow_schema()
    n = len(batch)
    stem = f"{batch.dataset}/{batch.mapping}/{batch.split}/"
    columns = {
        "id": [f"{stem}{i}" if v is None else f"{stem}{i}/{v}"
               for v, i in zip(batch.variant, batch.source_index)],
        "dataset": [batch.dataset] * n,
        "mapping": [batch.mapping] * n,
        "tasks": [batch.tasks] * n,
        "split": [batch.split] * n,
        "variant": batch.variant,
        "source_index": batch.source_index,
        "prompt": batch.prompt,
        "input": batch.input,
        "choices": batch.choices,
        "answer": [g["letter"] for g in batch.gold],
        "gold": batch.gold,
        "references": batch.references,
        "context": [canonical_json(c) for c in batch.context],
        "provenance": [batch.provenance] * n,
    }
    return pa.table(columns, schema=schema)


def _write_parquet(batches: Iterable[InstanceBatch], handle) -> int:
    count = 0
    with pq.ParquetWriter(handle, arrow_schema()) as writer:
        for batch in batches:
            if len(batch):
                writer.write_table(to_arrow(batch))
                count += len(batch)
    return count


def _write_parquet_folder(batches: Iterable[InstanceBatch], output: Path, shard_rows: int) -> int:
    """Shards `part-00000.parquet`, ... of at most `shard_rows` rows each, swapped into place when all are written.

    A plain folder of same-schema files: `pyarrow.dataset.dataset(DIR)`, Spark's `read.parquet(DIR)` and Ray's
    `read_parquet(DIR)` read it as it is.
    """
    if shard_rows < 1:
        raise ValueError("shard rows must be at least 1")
    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}.", dir=output.parent))
    try:
        staged = work / "shards"
        staged.mkdir()
        count, shard, writer, in_shard = 0, 0, None, 0
        try:
            for batch in batches:
                table = to_arrow(batch) if len(batch) else None
                while table is not None and table.num_rows:
                    if writer is None:
                        writer = pq.ParquetWriter(staged / f"part-{shard:05d}.parquet", arrow_schema())
                    take = min(shard_rows - in_shard, table.num_rows)
                    writer.write_table(table.slice(0, take))
                    table = table.slice(take)
                    in_shard += take
                    count += take
                    if in_shard == shard_rows:
                        writer.close()
                        writer, in_shard, shard = None, 0, shard + 1
            if writer is None and count == 0:  # an empty build still gives a readable dataset with the schema
                writer = pq.ParquetWriter(staged / "part-00000.parquet", arrow_schema())
        finally:
            if writer is not None:
                writer.close()
        replace_folder(staged, output)
        return count
    finally:
        shutil.rmtree(work, ignore_errors=True)


def hf_split_names(batches: Iterable[InstanceBatch]) -> Iterator[tuple[str, InstanceBatch]]:
    """Each batch with its `datasets` split: the source split; `<mapping>__<split>` for a record's later mappings."""
    first = None
    for batch in batches:
        first = batch.mapping if first is None else first
        yield (batch.split if batch.mapping == first else f"{batch.mapping}__{batch.split}"), batch


def _write_hf(batches: Iterable[InstanceBatch], output: Path, info: dict[str, str]) -> int:
    """A `datasets.save_to_disk` DatasetDict folder, one split per source split, readable by every allowed `datasets`.

    `context` stays JSON text, because the `Json` feature exists only in recent `datasets` releases.
    """
    import datasets  # only this format needs it: the others write without loading datasets

    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}.", dir=output.parent))
    try:
        writers: dict[str, Any] = {}
        count = 0
        try:
            for name, batch in hf_split_names(batches):
                if name not in writers:
                    writers[name] = pq.ParquetWriter(work / f"{name}.parquet", arrow_schema())
                if len(batch):
                    writers[name].write_table(to_arrow(batch))
                    count += len(batch)
        finally:
            for writer in writers.values():
                writer.close()
        if not writers:
            pq.write_table(arrow_schema().empty_table(), work / "test.parquet")
            writers["test"] = None
        splits = {}
        for name in writers:
            split = datasets.Dataset.from_parquet(str(work / f"{name}.parquet"), cache_dir=str(work / "cache"),
                                                  split=name)
            split.info.description = info.get("description", "")
            split.info.license = info.get("license", "")
            split.info.citation = info.get("citation", "")
            split.info.homepage = info.get("homepage", "")
            splits[name] = split
        staged = work / "saved"
        datasets.DatasetDict(splits).save_to_disk(str(staged))
        replace_folder(staged, output)
        return count
    finally:
        shutil.rmtree(work, ignore_errors=True)


def replace_folder(staged: Path, target: Path) -> None:
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


def record_info(record: Any) -> dict[str, str]:
    """Description, licence, citation and homepage of a record, for a saved dataset's DatasetInfo."""
    licence = record.licence.spdx + (f" ({record.licence.note})" if record.licence.note else "")
    citation = record.citation.text
    if record.citation.doi:
        citation += f" doi:{record.citation.doi}"
    if record.citation.arxiv:
        citation += f" arXiv:{record.citation.arxiv}"
    repo = getattr(record.source, "repo", None)
    homepage = record.citation.url or ""
    if not homepage and repo and record.source.type == "huggingface":
        homepage = f"hf://datasets/{repo}"
    return {"description": " ".join(record.description.split()), "license": licence, "citation": citation,
            "homepage": homepage}
