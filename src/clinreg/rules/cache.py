"""A content-hash cache of `clinreg validate` reports, so that a run on an unchanged tree reads files and stops.

The key covers everything a report depends on: each file's name and content hash (or why it could not be
read), the problems found while listing the tree, the release filter, the tree's location, the clinreg
version and a hash of clinreg's own source (so a changed rule never serves an old answer), and where
local source paths resolve to (CLR703 follows links). One entry is kept per tree, as JSON under
$XDG_CACHE_HOME/clinreg (else ~/.cache/clinreg), written atomically; an entry that does not parse or does
not match is ignored and replaced. The cache is trusted as the rest of the user's cache folder is: a CI
job that shares cache folders with untrusted jobs should pass `--no-cache`.

The whole report is cached, not per-file results: cross-file rules need every file's model, and reading
a parse back costs about as much as parsing. So a changed file makes a full run, and an unchanged tree
costs a listing, a read and a hash per file. This module imports nothing heavy until it has to validate.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clinreg import __version__
from clinreg.core.diagnostics import Diagnostic, Report
from clinreg.core.treewalk import TreeRead, discover_files, file_kind, read_limited

FORMAT = 1
MAX_BYTES = 1024 * 1024  # yamlsrc.DEFAULT_LIMITS.max_bytes (not imported: yamlsrc imports yaml)
_PACKAGE = Path(__file__).resolve().parents[1]  # the clinreg package
_source_hash: str | None = None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "clinreg"


def source_hash() -> str:
    """A hash of every Python file of the installed clinreg package: rules, models, reader and all."""
    global _source_hash
    if _source_hash is None:
        digest = hashlib.sha256()
        for path in sorted(_PACKAGE.rglob("*.py")):
            digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        _source_hash = digest.hexdigest()
    return _source_hash


def _entry_path(real_root: Path) -> Path:
    return cache_dir() / f"validate-{hashlib.sha256(str(real_root).encode()).hexdigest()[:32]}.json"


def read_tree(root: Path) -> TreeRead:
    """List and read the tree once; the result is both the cache key's input and the loader's input."""
    found: list[tuple[str, Path]] = []
    problems = discover_files(root, found)
    contents = {rel: read_limited(path, MAX_BYTES) for rel, path in found if file_kind(rel) is not None}
    return TreeRead(root, found, problems, contents)


def _key(read, real_root: Path, release: str | None) -> str:
    digest = hashlib.sha256()
    head = [FORMAT, __version__, source_hash(), str(real_root), release, read.problems]
    digest.update(json.dumps(head).encode() + b"\n")
    for rel, _ in read.found:
        raw, problem = read.contents.get(rel, (None, None))
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256(raw).digest() if raw is not None else json.dumps(problem).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def _local_paths(reg) -> list[str]:
    """The record-supplied local folders that CLR703 resolves through the file system."""
    from clinreg.core.model import LocalSource

    return sorted({ds.source.path for ds in reg.datasets.values() if isinstance(ds.source, LocalSource)
                   and ds.source.path})


def _resolved(root: Path, paths: list[str]) -> list[str]:
    out = []
    for p in paths:
        try:
            out.append(str((root / p).resolve()))
        except (OSError, RuntimeError, ValueError):
            out.append("")
    return out


MAX_ENTRY_BYTES = 64 * 1024 * 1024


def _load_entry(path: Path, key: str, root: Path) -> Report | None:
    try:
        # Only a regular file of bounded size is opened: a FIFO put in its place would block the read, and a
        # poisoned entry may be huge or nested past the parser's recursion limit. Anything else is recomputed.
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_ENTRY_BYTES:
            return None
        entry = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        links = entry["local_paths"]
        if _resolved(root, links) != entry["resolved"]:
            return None
        diagnostics = [Diagnostic(**d) for d in entry["diagnostics"]]
        if not all(_well_formed(d) for d in diagnostics):
            return None
        return Report(diagnostics=diagnostics, files=int(entry["files"]))
    except (OSError, ValueError, TypeError, KeyError, RecursionError):  # missing, unreadable or corrupt: not trusted
        return None


def _well_formed(d: Diagnostic) -> bool:
    return (d.severity in ("error", "warning", "info") and all(isinstance(v, str) for v in (d.code, d.file, d.message))
            and type(d.line) is int and type(d.column) is int and (d.hint is None or isinstance(d.hint, str)))


def _store_entry(path: Path, key: str, report: Report, root: Path, local_paths: list[str]) -> None:
    entry: dict[str, Any] = {
        "key": key,
        "clinreg": __version__,
        "files": report.files,
        "local_paths": local_paths,
        "resolved": _resolved(root, local_paths),
        "diagnostics": [d.to_dict() for d in report.diagnostics],
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".validate-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, ensure_ascii=False))  # dumps, not dump: only dumps uses the C encoder
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, ValueError):
        pass  # a cache that cannot be written only costs the next run its speed


@dataclass
class CachedValidation:
    report: Report
    from_cache: bool
    root: Path
    files: set[str]  # the registry files of the tree (relative names), as load_registry's `files` would list them


def validate_cached(root: Path, *, release: str | None = None, use_cache: bool = True) -> CachedValidation:
    """`validate(root, release=...)` through the cache.

    `root` is an already resolved registry root (clinreg.core.paths.resolve_root). Raises ValueError for a bad
    release, as load_registry does.
    """
    read = read_tree(root)
    real_root = root.resolve()
    key = _key(read, real_root, release)
    entry = _entry_path(real_root)
    files = set(read.contents)
    if use_cache:
        cached = _load_entry(entry, key, root)
        if cached is not None:
            return CachedValidation(cached, True, root, files)
    from clinreg.core.store import load_registry
    from clinreg.rules.engine import run_rules

    # --base, which reads data, is never cached
    reg = load_registry(root, release=release, read=read, keep_data=False, _compact=True)
    report = run_rules(reg)
    local_paths = _local_paths(reg) if use_cache else []
    del reg  # the models are done with: the memory they free serves the cache entry and the output
    if use_cache:
        _store_entry(entry, key, report, root, local_paths)
    return CachedValidation(report, False, root, files)
