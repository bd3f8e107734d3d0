"""The lock file: per mapping, the source read (hub revision or mirror hash) and the sha256 of its instances."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinreg.core.builderrors import BuildError
from clinreg.core.model import Dataset
from clinreg.core.store import Registry
from clinreg.instances.build import OnBadLabel, RecordBuild
from clinreg.instances.canonical import hash_instances
from clinreg.sources.origin import locate
from clinreg.text.jsonout import read_json_object
from clinreg.text.safeio import atomic_write_text, read_regular_file

MAX_LOCK_BYTES = 64 * 1024 * 1024
LOCK_VERSION = 2  # 2: instances of schema 2, hashed with their provenance
COMPARED = ("record_version", "source", "splits", "instances", "instances_sha256", "skipped_rows", "unlabeled_rows")


class LockMissing(BuildError):
    """There is no lock file where a command needs one (CLR911)."""

    default_code = "CLR911"
    exit_code = 1


class LockUnreadable(BuildError):
    """The lock file is not JSON, or not a clinreg lock file (CLR985)."""

    default_code = "CLR985"
    exit_code = 2


def pinned(record: Dataset) -> str | None:
    return getattr(record.source, "revision", None) or getattr(record.source, "commit", None)


def compute_lock(
    registry: Registry,
    data_dir: str | Path | None,
    *,
    on_bad_label: OnBadLabel = "error",
    hub: bool = False,
) -> dict[str, Any]:
    """Build every mapping of the registry that can be built; list the others under `skipped` with the reason.

    Each record's data is located once; each mapping is built as `clinreg build` builds it, provenance included,
    so the sha256 of a built JSON-lines file equals its lock entry.
    """
    locked: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    records = registry.datasets
    for record_id in sorted(records):
        record = records[record_id]
        keys = [f"{record_id}/{m.id}" for m in record.mappings]
        try:
            location = locate(record, data_dir, registry.root, hub=hub)
            source = location.describe()
        except BuildError as err:
            skipped.update({key: _portable(err, data_dir) for key in keys})
            continue
        for mapping, key in zip(record.mappings, keys):
            try:
                made = RecordBuild(record, registry, mapping.id, on_bad_label=on_bad_label, location=location)
                digest, count = hash_instances(made.batches())
            except BuildError as err:
                skipped[key] = _portable(err, data_dir)
                continue
            locked[key] = {
                "dataset": record_id,
                "mapping": mapping.id,
                "record_version": record.version,
                "pinned": pinned(record),
                "source": source,
                "splits": list(mapping.splits),
                "instances": count,
                "instances_sha256": digest,
                "skipped_rows": made.report.skipped,
                "unlabeled_rows": made.report.unlabeled,
                "on_bad_label": on_bad_label,
            }
    return {"clinreg_lock": LOCK_VERSION, "mappings": locked, "skipped": skipped}


def _portable(err: BuildError, data_dir: str | Path | None) -> str:
    """The reason without the local --data-dir path, so that lock files match across machines."""
    text = str(err)
    return text.replace(f" {data_dir}", "") if data_dir is not None else text


def write_lock(path: Path, lock: dict[str, Any]) -> None:
    atomic_write_text(path, json.dumps(lock, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")


def lock_text(path: Path) -> str:
    """The lock file's text, read only when it is a regular file of at most MAX_LOCK_BYTES (a lock of thousands of
    mappings is a few megabytes): a lock handed to a command is read bounded, never whole. Raises OSError
    (NotARegularFile, or a file over the limit) or UnicodeDecodeError."""
    return read_regular_file(path, MAX_LOCK_BYTES).decode("utf-8")


def read_lock(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise LockMissing(f"no lock file at {path}; run `clinreg lock` first")
    return read_json_object(path, "lock file", "mappings", LockUnreadable, limit=MAX_LOCK_BYTES)


@dataclass
class LockCheck:
    """The outcome of `lock --check`: drifted mappings, the ones that still match, and the ones not checked."""

    drift: list[str] = field(default_factory=list)
    matching: list[str] = field(default_factory=list)
    unchecked: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"drift": self.drift, "matching": self.matching, "unchecked": self.unchecked}

    def render(self, path: Path) -> str:
        lines = [f"drift: {d}" for d in self.drift]
        lines += [f"not checked: {key}: {why}" for key, why in sorted(self.unchecked.items())]
        verdict = f"{len(self.drift)} drifted" if self.drift else "no drift"
        lines.append(f"{path}: {verdict}, {len(self.matching)} matching, {len(self.unchecked)} not checked")
        return "\n".join(lines)


def compare(old: dict[str, Any], new: dict[str, Any], records: dict[str, Dataset]) -> LockCheck:
    """Compare a fresh lock with the file. Mappings that cannot be built now are reported, not counted as drift."""
    check = LockCheck()
    known = {f"{r.id}/{m.id}" for r in records.values() for m in r.mappings}
    for key, entry in sorted(new["mappings"].items()):
        before = old["mappings"].get(key)
        if before is None:
            check.drift.append(f"{key}: built now but not in the lock")
            continue
        changed = [name for name in COMPARED if before.get(name) != entry.get(name)]
        if changed:
            check.drift.append(f"{key}: " + "; ".join(_change(name, before.get(name), entry.get(name))
                                                      for name in changed))
        else:
            check.matching.append(key)
    for key in sorted(old["mappings"]):
        if key not in known:
            check.drift.append(f"{key}: in the lock but no longer in the registry")
        elif key not in new["mappings"]:
            check.unchecked[key] = new["skipped"].get(key, "not built")
    return check


def _change(name: str, before: Any, after: Any) -> str:
    def short(value: Any) -> str:
        text = json.dumps(value, sort_keys=True, allow_nan=False) if not isinstance(value, str) else value
        return text[:16] + "..." if len(text) > 19 else text

    return f"{name} changed ({short(before)} -> {short(after)})"


def render_summary(lock: dict[str, Any], path: Path) -> str:
    lines = [f"locked {key}: {e['instances']} instance(s), sha256 {e['instances_sha256'][:12]}"
             for key, e in sorted(lock["mappings"].items())]
    lines += [f"skipped {key}: {why}" for key, why in sorted(lock["skipped"].items())]
    lines.append(f"wrote {path}: {len(lock['mappings'])} locked, {len(lock['skipped'])} skipped")
    return "\n".join(lines)
