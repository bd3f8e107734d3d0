"""List a registry tree's YAML files and read their bytes, with no dependency beyond the standard library.

`clinreg validate` does this before anything else, and with a warm cache (clinreg.rules.cache) nothing else.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

TAXONOMY_DIR = "taxonomy"
REGISTRY_DIR = "registry"
TAXONOMY_FILE = "taxonomy/taxonomy.yaml"
RELEASES_FILE = "registry/releases.yaml"
EDITIONS_FILE = "registry/medhelm_editions.yaml"
DATASETS_DIR = "registry/datasets"


def file_kind(rel: str) -> str | None:
    if rel == TAXONOMY_FILE:
        return "taxonomy"
    if rel == RELEASES_FILE:
        return "releases"
    if rel == EDITIONS_FILE:
        return "editions"
    if rel.startswith(TAXONOMY_DIR + "/") and rel.count("/") == 1:
        return "category"
    if rel.startswith(DATASETS_DIR + "/") and rel.count("/") == 2:
        return "dataset"
    return None


@dataclass
class TreeRead:
    """A tree's files, listed by discover_files and read by read_limited (see clinreg.rules.cache)."""

    root: Path
    found: list[tuple[str, Path]]
    problems: list[tuple[str, str, str, str | None]]
    contents: dict[str, tuple[bytes | None, tuple[str, str] | None]]


def discover_files(root: Path, found: list[tuple[str, Path]]) -> list[tuple[str, str, str, str | None]]:
    """`discover` without building diagnostics (so it needs no rule registry): fills `found` with (rel, path)
    in the order `sorted(Path.rglob)` gives, and returns the problems as (code, rel, message, hint)."""
    problems: list[tuple[str, str, str, str | None]] = []
    real_root = root.resolve()
    for top in (TAXONOMY_DIR, REGISTRY_DIR):
        base = root / top
        if not base.is_dir():
            continue
        # Below a folder that is not itself a link, only an entry that is a link can lead elsewhere, so only
        # those need a resolve() (the walk, like rglob, does not descend into linked folders).
        trusted = not base.is_symlink() and base.resolve() == real_root / top
        entries: list[tuple[tuple[str, ...], str, bool, bool]] = []
        _walk(str(base), (top,), entries)
        entries.sort(key=lambda e: e[0])  # the order of sorted(Path) objects: part by part
        for parts, path_str, is_dir, is_link in entries:
            if is_dir:
                # rglob does not descend into linked folders; say so when one leads out of the tree.
                if is_link and not Path(path_str).resolve().is_relative_to(real_root):
                    problems.append(("CLR009", "/".join(parts),
                                     "a link to a folder outside the registry root; nothing in it is read",
                                     "registry files must live inside the tree; copy them in instead"))
                continue
            if os.path.splitext(parts[-1])[1] not in (".yaml", ".yml"):
                continue
            rel = "/".join(parts)
            path = Path(path_str)
            if is_link or not trusted:
                try:
                    real = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    problems.append(("CLR009", rel, "the file is a broken or looping link", None))
                    continue
                if not real.is_relative_to(real_root):
                    problems.append(("CLR009", rel, "the file is a link to a place outside the registry root",
                                     "registry files must live inside the tree; copy the file in instead"))
                    continue
            found.append((rel, path))
    return problems


def _walk(folder: str, parts: tuple[str, ...], out: list) -> None:
    try:
        scan = os.scandir(folder)
    except OSError:  # an unreadable folder is skipped, as rglob skips it
        return
    with scan:
        for entry in scan:
            here = parts + (entry.name,)
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir()
            except OSError:
                is_link, is_dir = False, False
            out.append((here, entry.path, is_dir, is_link))
            if is_dir and not is_link:
                _walk(entry.path, here, out)


def read_limited(path: Path, max_bytes: int) -> tuple[bytes | None, tuple[str, str] | None]:
    """The bytes of a regular file of at most `max_bytes`, or (None, (code, message)) saying why not."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
            return None, ("CLR009", "not a regular file")
        if info.st_size > max_bytes:
            return None, ("CLR007", f"the file is {info.st_size:,} bytes, over the limit of {max_bytes:,} bytes")
        # Read at most one byte past the limit, whatever stat said. os.read with the expected size: a buffered
        # read(max_bytes + 1) allocates the whole limit for every file, a third of a large tree's read time.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            limit = max_bytes + 1
            parts: list[bytes] = []
            got = 0
            ask = min(info.st_size + 1, limit)
            while got < limit:
                chunk = os.read(fd, ask)
                if not chunk:
                    break
                parts.append(chunk)
                got += len(chunk)
                ask = min(max(ask, 65536), limit - got)
        finally:
            os.close(fd)
        return (parts[0] if len(parts) == 1 else b"".join(parts)), None
    except OSError as exc:
        return None, ("CLR009", f"cannot read the file: {exc.strerror or exc}")
