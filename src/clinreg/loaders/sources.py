"""Where a record's rows come from: a `--data-dir` mirror folder first, then the hub at the pinned revision."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlparse

from clinreg.loaders.errors import BuildError, SourceUnavailable
from clinreg.model import Dataset, GitHubSource, HubSource, LocalSource

HUB_PROBE_SECONDS = 0.5
HIDDEN_PREFIXES = (".",)
_TRUE = {"1", "on", "yes", "true"}


@dataclass
class DataLocation:
    """A resolved place to read a record from: a mirror folder, or a hub repo at a commit."""

    kind: str  # "mirror" or "hub"
    config: str | None
    folder: Path | None = None
    repo: str | None = None
    revision: str | None = None
    _content_hash: str | None = field(default=None, repr=False)

    def describe(self) -> dict[str, str]:
        """What the lock file records: the revision read, or the mirror's content hash."""
        if self.kind == "hub":
            return {"kind": "hub", "repo": self.repo or "", "revision": self.revision or ""}
        if self._content_hash is None:
            self._content_hash = content_hash(self.folder)
        return {"kind": "mirror", "folder": self.folder.name, "content_sha256": self._content_hash}


def folder_name(record: Dataset) -> str:
    """The mirror folder of a record: `<owner>__<name>` for hub and GitHub repos, else the record id."""
    if isinstance(record.source, (HubSource, GitHubSource)):
        return record.source.repo.replace("/", "__")
    return record.id


def is_private(record: Dataset) -> bool:
    return record.access.tier == "private" or isinstance(record.source, LocalSource)


def locate(record: Dataset, data_dir: str | Path | None, root: Path | None = None, *, hub: bool = True) -> DataLocation:
    """Resolve the source in order: the `--data-dir` mirror, a fixture folder in the registry, then the hub."""
    config = getattr(record.source, "config", None)
    name = folder_name(record)
    if data_dir is not None:
        base = Path(data_dir)
        if not base.is_dir():
            raise SourceUnavailable(f"{record.id}: --data-dir {base} is not a folder")
        folder = (base / name).resolve()
        if not folder.is_relative_to(base.resolve()) or folder == base.resolve():
            raise SourceUnavailable(f"{record.id}: mirror folder name {name!r} does not name a folder inside --data-dir")
        if folder.is_dir():
            return DataLocation("mirror", config, folder=folder)
    if isinstance(record.source, LocalSource) and record.source.path and root is not None:
        fixture = (root / record.source.path).resolve()
        if fixture.is_dir() and fixture.is_relative_to(root.resolve()):
            return DataLocation("mirror", config, folder=fixture)
    where = f"--data-dir DIR with its files in DIR/{name}"
    missing = f"no folder {name} in --data-dir {data_dir}; " if data_dir is not None else ""
    if is_private(record):
        what = "private" if record.access.tier == "private" else f"{record.access.tier}, held as local files,"
        raise SourceUnavailable(f"{record.id} is {what} and never downloaded; {missing}pass {where}")
    if not hub:
        raise SourceUnavailable(f"{record.id}: {missing or 'no --data-dir given; '}pass {where}")
    if not isinstance(record.source, HubSource):
        kind = record.source.type
        raise SourceUnavailable(f"{record.id} is read from {kind} files, not the hub: {missing}pass {where}")
    return _hub_location(record, config, name, missing)


def _hub_location(record: Dataset, config: str | None, name: str, missing: str) -> DataLocation:
    source = record.source
    offline = hub_offline_reason()
    if offline:
        raise SourceUnavailable(
            f"{record.id}: {missing}cannot read hub dataset {source.repo} ({offline}); "
            f"download it and pass --data-dir DIR with the repo in DIR/{name}"
        )
    try:
        from huggingface_hub import HfApi
        from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

        info = HfApi().dataset_info(source.repo, revision=source.revision, timeout=10)
    except GatedRepoError:
        raise SourceUnavailable(
            f"{record.id}: hub dataset {source.repo} is gated: accept its terms on the hub and log in "
            f"(`hf auth login` or HF_TOKEN), or pass --data-dir DIR with it in DIR/{name}"
        ) from None
    except RepositoryNotFoundError:
        raise SourceUnavailable(
            f"{record.id}: hub dataset {source.repo} was not found (or needs a login); pass --data-dir DIR with it in DIR/{name}"
        ) from None
    except Exception as err:  # HTTP errors, and httpx transport errors (which are not OSErrors)
        raise SourceUnavailable(
            f"{record.id}: cannot reach hub dataset {source.repo} ({type(err).__name__}); pass --data-dir DIR with it in DIR/{name}"
        ) from None
    return DataLocation("hub", config, repo=source.repo, revision=info.sha)


