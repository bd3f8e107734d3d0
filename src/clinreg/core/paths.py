"""Find the registry root: --root, else a working directory holding taxonomy/ and registry/, else the embedded tree."""

from __future__ import annotations

from pathlib import Path

from clinreg.errors import ClinregError


class RootError(ClinregError, ValueError):
    """The requested registry root does not exist or does not look like a registry tree."""

    default_code = "CLR981"


def is_registry_tree(path: Path) -> bool:
    return (path / "taxonomy").is_dir() and (path / "registry").is_dir()


def embedded_root() -> Path:
    """The registry shipped with the package (in a wheel), or the source checkout's tree (editable install)."""
    package = Path(__file__).resolve().parents[1]  # src/clinreg, or site-packages/clinreg
    packaged = package / "_registry"
    if is_registry_tree(packaged):
        return packaged
    checkout = package.parent.parent
    if is_registry_tree(checkout):
        return checkout
    raise RootError("the embedded registry is missing from this installation; pass --root DIR")


def resolve_root(root: str | Path | None = None, cwd: Path | None = None) -> Path:
    if root is not None:
        path = Path(root)
        if not path.is_dir():
            raise RootError(f"--root {root}: no such folder")
        if not is_registry_tree(path):
            raise RootError(f"--root {root}: not a registry tree (it needs taxonomy/ and registry/ folders)")
        return path
    here = cwd or Path.cwd()
    if is_registry_tree(here):
        return here
    return embedded_root()
