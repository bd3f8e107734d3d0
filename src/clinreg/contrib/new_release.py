"""`new release` and a new record's joining of the open release, as library calls: each edit of releases.yaml and
README.md goes through the guarded edit (`clinreg.text.tracked`) and is read back before it is written."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from clinreg.contrib.releases import (
    ReleaseRefused, add_readme_row, join_open_release, open_release, readme_join, readme_row,
)
from clinreg.core.model import ReleaseHistory
from clinreg.core.store import RELEASES_FILE, Registry
from clinreg.text.tracked import Tracked, edit_tracked, read_tracked

README = "README.md"


@dataclass(frozen=True)
class ReleaseOpened:
    """What `open_next_release` changed: the release opened in releases.yaml, and its README row, added or not."""

    path: str  # releases.yaml, relative to the root
    version: str
    row: str  # the README release table's row for it
    readme_edited: bool  # False: README.md has no release table, or could not be edited; the row is for the user


@dataclass(frozen=True)
class ReleaseJoin:
    """What `join_release` changed: the record named in the open release's `datasets_added`, and counted in README's
    release table; each `*_refused` says why that edit was left to do by hand (None: done, or nothing to do)."""

    dataset_id: str
    version: str
    releases_refused: str | None = None
    readme_edited: bool = False
    readme_refused: str | None = None

    def line(self) -> str:
        """One line saying what was done, or what to do by hand."""
        if self.releases_refused is not None:
            return (f"add {self.dataset_id} to release {self.version}'s datasets_added in {RELEASES_FILE} and count it "
                    "in README.md's release table by hand (tests/test_readme_releases.py checks both)")
        done = f"added {self.dataset_id} to release {self.version}'s datasets_added in {RELEASES_FILE}"
        if self.readme_refused is not None:
            return done + f"; count it in README.md's release table row {self.version} by hand"
        return done + " and counted it in README.md's release table" if self.readme_edited else done


def _yaml_history(text: str) -> ReleaseHistory | None:
    """The release history `text` says, or None when it does not read as one."""
    import yaml

    try:
        return ReleaseHistory.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValueError):  # pydantic's ValidationError is a ValueError
        return None  # the edit must read back as what was meant, or nothing is written


def _readme(root: Path) -> Tracked | None:
    """README.md to edit; None where there is none, or it is not a regular UTF-8 file."""
    try:
        tracked = read_tracked(root / README)
        tracked.text  # noqa: B018  (decodes, or raises)
    except (OSError, UnicodeDecodeError):
        return None
    return tracked


def open_next_release(reg: Registry, version: str, title: str, today: dt.date) -> ReleaseOpened:
    """Open release `version` in releases.yaml (the new `current`) and add its row to README's release table.

    Raises ReleaseRefused, saying why, when nothing was written: no loadable releases.yaml, a version or title that
    cannot open, a file not laid out as expected, or a write that failed (one that changed underneath included).
    """
    if reg.releases is None or reg.releases_file is None:
        raise ReleaseRefused(f"{RELEASES_FILE} is missing or does not load; `clinreg validate` says why")
    try:
        tracked = read_tracked(reg.root / RELEASES_FILE)
        old = tracked.text
    except (OSError, UnicodeDecodeError) as exc:
        raise ReleaseRefused(f"cannot read {RELEASES_FILE}: {getattr(exc, 'strerror', None) or exc}") from None
    text = open_release(old, reg.releases, version, title, today)
    written = _yaml_history(text)
    if (written is None or written.current != version or len(written.releases) != len(reg.releases.releases) + 1
            or written.releases[-1].version != version or written.releases[-1].status != "open"):
        raise ReleaseRefused(f"{RELEASES_FILE} is not laid out as expected (a block `releases:` list at the end); "
                             "add the release by hand")
    try:
        edit_tracked(tracked, text)
    except OSError as exc:
        raise ReleaseRefused(f"cannot write {RELEASES_FILE}: {exc.strerror or exc}") from None
    row, edited = _add_release_row(reg.root, version, title, today)
    return ReleaseOpened(RELEASES_FILE, version, row, edited)


def _add_release_row(root: Path, version: str, title: str, today: dt.date) -> tuple[str, bool]:
    """The README release table's row for the release just opened, and whether it was added to README.md."""
    from clinreg.core.store import load_registry

    reg = load_registry(root)  # at the new release: every current record
    access: dict[str, int] = {}
    for ds in reg.datasets.values():
        access[ds.access.tier] = access.get(ds.access.tier, 0) + 1
    row = readme_row(version, today, title, access)
    tracked = _readme(root)
    new = add_readme_row(tracked.text, row) if tracked is not None else None
    if tracked is None or new is None:
        return row, False
    try:
        edit_tracked(tracked, new)
    except OSError:
        return row, False
    return row, True


def join_release(reg: Registry, dataset_id: str, tier: str) -> ReleaseJoin:
    """Name a new record in the open release's `datasets_added` and count it in README's release table, so that
    both say what the tree holds. Never raises: an edit that cannot be made safely is left to the user."""
    version = reg.open_release or ""
    by_hand = ReleaseJoin(dataset_id, version, releases_refused="releases.yaml could not be edited safely")
    if reg.releases is None:
        return by_hand
    try:
        tracked = read_tracked(reg.root / RELEASES_FILE)
        new = join_open_release(tracked.text, reg.releases, dataset_id)
    except (OSError, UnicodeDecodeError, ReleaseRefused):
        return by_hand
    written = _yaml_history(new)
    want = [*(reg.releases.releases[-1].datasets_added or []), dataset_id]
    if (written is None or written.releases[:-1] != reg.releases.releases[:-1]
            or written.releases[-1].datasets_added != want
            or written.releases[-1].model_copy(update={"datasets_added": None})
            != reg.releases.releases[-1].model_copy(update={"datasets_added": None})):
        return by_hand
    try:
        edit_tracked(tracked, new)
    except OSError:
        return by_hand
    readme = _readme(reg.root)
    if readme is None:
        return ReleaseJoin(dataset_id, version)
    joined = readme_join(readme.text, version, tier, dataset_id)
    if joined is None:
        return ReleaseJoin(dataset_id, version, readme_refused="README.md has no row for the release")
    try:
        edit_tracked(readme, joined)
    except OSError as exc:
        return ReleaseJoin(dataset_id, version, readme_refused=f"cannot write README.md: {exc.strerror or exc}")
    return ReleaseJoin(dataset_id, version, readme_edited=True)


def next_minor(version: str | None) -> str:
    """The release after `version` that adds records: the next minor version ("X.Y.Z" when there is none)."""
    parts = (version or "").split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return "X.Y.Z"
    return f"{parts[0]}.{int(parts[1]) + 1}.0"
