"""The hub: a record's repository resolved to a commit (online by one request, offline from huggingface_hub's
cache), the files `source.read` names downloaded into that cache, and what went wrong with a hub request in
clinreg's words. huggingface_hub is imported only when the hub is asked."""

from __future__ import annotations

import logging
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlparse

from clinreg.core.builderrors import SourceUnavailable, one_line
from clinreg.core.model import Dataset
from clinreg.core.specfiles import file_patterns
from clinreg.sources.location import COMMIT_SHA, DataLocation

_TRUE = {"1", "on", "yes", "true"}


def hub_location(record: Dataset, config: str | None, name: str, missing: str) -> DataLocation:
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
    except Exception as err:  # noqa: BLE001 - HTTP errors, and transport errors (which are not OSErrors)
        problem = hub_problem(err, source.repo, source.revision, "reading its repository information")
        commit = cached_commit(source.repo, source.revision) if problem.transient else None
        if commit is not None:
            location = DataLocation("hub", config, repo=source.repo, revision=commit, offline=True)
            location.notices.append(f"{record.id}: {problem.text}; read the copy in the hub cache at commit "
                                    f"{commit[:12]}")
            return location
        raise SourceUnavailable(f"{record.id}: {missing}{problem.text}; {problem.advise(where)}") from None
    branch = None if source.revision and COMMIT_SHA.fullmatch(source.revision) else (source.revision or "main")
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


def _cache_folder() -> Path:
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def cached_commit(repo: str, revision: str | None) -> str | None:
    """The commit huggingface_hub's cache holds for `repo` at `revision` (a commit, or a branch it recorded)."""
    folder = _cache_folder() / ("datasets--" + repo.replace("/", "--"))
    if revision and COMMIT_SHA.fullmatch(revision):
        return revision if (folder / "snapshots" / revision).is_dir() else None
    ref = revision or "main"
    if ".." in ref.split("/") or ref.startswith("/"):
        return None
    try:
        commit = (folder / "refs" / ref).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return commit if COMMIT_SHA.fullmatch(commit) and (folder / "snapshots" / commit).is_dir() else None


@contextmanager
def hub_quiet() -> Iterator[None]:
    """huggingface_hub's retry and fallback warnings stay out of clinreg's output: a failure is reported once."""
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
        if (isinstance(item, hf.GatedRepoError) or _status(item) in (401, 403)
            and not isinstance(item, hf.RepositoryNotFoundError)):
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
    return HubProblem(f"cannot read hub dataset {repo}{_at(revision)} while {doing}: {one_line(err)}")


def _status(err: BaseException) -> int | None:
    response = getattr(err, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def download_hub_files(location: DataLocation, read: Any) -> Path:
    """The files `read` names, at the resolved commit, in the user's huggingface_hub cache.

    huggingface_hub keeps them there (`HF_HUB_CACHE`): a second build downloads nothing, and an offline build
    reads what an earlier one fetched. The snapshot's files are links into the cache's blobs, which the readers
    accept (files.hub_blobs).
    """
    from huggingface_hub import snapshot_download

    patterns = []
    for spec in [*read.splits.values(), *read.tables.values()]:
        files = [spec.archive] if spec.archive else file_patterns(spec.files)
        patterns.extend(re.sub(r"\{[A-Za-z_][A-Za-z0-9_]*\}", "*", f) for f in files)
    try:
        with hub_quiet():
            path = snapshot_download(
                location.repo, repo_type="dataset", revision=location.revision, allow_patterns=patterns,
                local_files_only=location.offline,
            )
    except Exception as err:  # noqa: BLE001 - HTTP and transport errors of every kind become one line
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
