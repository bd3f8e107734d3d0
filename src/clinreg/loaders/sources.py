"""Where a record's rows come from: a `--data-dir` mirror folder first, then the hub at the pinned revision."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlparse

from clinreg.core.model import Dataset, GitHubSource, HubSource, LocalSource
from clinreg.loaders.errors import BuildError, RecordProblem, SourceUnavailable

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
    read: Any = None  # the record's `source.read`, when its files are read by clinreg's own readers
    record_id: str = ""
    notices: list[str] = field(default_factory=list)
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


def expected_folder(record: Dataset) -> str:
    """The mirror folder a record reads, as a user would type it under --data-dir."""
    name = folder_name(record)
    commit = getattr(record.source, "commit", None)
    if isinstance(record.source, GitHubSource) and commit:
        return f"{name} (or {name}@{commit[:12]})"
    return name


def _mirror_folder(record: Dataset, base: Path) -> Path | None:
    """The record's folder inside --data-dir: `<owner>__<name>@<commit>` before `<owner>__<name>` for pinned repos."""
    name = folder_name(record)
    candidates = [name]
    commit = getattr(record.source, "commit", None)
    if isinstance(record.source, GitHubSource) and commit:
        candidates = [f"{name}@{commit}", f"{name}@{commit[:12]}", name]
    root = base.resolve()
    for candidate in candidates:
        folder = (base / candidate).resolve()
        if not folder.is_relative_to(root) or folder == root:
            raise SourceUnavailable(f"{record.id}: mirror folder name {candidate!r} does not name a folder inside --data-dir")
        if folder.is_dir():
            _check_commit(record, folder)
            return folder
    return None


def unverified_commit(record: Dataset, folder: Path) -> str | None:
    """A notice when a pinned GitHub source is read from a plain folder whose commit cannot be confirmed."""
    commit = getattr(record.source, "commit", None)
    if not isinstance(record.source, GitHubSource) or not commit or "@" in folder.name or git_head(folder) is not None:
        return None
    return (f"{record.id}: mirror folder {folder.name} is not a git clone, so it may hold another commit than "
            f"{commit[:12]}; name it {folder_name(record)}@{commit[:12]} to say which commit it holds")


def _check_commit(record: Dataset, folder: Path) -> None:
    """A git clone at another commit than the record pins is refused: two records of one repo never mix."""
    commit = getattr(record.source, "commit", None)
    if not isinstance(record.source, GitHubSource) or not commit:
        return
    head = git_head(folder)
    if head is not None and head != commit:
        raise SourceUnavailable(
            f"{record.id}: mirror folder {folder.name} is a clone at commit {head[:12]}, but the record pins "
            f"{commit[:12]}; check out that commit or put a copy in {folder_name(record)}@{commit[:12]}"
        )


def git_head(folder: Path) -> str | None:
    """The commit a clone's HEAD names, read from its .git files (no git needed), or None."""
    git = folder / ".git"
    try:
        if git.is_file():  # a linked worktree or submodule: `.git` names the real git folder
            pointer = git.read_text(encoding="utf-8", errors="replace").strip()
            if not pointer.startswith("gitdir:"):
                return None
            git = (folder / pointer[7:].strip()).resolve()
        if not git.is_dir():
            return None
        head = (git / "HEAD").read_text(encoding="ascii", errors="replace").strip()
        if not head.startswith("ref:"):
            return head.lower() or None
        ref = head[4:].strip()
        places = [git]
        common = git / "commondir"  # a worktree keeps its branches in the main repository's git folder
        if common.is_file():
            places.append((git / common.read_text(encoding="utf-8", errors="replace").strip()).resolve())
        for place in places:
            ref_file = (place / ref).resolve()
            if ref_file.is_relative_to(place.resolve()) and ref_file.is_file():
                return ref_file.read_text(encoding="ascii", errors="replace").strip().lower()
            packed = place / "packed-refs"
            if packed.is_file():
                for line in packed.read_text(encoding="ascii", errors="replace").splitlines():
                    sha, _, name = line.partition(" ")
                    if name.strip() == ref:
                        return sha.lower()
    except OSError:
        return None
    return None


