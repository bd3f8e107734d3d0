"""A record's mirror folder under `--data-dir`: its name (`<owner>__<name>`, with `@<commit>` for a pinned
repository), the commit a git clone's HEAD names, the checks that a folder holds the commit the record pins,
and the check of a mirror README that `datasets` would read as configuration."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import yaml

from clinreg.core.builderrors import SourceUnavailable, one_line
from clinreg.core.model import Dataset, GitHubSource, HubSource
from clinreg.sources.location import COMMIT_SHA
from clinreg.text.safeio import read_regular_file

MAX_GIT_FILE_BYTES = 64 * 1024 * 1024  # packed-refs of a large clone is a few megabytes; HEAD and refs a line


def folder_name(record: Dataset) -> str:
    """The mirror folder of a record: `<owner>__<name>` for hub and GitHub repos, else the record id."""
    if isinstance(record.source, (HubSource, GitHubSource)):
        return record.source.repo.replace("/", "__")
    return record.id


def pinned_commit_sha(record: Dataset) -> str | None:
    """The commit a GitHub `commit` or a hub `revision` pins (a 40-hex sha; a branch name pins nothing)."""
    if isinstance(record.source, GitHubSource):
        return record.source.commit or None
    if isinstance(record.source, HubSource) and record.source.revision and COMMIT_SHA.fullmatch(record.source.revision):
        return record.source.revision
    return None


def expected_folder(record: Dataset) -> str:
    """The mirror folder a record reads, as a user would type it under --data-dir."""
    name = folder_name(record)
    commit = pinned_commit_sha(record)
    if commit:
        return f"{name} (or {name}@{commit[:12]})"
    return name


def mirror_folder(record: Dataset, base: Path) -> Path | None:
    """The record's folder inside --data-dir: `<owner>__<name>@<commit>` before `<owner>__<name>` for pinned repos."""
    name = folder_name(record)
    candidates = [name]
    commit = pinned_commit_sha(record)
    if commit:
        candidates = [f"{name}@{commit}", f"{name}@{commit[:12]}", name]
    root = base.resolve()
    for candidate in candidates:
        folder = (base / candidate).resolve()
        if not folder.is_relative_to(root) or folder == root:
            raise SourceUnavailable(f"{record.id}: mirror folder name {candidate!r} does not name a folder inside "
                                    "--data-dir")
        if folder.is_dir():
            _check_commit(record, folder)
            return folder
    return None


def unverified_commit(record: Dataset, folder: Path) -> str | None:
    """A notice when a pinned source is read from a plain folder whose commit cannot be confirmed."""
    commit = pinned_commit_sha(record)
    if not commit or "@" in folder.name or git_head(folder) is not None:
        return None
    return (f"{record.id}: mirror folder {folder.name} is not a git clone, so it may hold another commit than "
            f"{commit[:12]}; name it {folder_name(record)}@{commit[:12]} to say which commit it holds")


def _check_commit(record: Dataset, folder: Path) -> None:
    """A git clone at another commit than the record pins (GitHub commit or hub revision) is refused: two records
    of one repo never mix, and provenance never names a commit that was not read."""
    commit = pinned_commit_sha(record)
    if not commit:
        return
    head = git_head(folder)
    if head is not None and head != commit:
        raise SourceUnavailable(
            f"{record.id}: mirror folder {folder.name} is a clone at commit {head[:12]}, but the record pins "
            f"{commit[:12]}; check out that commit or put a copy in {folder_name(record)}@{commit[:12]}"
        )


def folder_commit(record: Dataset, folder: Path) -> str | None:
    """The commit a mirror folder holds, where it can be told: its clone's HEAD, or the `@<commit>` of its name."""
    head = git_head(folder)
    if head:
        return head
    commit = pinned_commit_sha(record)
    if commit and "@" in folder.name and commit.startswith(folder.name.rsplit("@", 1)[1]):
        return commit
    return None


def _git_text(path: Path, encoding: str = "ascii") -> str:
    """A small file of a clone's git folder, stripped: a FIFO or a device in its place is refused (OSError), not
    read."""
    return read_regular_file(path, MAX_GIT_FILE_BYTES).decode(encoding, errors="replace").strip()


def git_head(folder: Path) -> str | None:
    """The commit a clone's HEAD names, read from its .git files (no git needed), or None."""
    git = folder / ".git"
    try:
        if git.is_file():  # a linked worktree or submodule: `.git` names the real git folder
            pointer = _git_text(git, "utf-8")
            if not pointer.startswith("gitdir:"):
                return None
            git = (folder / pointer[7:].strip()).resolve()
        if not git.is_dir():
            return None
        head = _git_text(git / "HEAD")
        if not head.startswith("ref:"):
            return head.lower() or None
        ref = head[4:].strip()
        places = [git]
        common = git / "commondir"  # a worktree keeps its branches in the main repository's git folder
        if common.is_file():
            places.append((git / _git_text(common, "utf-8")).resolve())
        for place in places:
            ref_file = (place / ref).resolve()
            if ref_file.is_relative_to(place.resolve()) and ref_file.is_file():
                return _git_text(ref_file).lower()
            packed = place / "packed-refs"
            if packed.is_file():
                for line in _git_text(packed).splitlines():
                    sha, _, name = line.partition(" ")
                    if name.strip() == ref:
                        return sha.lower()
    except OSError:
        return None
    return None


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
    try:
        front = yaml.load(text[3:end], Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        raise SourceUnavailable(f"{record_id}: {folder.name}/README.md front matter is not YAML: "
                                f"{one_line(err)}") from None
    configs = front.get("configs") if isinstance(front, dict) else None
    root = folder.resolve()
    for config in configs if isinstance(configs, list) else []:
        if not isinstance(config, dict):
            continue
        for key, path in _metadata_paths(config):
            bad = _escapes(root, path)
            if bad:
                raise SourceUnavailable(
                    f"{record_id}: {folder.name}/README.md: {key} {path!r} {bad}; a mirror's files must stay inside "
                    "its folder"
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
