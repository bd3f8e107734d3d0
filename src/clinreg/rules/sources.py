"""Source rules: pinned revisions, no remote code, https URLs, local paths inside the root, licences and access."""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Iterable

from clinreg.core.diagnostics import Diagnostic
from clinreg.core.model import RESTRICTED_TIERS, GitHubSource, HubSource, LocalSource, PhysioNetSource
from clinreg.rules.base import rule
from clinreg.rules.context import Context

_COMMIT = re.compile(r"^[0-9a-f]{40}$")


@rule("CLR701")
def pinned_revision(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        src, sf = ds.source, ctx.reg.dataset_files[ds_id]
        if isinstance(src, HubSource):
            value, field = src.revision, "revision"
        elif isinstance(src, GitHubSource):
            value, field = src.commit, "commit"
        else:
            continue
        if value is not None and _COMMIT.fullmatch(value):
            continue
        what = f"`{field}: {value}` is not a pinned commit" if value else f"no `{field}` is pinned"
        note = src.revision_note
        if note:
            yield ctx.at("CLR701", sf, ("source", field) if value else ("source",),
                         f"{what} (record says: {' '.join(note.split())})")
        else:
            yield ctx.at("CLR701", sf, ("source", field) if value else ("source",), what,
                         "pin the 40-hex commit, or add `revision_note` saying why it cannot be pinned")


@rule("CLR702")
def remote_code(ctx: Context) -> Iterable[Diagnostic]:
    yield from ctx.scalar_findings["CLR702"]  # any file, even one that failed the schema (see core/scalars.py)


def unsafe_local_path(text: str) -> str | None:
    """Why a record-supplied relative path is unsafe, or None when it is a plain path inside its folder."""
    if not text or "\x00" in text:
        return "it is empty or holds a NUL byte"
    if ".." not in text and ":" not in text and text[0] not in "/\\~":
        return None  # the checks below need a drive (":"), a leading separator or ".." to fire
    if text.startswith(("/", "\\", "~")) or PureWindowsPath(text).drive or PurePosixPath(text).is_absolute():
        return "it is absolute"
    if ".." in PurePosixPath(text.replace("\\", "/")).parts:
        return "it climbs out with '..'"
    return None


@rule("CLR703")
def local_paths(ctx: Context) -> Iterable[Diagnostic]:
    root = ctx.reg.root.resolve()
    for ds_id, ds in ctx.reg.datasets.items():
        src, sf = ds.source, ctx.reg.dataset_files[ds_id]
        candidates: list[tuple[tuple, str]] = []
        if isinstance(src, LocalSource):
            candidates += [(("source", "files", i), f) for i, f in enumerate(src.files)]
            if src.path is not None:
                candidates.append((("source", "path"), src.path))
        elif isinstance(src, (GitHubSource, PhysioNetSource)):
            files = src.paths if isinstance(src, GitHubSource) else src.files
            key = "paths" if isinstance(src, GitHubSource) else "files"
            candidates += [(("source", key, i), f) for i, f in enumerate(files)]
        for path, value in candidates:
            reason = unsafe_local_path(value)
            if reason is None and path[-1] == "path":
                target = (ctx.reg.root / value).resolve()
                if not target.is_relative_to(root):
                    reason = "it resolves (through a link) to a place outside the registry root"
            if reason:
                yield ctx.at("CLR703", sf, path, f"path {value!r} is refused: {reason}",
                             "use a relative path inside the folder")
    # The SQLite file a SQL benchmark's scorer opens, relative to the data folder (`--data-dir`).
    for sf, path, m in ctx.mappings:
        database = getattr(m.scoring, "database", None)
        reason = unsafe_local_path(database.file) if database is not None else None
        if reason:
            yield ctx.at("CLR703", sf, path + ("scoring", "database", "file"), f"database file {database.file!r} is "
                         f"refused: {reason}", "use a relative path inside the data folder")


@rule("CLR704")
def urls(ctx: Context) -> Iterable[Diagnostic]:
    yield from ctx.scalar_findings["CLR704"]


@rule("CLR705")
def licence(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        sf = ctx.reg.dataset_files[ds_id]
        if ds.licence.spdx.lower() in {"unknown", "other"} and ds.licence.note:  # without a note: CLR708
            yield ctx.at("CLR705", sf, ("licence", "spdx"),
                         f"licence is {ds.licence.spdx} (record says: {' '.join(ds.licence.note.split())})")


@rule("CLR708")
def licence_unexplained(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        if ds.licence.spdx.lower() in {"unknown", "other"} and not ds.licence.note:
            yield ctx.at("CLR708", ctx.reg.dataset_files[ds_id], ("licence", "spdx"),
                         f"licence is {ds.licence.spdx} and no `note` says why", "add licence.note")


@rule("CLR706")
def access_instructions(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        if ds.access.tier in RESTRICTED_TIERS and not (ds.access.instructions or "").strip():
            yield ctx.at("CLR706", ctx.reg.dataset_files[ds_id], ("access",),
                         f"a {ds.access.tier} dataset needs `access.instructions`")


@rule("CLR707")
def sourced_citation(ctx: Context) -> Iterable[Diagnostic]:
    for entry in ctx.tasks.values():
        prov, task_id = entry.task.provenance, entry.task.id
        where = entry.path + ("provenance",)
        if prov.kind in ("published", "derived") and prov.citation is None:
            yield ctx.at("CLR707", entry.file, where, f"task {task_id!r} is marked {prov.kind} but has no citation")
        if prov.kind == "published" and not (prov.quote or "").strip():
            yield ctx.at("CLR707", entry.file, where, f"task {task_id!r} is marked published but quotes no name",
                         "add `quote:` with the name exactly as the source writes it")
        if prov.kind == "derived" and not prov.benchmarks:
            yield ctx.at("CLR707", entry.file, where, f"task {task_id!r} is marked derived but names no benchmark",
                         "add `benchmarks: [id]` with the benchmark whose description the wording follows")


@rule("CLR709")
def derived_from_unmapped(ctx: Context) -> Iterable[Diagnostic]:
    if not ctx.reg.datasets:
        return
    mappings = {m.id for ds in ctx.reg.datasets.values() for m in ds.mappings}
    for entry in ctx.tasks.values():
        prov = entry.task.provenance
        if prov.kind != "derived":
            continue
        for i, bench in enumerate(prov.benchmarks or ()):
            if bench not in mappings:
                yield ctx.at("CLR709", entry.file, entry.path + ("provenance", "benchmarks", i),
                             f"task {entry.task.id!r} is derived from benchmark {bench!r}, which no dataset record "
                             "maps")