def locate(record: Dataset, data_dir: str | Path | None, root: Path | None = None, *, hub: bool = True) -> DataLocation:
    """Resolve the source in order: the `--data-dir` mirror, a fixture folder in the registry, then the hub."""
    config = getattr(record.source, "config", None)
    read = getattr(record.source, "read", None)
    name = folder_name(record)
    if data_dir is not None:
        base = Path(data_dir)
        if not base.is_dir():
            raise SourceUnavailable(f"{record.id}: --data-dir {base} is not a folder")
        folder = _mirror_folder(record, base)
        if folder is not None:
            notice = unverified_commit(record, folder)
            return DataLocation("mirror", config, folder=folder, read=read, record_id=record.id,
                                notices=[notice] if notice else [])
    if isinstance(record.source, LocalSource) and record.source.path and root is not None:
        fixture = (root / record.source.path).resolve()
        if fixture.is_dir() and fixture.is_relative_to(root.resolve()):
            return DataLocation("mirror", config, folder=fixture, read=read, record_id=record.id)
    expected = expected_folder(record)
    where = f"--data-dir DIR with its files in DIR/{expected}"
    missing = f"no folder {expected} in --data-dir {data_dir}; " if data_dir is not None else ""
    if is_private(record):
        what = "private" if record.access.tier == "private" else f"{record.access.tier}, held as local files,"
        raise SourceUnavailable(f"{record.id} is {what} and never downloaded; {missing}pass {where}")
    if not hub:
        raise SourceUnavailable(f"{record.id}: {missing or 'no --data-dir given; '}pass {where}")
    if not isinstance(record.source, HubSource):
        kind = record.source.type
        raise SourceUnavailable(f"{record.id} is read from {kind} files, not the hub: {missing}pass {where}")
    location = _hub_location(record, config, name, missing)
    location.read, location.record_id = read, record.id
    return location


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
    if not _reachable(endpoint, HUB_PROBE_SECONDS):
        return f"no network: {urlparse(endpoint).hostname or endpoint} is unreachable"
    return None


def _reachable(endpoint: str, timeout: float) -> bool:
    """Whether the hub answers at all (any HTTP status), through huggingface_hub's own HTTP session.

    That session is the one the download will use, so it honours the same proxy settings (HTTPS_PROXY,
    NO_PROXY) and certificates; a raw socket would call a proxied network unreachable.
    """
    outcome: list[bool] = []

    def probe() -> None:
        try:
            from huggingface_hub.utils import get_session

            get_session().head(endpoint, timeout=timeout)
            outcome.append(True)
        except Exception:  # connection refused, DNS failure, proxy error, timeout: all mean "not now"
            outcome.append(False)

    # A thread, because name resolution ignores timeouts and can hang for many seconds.
    worker = threading.Thread(target=probe, daemon=True)
    worker.start()
    worker.join(timeout + 0.2)
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


MAX_README_BYTES = 1 << 20