def hub_offline_reason() -> str | None:
    """Why the hub cannot be used right now, decided in well under a second, or None when it can."""
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in _TRUE:
            return f"{var}={os.environ[var]}"
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    host = urlparse(endpoint).hostname or "huggingface.co"
    port = urlparse(endpoint).port or (80 if endpoint.startswith("http:") else 443)
    if not _reachable(host, port, HUB_PROBE_SECONDS):
        return f"no network: {host} is unreachable"
    return None


def _reachable(host: str, port: int, timeout: float) -> bool:
    outcome: list[bool] = []

    def probe() -> None:
        try:
            socket.create_connection((host, port), timeout=timeout).close()
            outcome.append(True)
        except OSError:
            outcome.append(False)

    # A thread, because name resolution ignores socket timeouts and can hang for many seconds.
    worker = threading.Thread(target=probe, daemon=True)
    worker.start()
    worker.join(timeout)
    return bool(outcome and outcome[0])


def content_hash(folder: Path) -> str:
    """sha256 over every visible file of a mirror folder: relative path, size and bytes, in path order."""
    digest = hashlib.sha256()
    files = sorted(
        p for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(HIDDEN_PREFIXES) for part in p.relative_to(folder).parts)
    )
    for path in files:
        rel = path.relative_to(folder).as_posix()
        digest.update(f"{rel}\0{path.stat().st_size}\0".encode())
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


class SplitReader:
    """Opens splits of one location through `datasets`, with a cache folder private to this build.

    `datasets` keys its cache of a local folder on the folder's name and file patterns, so a rewritten file
    can come back stale and two folders with the same name share an entry. A fresh cache folder per build,
    removed by `close()`, rules out both.
    """

    def __init__(self, location: DataLocation, streaming: bool = False) -> None:
        self.location = location
        self.streaming = streaming
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
                yield from _parquet_batches(*local, batch_size)
                return
        data = self.open(split, record_id)
        batches = iter(data.with_format("arrow").iter(batch_size=batch_size))
        while True:
            try:
                table = next(batches)
            except StopIteration:
                return
            except Exception as err:  # a file that fails to parse half-way through
                raise SourceUnavailable(f"{record_id}: cannot read split {split!r}: {_one_line(err)}") from None
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
        except Exception:
            return None  # let the ordinary path raise its usual, located error
        data_files = builder.config.data_files or {}
        if not isinstance(builder, Parquet) or split not in data_files:
            return None
        features = builder.info.features
        if features is None:
            import pyarrow.parquet as pq

            first = next((f for files in data_files.values() for f in files), None)
            features = datasets.Features.from_arrow_schema(pq.read_schema(first)) if first else None
        return list(data_files[split]), features

    def _load(self, split: str, record_id: str) -> Any:
        import datasets

        loc = self.location
        path = str(loc.folder) if loc.kind == "mirror" else loc.repo
        kwargs: dict[str, Any] = {"split": split, "cache_dir": self.cache_dir, "streaming": self.streaming}
        if loc.config:
            kwargs["name"] = loc.config
        if loc.kind == "hub":
            kwargs["revision"] = loc.revision
        try:
            return datasets.load_dataset(path, **kwargs)
        except BuildError:
            raise
        except Exception as err:  # datasets raises many types; each becomes one located line
            where = f"mirror folder {loc.folder}" if loc.kind == "mirror" else f"hub dataset {loc.repo}@{loc.revision}"
            raise SourceUnavailable(f"{record_id}: cannot read split {split!r} of {where}: {_one_line(err)}") from None

    def close(self) -> None:
        self._splits.clear()
        shutil.rmtree(self.cache_dir, ignore_errors=True)


def _parquet_batches(files: list[str], features: Any, batch_size: int) -> Iterator[Any]:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from datasets.table import table_cast

    schema = None if features is None else features.arrow_schema
    for path in files:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=batch_size, use_threads=False):
            table = pa.Table.from_batches([batch])
            yield table if schema is None else table_cast(table, schema)


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 300 else text[:297] + "..."
