"""Where a record's rows come from: a `--data-dir` mirror folder first, then the hub at the pinned revision."""

from __future__ import annotations

from contextlib import closing

import hashlib
import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlparse

from clinreg.core.model import Dataset, GitHubSource, HubSource, LocalSource
from clinreg.sources.errors import BuildError, RecordProblem, SourceUnavailable, SplitMissing

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
    offline: bool = False  # read from huggingface_hub's cache without asking the hub
    branch: str | None = None  # the branch or tag the record names, resolved online to `revision`
    commit_read: str | None = None  # a mirror's commit, where its clone or its folder name says it (provenance)
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


def pinned_commit(record: Dataset) -> str | None:
    """The commit a GitHub `commit` or a hub `revision` pins (a 40-hex sha; a branch name pins nothing)."""
    if isinstance(record.source, GitHubSource):
        return record.source.commit or None
    if isinstance(record.source, HubSource) and record.source.revision and _COMMIT.fullmatch(record.source.revision):
        return record.source.revision
    return None


def expected_folder(record: Dataset) -> str:
    """The mirror folder a record reads, as a user would type it under --data-dir."""
    name = folder_name(record)
    commit = pinned_commit(record)
    if commit:
        return f"{name} (or {name}@{commit[:12]})"
    return name


def _mirror_folder(record: Dataset, base: Path) -> Path | None:
    """The record's folder inside --data-dir: `<owner>__<name>@<commit>` before `<owner>__<name>` for pinned repos."""
    name = folder_name(record)
    candidates = [name]
    commit = pinned_commit(record)
    if commit:
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
    """A notice when a pinned source is read from a plain folder whose commit cannot be confirmed."""
    commit = pinned_commit(record)
    if not commit or "@" in folder.name or git_head(folder) is not None:
        return None
    return (f"{record.id}: mirror folder {folder.name} is not a git clone, so it may hold another commit than "
            f"{commit[:12]}; name it {folder_name(record)}@{commit[:12]} to say which commit it holds")


def _check_commit(record: Dataset, folder: Path) -> None:
    """A git clone at another commit than the record pins (GitHub commit or hub revision) is refused: two records
    of one repo never mix, and provenance never names a commit that was not read."""
    commit = pinned_commit(record)
    if not commit:
        return
    head = git_head(folder)
    if head is not None and head != commit:
        raise SourceUnavailable(
            f"{record.id}: mirror folder {folder.name} is a clone at commit {head[:12]}, but the record pins "
            f"{commit[:12]}; check out that commit or put a copy in {folder_name(record)}@{commit[:12]}"
        )


def _commit_read(record: Dataset, folder: Path) -> str | None:
    """The commit a mirror folder holds, where it can be told: its clone's HEAD, or the `@<commit>` of its name."""
    head = git_head(folder)
    if head:
        return head
    commit = pinned_commit(record)
    if commit and "@" in folder.name and commit.startswith(folder.name.rsplit("@", 1)[1]):
        return commit
    return None


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
                                notices=[notice] if notice else [], commit_read=_commit_read(record, folder))
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
    """The hub repo at the record's revision, resolved to a commit: online through the hub, offline from its cache.

    Online, the revision is resolved by one repo-info request; offline (`HF_HUB_OFFLINE`, `HF_DATASETS_OFFLINE`),
    or when the hub cannot be reached, from huggingface_hub's cache (`HF_HUB_CACHE`), as `datasets` does.
    """
    source = record.source
    where = local_copy(name)
    offline = hub_offline_reason()
    if offline:
        commit = cached_commit(source.repo, source.revision)
        if commit is None:
            raise SourceUnavailable(
                f"{record.id}: {missing}hub dataset {source.repo}{_at(source.revision)} is not in the hub cache "
                f"({_cache_folder()}) and {offline}; build it once online, or {where}"
            )
        return DataLocation("hub", config, repo=source.repo, revision=commit, offline=True)
    try:
        from huggingface_hub import HfApi, constants

        with hub_quiet():
            info = HfApi().dataset_info(source.repo, revision=source.revision, timeout=constants.HF_HUB_ETAG_TIMEOUT)
    except Exception as err:  # HTTP errors, and transport errors (which are not OSErrors)
        problem = hub_problem(err, source.repo, source.revision, "reading its repository information")
        commit = cached_commit(source.repo, source.revision) if problem.transient else None
        if commit is not None:
            location = DataLocation("hub", config, repo=source.repo, revision=commit, offline=True)
            location.notices.append(f"{record.id}: {problem.text}; read the copy in the hub cache at commit {commit[:12]}")
            return location
        raise SourceUnavailable(f"{record.id}: {missing}{problem.text}; {problem.advise(where)}") from None
    branch = None if source.revision and _COMMIT.fullmatch(source.revision) else (source.revision or "main")
    return DataLocation("hub", config, repo=source.repo, revision=info.sha, branch=branch)