def check_mirror_metadata(folder: Path, record_id: str) -> None:
    """Refuse a mirror README whose `data_files` or `data_dir` name a path outside the mirror folder.

    `datasets` reads a folder's README front matter as configuration. In a mirror it is data from whoever
    made the copy, so every path it names must stay inside the folder: no absolute path, no `..`, no link out.
    """
    readme = folder / "README.md"
    if not readme.is_file():
        return
    if readme.stat().st_size > MAX_README_BYTES:
        raise SourceUnavailable(f"{record_id}: {folder.name}/README.md is larger than {MAX_README_BYTES} bytes")
    text = readme.read_text(encoding="utf-8", errors="replace")
    if not text.startswith("---"):
        return
    end = text.find("\n---", 3)
    if end < 0:
        return
    import yaml

    try:
        front = yaml.load(text[3:end], Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        raise SourceUnavailable(f"{record_id}: {folder.name}/README.md front matter is not YAML: {_one_line(err)}") from None
    configs = front.get("configs") if isinstance(front, dict) else None
    root = folder.resolve()
    for config in configs if isinstance(configs, list) else []:
        if not isinstance(config, dict):
            continue
        for key, path in _metadata_paths(config):
            bad = _escapes(root, path)
            if bad:
                raise SourceUnavailable(
                    f"{record_id}: {folder.name}/README.md: {key} {path!r} {bad}; a mirror's files must stay inside its folder"
                )


def _metadata_paths(config: dict) -> Iterator[tuple[str, Any]]:
    if "data_dir" in config:
        yield "data_dir", config["data_dir"]
    files = config.get("data_files")
    entries = files if isinstance(files, list) else [files] if files is not None else []
    for entry in entries:
        paths = entry.get("path") if isinstance(entry, dict) else entry
        for path in paths if isinstance(paths, list) else [paths]:
            yield "data_files", path


def _escapes(root: Path, path: Any) -> str | None:
    if not isinstance(path, str):
        return "is not a path" if path is not None else None
    if path.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", path) or "://" in path:
        return "is absolute or remote"
    parts = path.replace("\\", "/").split("/")
    if ".." in parts:
        return "climbs out with '..'"
    fixed = []
    for part in parts:
        if any(c in part for c in "*?[{"):
            break
        fixed.append(part)
    if fixed and not (root.joinpath(*fixed)).resolve().is_relative_to(root):
        return "leads out of the folder through a link"
    return None


class FileSplitReader:
    """Reads a record's splits with clinreg's own readers, as `source.read` declares them (no `datasets`).

    Each split's table is read whole (the formats involved have no row groups to stream) and then served in
    batches, except a plain parquet split with no steps, which streams file by file with flat memory.
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
            self._folder = _download_hub_files(self.location, self.read, Path(self.cache_dir))
        return self._folder

    def spec(self, split: str, record_id: str):
        spec = self.read.splits.get(split)
        if spec is None:
            raise SourceUnavailable(f"{record_id}: split {split!r} is not in source.read.splits ({', '.join(self.read.splits)})")
        return spec

    def table(self, name: str, record_id: str):
        from clinreg.loaders.readers import read_table

        if name not in self._tables:
            spec = self.read.tables.get(name)
            if spec is None:
                raise RecordProblem(f"{record_id}: a join names table {name!r}, which is not in source.read.tables")
            self._tables[name] = read_table(self.folder(), spec, f"{record_id}: table {name!r}", Path(self.cache_dir))
        return self._tables[name]

    def open(self, split: str, record_id: str) -> Any:
        from clinreg.loaders.readers import read_table
        from clinreg.loaders.steps import apply_steps

        if split not in self._splits:
            spec = self.spec(split, record_id)
            where = f"{record_id}: split {split!r}"
            table = read_table(self.folder(), spec, where, Path(self.cache_dir))
            counts = self.dropped.setdefault(split, {})
            table = apply_steps(table, spec.steps, lambda name: self.table(name, record_id), where, counts)
            self._splits[split] = table
        return self._splits[split]

    def num_rows(self, split: str, record_id: str) -> int | None:
        if self._streams(split, record_id):
            return None
        return self.open(split, record_id).num_rows

    def _streams(self, split: str, record_id: str) -> bool:
        from clinreg.loaders.readers import infer_format

        spec = self.spec(split, record_id)
        fmt = spec.format or (infer_format(spec.files) if isinstance(spec.files, str) else None)
        return self.streaming and fmt == "parquet" and not spec.steps and isinstance(spec.files, str) and spec.archive is None

    def batches(self, split: str, record_id: str, batch_size: int) -> Iterator[Any]:
        if self._streams(split, record_id):
            from clinreg.loaders.readers import match_files

            spec = self.spec(split, record_id)
            matched = match_files(self.folder(), spec.files, spec.where, f"{record_id}: split {split!r}")
            if not matched:
                raise SourceUnavailable(f"{record_id}: split {split!r}: no file matches {spec.files!r} in {self.folder()}")
            from clinreg.loaders.readers import _with_parts

            for item in matched:
                for table in _parquet_batches([str(item.path)], None, batch_size):
                    yield _with_parts(table, item.parts, f"{record_id}: split {split!r}") if item.parts else table
            return
        table = self.open(split, record_id)
        for start in range(0, table.num_rows, batch_size):
            yield table.slice(start, batch_size)

    def close(self) -> None:
        self._splits.clear()
        self._tables.clear()
        shutil.rmtree(self.cache_dir, ignore_errors=True)


def open_reader(location: DataLocation, streaming: bool = False) -> "FileSplitReader | SplitReader":
    """The reader for a location: clinreg's own readers when the record declares `source.read`, else `datasets`."""
    if location.read is not None:
        return FileSplitReader(location, streaming=streaming)
    return SplitReader(location, streaming=streaming)


def _download_hub_files(location: DataLocation, read: Any, cache_dir: Path) -> Path:
    """The files `read` names, fetched from the hub repo at the pinned revision into this build's cache."""
    from huggingface_hub import snapshot_download

    patterns = []
    for spec in [*read.splits.values(), *read.tables.values()]:
        files = spec.files if isinstance(spec.files, list) else list(spec.files.values()) if isinstance(spec.files, dict) else [spec.files]
        files = [spec.archive] if spec.archive else files
        patterns.extend(re.sub(r"\{[A-Za-z_][A-Za-z0-9_]*\}", "*", f) for f in files)
    try:
        path = snapshot_download(
            location.repo, repo_type="dataset", revision=location.revision, allow_patterns=patterns,
            cache_dir=str(cache_dir / "hub"),
        )
    except Exception as err:  # HTTP and transport errors of every kind become one line
        raise SourceUnavailable(
            f"{location.record_id}: cannot download {location.repo}@{location.revision}: {_one_line(err)}"
        ) from None
    return Path(path)


def _parquet_batches(files: list[str], features: Any, batch_size: int) -> Iterator[Any]:
    import pyarrow as pa
    import pyarrow.parquet as pq
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
    import pyarrow as pa

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
                f"({_one_line(err)}) by datasets {version}{advice}"
            ) from None


def _older_than(version: str, floor: tuple[int, ...]) -> bool:
    parts = []
    for piece in version.split(".")[: len(floor)]:
        digits = "".join(c for c in piece if c.isdigit()) if piece[:1].isdigit() else ""
        parts.append(int(digits[:9]) if digits else 0)
    return tuple(parts) < floor


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 300 else text[:297] + "..."
