"""Opening a registry by name, as `clinreg diff` and the site's release notes take OLD and NEW: an existing registry
folder, a release listed in registry/releases.yaml, or a git ref of the root's repository, whose taxonomy/ and
registry/ folders are extracted (size-checked first) into a work folder and loaded from there."""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path
from typing import Any

from clinreg.core.paths import RootError, is_registry_tree, resolve_root
from clinreg.core.store import Registry, load_registry
from clinreg.core.yamlsrc import DEFAULT_LIMITS
from clinreg.errors import ClinregError
from clinreg.text.git import run_git


class SideError(ClinregError, ValueError):
    """OLD or NEW is neither a registry folder, a release version nor a git ref."""

    default_code = "CLR984"


def open_side(spec: str, root: str | Path | None, workdir: Path) -> tuple[Registry, dict[str, Any]]:
    """Load OLD or NEW: an existing folder, else a release in registry/releases.yaml, else a git ref of the root's
    repo."""
    path = Path(spec)
    if spec and path.is_dir():
        if not is_registry_tree(path):
            raise SideError(f"{spec}: not a registry tree (it needs taxonomy/ and registry/ folders)")
        return load_registry(path), {"spec": spec, "kind": "folder", "root": str(path)}
    try:
        base_root = resolve_root(root)
    except RootError as exc:
        raise SideError(str(exc)) from None
    base = load_registry(base_root)
    if base.releases is not None and spec in {r.version for r in base.releases.releases}:
        return load_registry(base_root, release=spec), {"spec": spec, "kind": "release", "root": str(base_root)}
    commit = _git_commit(base_root, spec)
    if commit is None:
        known = ", ".join(r.version for r in base.releases.releases) if base.releases else "none"
        raise SideError(f"{spec}: not a registry folder, a release (known: {known}) or a git ref of {base_root}")
    target = workdir / f"{len(list(workdir.iterdir()))}-{commit[:12]}"
    _extract_tree(base_root, commit, target)
    return load_registry(target), {"spec": spec, "kind": "git", "root": str(base_root), "commit": commit}


def _git_commit(root: Path, ref: str) -> str | None:
    if not ref or ref.startswith("-"):
        return None
    try:
        found = run_git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except FileNotFoundError:
        raise SideError(f"{ref}: not a registry folder or a release, and git is not on PATH to read it as a git "
                        "ref") from None
    except (OSError, subprocess.SubprocessError):
        return None
    return found.stdout.decode().strip() if found.returncode == 0 else None


# A registry file over the reader's size limit is refused anyway (CLR007); a commit with one is refused before any
# blob is read, so that a huge file in a pull request costs nothing. The total bounds the archive on disk.
MAX_TREE_BYTES = 256 * 1024 * 1024


def _blob_sizes(top: Path, treeish: str) -> list[tuple[str, int]]:
    """(path, size) of every blob under taxonomy/ and registry/ at `treeish`, from the object headers alone."""
    listing = run_git(top, "ls-tree", "-r", "-l", "-z", treeish, "--", "taxonomy", "registry")
    if listing.returncode != 0:
        raise SideError(f"{treeish}: git ls-tree failed: {listing.stderr.decode(errors='replace').strip()}")
    sizes = []
    for entry in listing.stdout.decode("utf-8", errors="replace").split("\0"):
        if not entry:
            continue
        meta, _, path = entry.partition("\t")
        fields = meta.split()
        if len(fields) == 4 and fields[1] == "blob" and fields[3].isdigit():
            sizes.append((path, int(fields[3])))
    return sizes


def _check_sizes(top: Path, treeish: str, commit: str) -> None:
    total = 0
    for path, size in _blob_sizes(top, treeish):
        if size > DEFAULT_LIMITS.max_bytes:
            raise SideError(f"{commit[:12]}: {path} is {size:,} bytes; registry files are at most "
                            f"{DEFAULT_LIMITS.max_bytes:,} bytes (CLR007), so the commit is not read")
        total += size
        if total > MAX_TREE_BYTES:
            raise SideError(f"{commit[:12]}: the registry tree holds more than {MAX_TREE_BYTES:,} bytes; not read")


def _extract_tree(root: Path, commit: str, target: Path) -> None:
    """Write the taxonomy/ and registry/ folders of `root` as they were at `commit` into `target`."""
    top = Path(run_git(root, "rev-parse", "--show-toplevel").stdout.decode().strip()).resolve()
    prefix = root.resolve().relative_to(top).as_posix()
    treeish = commit if prefix == "." else f"{commit}:{prefix}"
    # Run from the top: ls-tree and archive otherwise limit themselves to the working directory's subfolder.
    listing = run_git(top, "ls-tree", "--name-only", treeish)
    names = set(listing.stdout.decode().split("\n")) if listing.returncode == 0 else set()
    if not {"taxonomy", "registry"} <= names:
        raise SideError(f"{commit[:12]}: has no registry tree at {prefix} (it needs taxonomy/ and registry/)")
    _check_sizes(top, treeish, commit)
    target.mkdir(parents=True)
    tar_path = target.with_name(target.name + ".tar")
    # Streamed to a file, not held in memory: the sizes are checked, but a tree can still hold many files.
    archive = run_git(top, "archive", "--format=tar", f"--output={tar_path}", treeish, "--", "taxonomy", "registry")
    if archive.returncode != 0:
        raise SideError(f"{commit[:12]}: git archive failed: {archive.stderr.decode(errors='replace').strip()}")
    try:
        with tarfile.open(tar_path) as tar:
            if hasattr(tarfile, "data_filter"):
                try:
                    tar.extractall(target, filter="data")
                except tarfile.FilterError as exc:  # e.g. a committed link that points out of the tree
                    raise SideError(f"{commit[:12]}: refused to extract {exc.tarinfo.name!r}: {exc}") from None
            else:  # Python without extraction filters: git archive holds only the repository's own paths
                tar.extractall(target)
    finally:
        tar_path.unlink(missing_ok=True)