def local_copy(name: str) -> str:
    """The way around the hub that always remains: a copy of the repository in a --data-dir mirror."""
    return f"pass --data-dir DIR with it in DIR/{name}"


def _at(revision: str | None) -> str:
    return f"@{revision}" if revision else ""


def hub_offline_reason() -> str | None:
    """Why the hub must not be asked right now (huggingface_hub's or datasets' offline switch), or None."""
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in _TRUE:
            return f"{var}={os.environ[var]}"
    return None


_COMMIT = re.compile(r"[0-9a-f]{40}")


def _cache_folder() -> Path:
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def cached_commit(repo: str, revision: str | None) -> str | None:
    """The commit huggingface_hub's cache holds for `repo` at `revision` (a commit, or a branch it recorded)."""
    folder = _cache_folder() / ("datasets--" + repo.replace("/", "--"))
    if revision and _COMMIT.fullmatch(revision):
        return revision if (folder / "snapshots" / revision).is_dir() else None
    ref = revision or "main"
    if ".." in ref.split("/") or ref.startswith("/"):
        return None
    try:
        commit = (folder / "refs" / ref).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return commit if _COMMIT.fullmatch(commit) and (folder / "snapshots" / commit).is_dir() else None


@contextmanager
def hub_quiet() -> Iterator[None]:
    """huggingface_hub's retry and fallback warnings stay out of clinreg's output: a failure is reported once."""
    import logging

    logger = logging.getLogger("huggingface_hub")
    level = logger.level
    logger.setLevel(logging.ERROR + 10)
    try:
        yield
    finally:
        logger.setLevel(level)


@dataclass
class HubProblem:
    text: str
    advice: str = ""
    transient: bool = False  # the hub could not be reached or failed: a cached copy may stand in

    def advise(self, where: str) -> str:
        """The advice, then the way around the hub that always remains: a local copy."""
        return f"{self.advice}; or {where}" if self.advice else where


def _chain(err: BaseException | None) -> list[BaseException]:
    seen: list[BaseException] = []
    while err is not None and not any(err is s for s in seen):
        seen.append(err)
        err = err.__cause__ or err.__context__
    return seen


