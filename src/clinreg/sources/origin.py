"""Where a record's rows come from: a `--data-dir` mirror folder first (mirror.py), then a fixture folder in the
registry, then the hub at the pinned revision (hub.py); and the reader for the location found (splits.py).

Sources on GitHub, PhysioNet or any other URL are read from their mirror folder only: no code fetches them, and
what is particular to them (a GitHub repository's `<owner>__<name>` folder and pinned commit) is in mirror.py.
"""

from __future__ import annotations

from pathlib import Path

from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.model import Dataset, HubSource, LocalSource
from clinreg.sources.hub import hub_location
from clinreg.sources.location import DataLocation
from clinreg.sources.mirror import expected_folder, folder_commit, folder_name, mirror_folder, unverified_commit
from clinreg.sources.splits import FileSplitReader, SplitReader


def is_private(record: Dataset) -> bool:
    return record.access.tier == "private" or isinstance(record.source, LocalSource)


def locate(record: Dataset, data_dir: str | Path | None, root: Path | None = None, *, hub: bool = True) -> DataLocation:
    """Resolve the source in order: the `--data-dir` mirror, a fixture folder in the registry, then the hub."""
    config = getattr(record.source, "config", None)
    read = getattr(record.source, "read", None)
    name = folder_name(record)
    if data_dir is not None:
        base = Path(data_dir)
        if not base.is_dir():
            raise SourceUnavailable(f"{record.id}: --data-dir {base} is not a folder")
        folder = mirror_folder(record, base)
        if folder is not None:
            notice = unverified_commit(record, folder)
            return DataLocation("mirror", config, folder=folder, read=read, record_id=record.id,
                                notices=[notice] if notice else [], commit_read=folder_commit(record, folder))
    if isinstance(record.source, LocalSource) and record.source.path and root is not None:
        fixture = (root / record.source.path).resolve()
        if fixture.is_dir() and fixture.is_relative_to(root.resolve()):
            return DataLocation("mirror", config, folder=fixture, read=read, record_id=record.id)
    expected = expected_folder(record)
    where = f"--data-dir DIR with its files in DIR/{expected}; {origin(record)}"
    missing = f"no folder {expected} in --data-dir {data_dir}; " if data_dir is not None else ""
    if is_private(record):
        what = "private" if record.access.tier == "private" else f"{record.access.tier}, held as local files,"
        raise SourceUnavailable(f"{record.id} is {what} and never downloaded; {missing}pass {where}")
    if not hub:
        raise SourceUnavailable(f"{record.id}: {missing or 'no --data-dir given; '}pass {where}")
    if not isinstance(record.source, HubSource):
        kind = record.source.type
        raise SourceUnavailable(f"{record.id} is read from {kind} files, not the hub: {missing}pass {where}")
    location = hub_location(record, config, name, missing)
    location.read, location.record_id = read, record.id
    return location


# Hosts a reader knows by name.
_HOSTS = {"drive.google.com": "Google Drive", "docs.google.com": "Google Drive", "physionet.org": "PhysioNet",
          "github.com": "GitHub", "zenodo.org": "Zenodo", "huggingface.co": "the Hugging Face hub"}


def origin(record: Dataset) -> str:
    """Where a record's files come from and which of them it reads, in words, for a message about a missing
    folder: "the files come from Google Drive, https://...; the record reads dev.json"."""
    source = record.source
    kind = source.type
    if kind == "huggingface":
        where = f"the hub repository {source.repo}"
    elif kind == "github":
        where = f"the GitHub repository {source.repo}"
    elif kind == "url":
        host = source.url.split("/")[2].lower() if source.url.count("/") >= 2 else source.url
        where = f"{_HOSTS.get(host, host)}, {source.url}"
    elif kind == "physionet":
        where = f"the PhysioNet project {source.project}" + (f", {source.url}" if source.url else "")
    else:
        where = f"whoever holds them ({' '.join(source.description.split()).rstrip('.')})"
    files = _files_read(record)
    return f"the files come from {where}" + (f"; the record reads {', '.join(files)}" if files else "")


def _files_read(record: Dataset) -> list[str]:
    """The files of the splits the mappings read (by `read.splits`), else the files the source lists."""
    source = record.source
    read = getattr(source, "read", None)
    used = {split for m in record.mappings for split in m.splits}
    out: list[str] = []
    if read is not None and getattr(read, "splits", None):
        for split, spec in read.splits.items():
            if used and split not in used:
                continue
            files = spec.files
            for name in ([files] if isinstance(files, str) else list(files.values()) if isinstance(files, dict)
                         else files):
                if name not in out:
                    out.append(name)
        return out
    return list(getattr(source, "paths", None) or getattr(source, "files", None) or [])


def open_reader(location: DataLocation, streaming: bool = False) -> FileSplitReader | SplitReader:
    """The reader for a location: clinreg's own readers when the record declares `source.read`, else `datasets`."""
    if location.read is not None:
        return FileSplitReader(location, streaming=streaming)
    return SplitReader(location, streaming=streaming)