def hub_problem(err: BaseException, repo: str, revision: str | None, doing: str) -> HubProblem:
    """What went wrong with a hub request, in clinreg's words, whichever HTTP library huggingface_hub uses."""
    from huggingface_hub import constants
    from huggingface_hub import errors as hf

    endpoint = os.environ.get("HF_ENDPOINT") or constants.ENDPOINT
    host = urlparse(endpoint).netloc or endpoint
    chain = _chain(err)
    page = f"{endpoint.rstrip('/')}/datasets/{repo}"
    login = "log in with `hf auth login` or set HF_TOKEN"
    for item in chain:
        if isinstance(item, hf.RevisionNotFoundError):
            return HubProblem(f"revision {revision or 'main'} is not on the hub for {repo}",
                              "check source.revision in the record")
        if isinstance(item, hf.GatedRepoError) or _status(item) in (401, 403) and not isinstance(item, hf.RepositoryNotFoundError):
            return HubProblem(f"hub dataset {repo} is gated and refused access (HTTP {_status(item) or 401})",
                              f"accept its terms on its dataset page ({page}), then {login}")
        if isinstance(item, hf.RepositoryNotFoundError):
            return HubProblem(f"hub dataset {repo} was not found, or it is private and needs a login",
                              f"check source.repo, or {login}")
    for item in chain:
        kind = type(item).__name__
        if "Timeout" in kind:
            return HubProblem(
                f"the hub at {host} did not answer within its timeout while {doing} "
                f"(HF_HUB_ETAG_TIMEOUT={constants.HF_HUB_ETAG_TIMEOUT} s, "
                f"HF_HUB_DOWNLOAD_TIMEOUT={constants.HF_HUB_DOWNLOAD_TIMEOUT} s)",
                "try again later, or raise those timeouts", transient=True)
        if kind in ("ConnectError", "ConnectionError", "NewConnectionError", "ProxyError", "OfflineModeIsEnabled"):
            return HubProblem(f"no network: {host} is unreachable", transient=True)
    for item in chain:
        status = _status(item)
        if status is not None:
            return HubProblem(f"the hub at {host} failed with HTTP {status} while {doing}", "try again later",
                              transient=status >= 500)
    return HubProblem(f"cannot read hub dataset {repo}{_at(revision)} while {doing}: {_one_line(err)}")


def _status(err: BaseException) -> int | None:
    response = getattr(err, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


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
        except Exception as err:  # datasets raises many types; each becomes one located line
            # A wrong config or split is a plain ValueError that only datasets' words tell apart: read them here,
            # once, and carry what they say as the error's fields.
            said = str(err)
            config = {"path": ("source", "config")} if "BuilderConfig" in said else {}
            if loc.kind == "hub":
                problem = hub_problem(err, loc.repo, loc.revision, f"reading split {split!r}")
                where = local_copy(loc.repo.replace("/", "__"))
                raise SourceUnavailable(f"{record_id}: {problem.text}; {problem.advise(where)}", record=record_id,
                                        split=split, **config) from None
            message = f"{record_id}: cannot read split {split!r} of mirror folder {loc.folder}: {_one_line(err)}"
            if not config and ("Unknown split" in said or "Bad split" in said):
                raise SplitMissing(message, reason=_one_line(err), record=record_id, split=split) from None
            raise SourceUnavailable(message, record=record_id, split=split, **config) from None

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
            self._folder = _download_hub_files(self.location, self.read)
        return self._folder

    def spec(self, split: str, record_id: str):
        spec = self.read.splits.get(split)
        if spec is None:
            raise SourceUnavailable(f"{record_id}: split {split!r} is not in source.read.splits ({', '.join(self.read.splits)})")
        return spec

    def table(self, name: str, record_id: str, columns: list[str] | None = None):
        """A join's table, read once; with `columns`, only those columns are kept, batch by batch as the file is
        read where it streams with one type per column (CSV, parquet, xlsx), so that a join that needs the keys
        and one column of a large table does not hold the rest of it."""
        from clinreg.sources.readers import _concat, read_table

        key = (name, None if columns is None else tuple(columns))
        if key not in self._tables:
            spec = self.read.tables.get(name)
            if spec is None:
                raise RecordProblem(f"{record_id}: a join names table {name!r}, which is not in source.read.tables")
            where = f"{record_id}: table {name!r}"
            parts = self._projected(spec, where, columns) if columns is not None else None
            self._tables[key] = _concat(parts, where) if parts else read_table(self.folder(), spec, where, Path(self.cache_dir))
        return self._tables[key]

    def _projected(self, spec: Any, where: str, columns: list[str]) -> list[Any] | None:
        from clinreg.sources.readers import infer_format
        from clinreg.sources.streams import stream_table

        files = [spec.files] if isinstance(spec.files, str) else spec.files if isinstance(spec.files, list) else []
        formats = {spec.format or infer_format(f) for f in files}
        if not files or not formats <= {"csv", "tsv", "parquet", "xlsx"}:
            return None  # JSON lines' batches may type a column differently from one another: read whole
        stream = stream_table(self.folder(), spec, where)
        if stream is None:
            return None
        parts = []
        with closing(stream):
            for batch in stream:
                if not set(columns) <= set(batch.column_names):
                    return None  # a missing column: the whole table, and the join's own message
                parts.append(batch.select(columns))
        return parts

    def open(self, split: str, record_id: str) -> Any:
        from clinreg.sources.readers import read_table
        from clinreg.sources.steps import apply_steps

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
        from clinreg.sources.steps import StepRun
        from clinreg.sources.streams import stream_table

        spec = self.spec(split, record_id)
        where = f"{record_id}: split {split!r}"
        # Each read of the split counts its own dropped rows (several mappings read one split): a fresh count.
        self.dropped[split] = {}
        run = StepRun(spec.steps, lambda name: self.table(name, record_id), where, self.dropped[split],
                      columns=lambda name, names: self.table(name, record_id, names))
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
        for raw in stream:
            # A reader's block holds thousands of rows; the steps (which make Python values of whole columns)
            # and the instances see one batch at a time.
            for begin in range(0, max(raw.num_rows, 1), batch_size):
                table = run.apply(raw.slice(begin, batch_size))
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


def _download_hub_files(location: DataLocation, read: Any) -> Path:
    """The files `read` names, at the resolved commit, in the user's huggingface_hub cache.

    huggingface_hub keeps them there (`HF_HUB_CACHE`): a second build downloads nothing, and an offline build
    reads what an earlier one fetched. The snapshot's files are links into the cache's blobs, which the readers
    accept (readers.hub_blobs).
    """
    from huggingface_hub import snapshot_download

    patterns = []
    for spec in [*read.splits.values(), *read.tables.values()]:
        files = spec.files if isinstance(spec.files, list) else list(spec.files.values()) if isinstance(spec.files, dict) else [spec.files]
        files = [spec.archive] if spec.archive else files
        patterns.extend(re.sub(r"\{[A-Za-z_][A-Za-z0-9_]*\}", "*", f) for f in files)
    try:
        with hub_quiet():
            path = snapshot_download(
                location.repo, repo_type="dataset", revision=location.revision, allow_patterns=patterns,
                local_files_only=location.offline,
            )
    except Exception as err:  # HTTP and transport errors of every kind become one line
        problem = hub_problem(err, location.repo, location.revision, "downloading its files")
        if location.offline:
            problem = HubProblem(f"the hub cache holds {location.repo}@{location.revision[:12]}, but not every file "
                                 f"source.read names", "build it once online")
        where = local_copy(location.repo.replace("/", "__"))
        raise SourceUnavailable(f"{location.record_id}: {problem.text}; {problem.advise(where)}") from None
    if not location.offline and location.branch is not None:
        remember_branch(location.repo, location.branch, location.revision)
    return Path(path)


def remember_branch(repo: str, branch: str, commit: str) -> None:
    """Record in the hub cache which commit `branch` named, as huggingface_hub does when it resolves a branch.

    The download asked for the commit itself (so that every file comes from the one commit the build resolved),
    which huggingface_hub does not note under `refs/`; without the note an offline build could not find it.
    """
    if ".." in branch.split("/") or branch.startswith("/"):
        return
    ref = _cache_folder() / ("datasets--" + repo.replace("/", "--")) / "refs" / branch
    try:
        if ref.is_file() and ref.read_text(encoding="ascii").strip() == commit:
            return
        ref.parent.mkdir(parents=True, exist_ok=True)
        temp = ref.with_name(f".{ref.name}.{os.getpid()}.tmp")
        temp.write_text(commit, encoding="ascii")
        os.replace(temp, ref)
    except OSError:
        pass  # a read-only cache: the next offline build says the copy is missing, nothing worse


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
