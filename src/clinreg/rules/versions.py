"""Version rules: record versions are semver, releases are ordered, and changed records bump their version."""

from __future__ import annotations

from typing import Iterable

from clinreg.core.diagnostics import Diagnostic
from clinreg.core.store import DATASETS_DIR
from clinreg.core.semver import parse_semver
from clinreg.core.yamlsrc import parse_yaml
from clinreg.rules.base import rule
from clinreg.rules.context import Context
from clinreg.text.git import run_git


@rule("CLR601")
def semver(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        sf = ctx.reg.dataset_files[ds_id]
        for field in ("version", "added_in", "removed_in"):
            value = getattr(ds, field)
            if value is not None and parse_semver(value) is None:
                yield ctx.at("CLR601", sf, (field,), f"`{field}: {value}` is not a semantic version",
                             "write it as MAJOR.MINOR.PATCH, e.g. 1.0.0")
    if ctx.reg.taxonomy is not None and parse_semver(ctx.reg.taxonomy.version) is None:
        yield ctx.at("CLR601", ctx.reg.taxonomy_file, ("version",),
                     f"`version: {ctx.reg.taxonomy.version}` is not a semantic version")
    if ctx.reg.releases is not None:
        sf = ctx.reg.releases_file
        for i, rel in enumerate(ctx.reg.releases.releases):
            if parse_semver(rel.version) is None:
                yield ctx.at("CLR601", sf, ("releases", i, "version"),
                             f"release `{rel.version}` is not a semantic version")
        if parse_semver(ctx.reg.releases.current) is None:
            yield ctx.at("CLR601", sf, ("current",), f"`current: {ctx.reg.releases.current}` is not a semantic version")


@rule("CLR602")
def release_history(ctx: Context) -> Iterable[Diagnostic]:
    hist, sf = ctx.reg.releases, ctx.reg.releases_file
    if hist is not None and sf is not None:
        prev = None
        for i, rel in enumerate(hist.releases):
            key = parse_semver(rel.version)
            if prev is not None and key is not None and prev[0] is not None:
                if key <= prev[0]:
                    yield ctx.at("CLR602", sf, ("releases", i, "version"),
                                 f"release {rel.version} does not come after {prev[1].version}")
                elif rel.date < prev[1].date:
                    yield ctx.at("CLR602", sf, ("releases", i, "date"),
                                 f"release {rel.version} is dated before {prev[1].version}")
            prev = (key, rel)
        if hist.releases and hist.current != hist.releases[-1].version:
            yield ctx.at("CLR602", sf, ("current",),
                         f"`current: {hist.current}` is not the newest release ({hist.releases[-1].version})")
    for ds_id, ds in ctx.reg.datasets.items():
        if ds.removed_in:
            a, r = parse_semver(ds.added_in), parse_semver(ds.removed_in)
            if a is not None and r is not None and r <= a:
                yield ctx.at("CLR602", ctx.reg.dataset_files[ds_id], ("removed_in",),
                             "`removed_in` must come after `added_in`")


@rule("CLR604")
def published_release_unchanged(ctx: Context) -> Iterable[Diagnostic]:
    hist, sf = ctx.reg.releases, ctx.reg.releases_file
    if hist is None or sf is None:
        return
    added_in: dict[str, list[str]] = {}
    for ds_id, ds in ctx.reg.datasets.items():
        added_in.setdefault(ds.added_in, []).append(ds_id)
    for i, rel in enumerate(hist.releases):
        if rel.status == "open":
            if i != len(hist.releases) - 1:
                yield ctx.at("CLR604", sf, ("releases", i, "status"),
                             f"release {rel.version} is open but is not the newest release",
                             "only the newest release may be open: publish this one (status: published, "
                             "datasets_added) first")
            continue
        if rel.datasets_added is None:
            ids = sorted(added_in.get(rel.version, []))
            yield ctx.at("CLR604", sf, ("releases", i, "version"),
                         f"published release {rel.version} does not list the records it added (`datasets_added`)",
                         f"add `datasets_added: [{', '.join(ids)}]`, or set `status: open` if it is not published yet")
            continue
        listed = set(rel.datasets_added)
        for ds_id in sorted(added_in.get(rel.version, [])):
            if ds_id not in listed:
                yield ctx.at("CLR604", ctx.reg.dataset_files[ds_id], ("added_in",),
                             f"`added_in: {rel.version}` names a published release that did not hold `{ds_id}`: a "
                             "published release never changes", _open_release_hint(hist))
        for j, ds_id in enumerate(rel.datasets_added):
            if ds_id not in added_in.get(rel.version, []):
                where = ctx.reg.datasets.get(ds_id)
                if where is None and (ctx.reg.root / DATASETS_DIR / f"{ds_id}.yaml").is_file():
                    continue  # the record is there but did not load: its own diagnostics say why
                found = f"its record says `added_in: {where.added_in}`" if where else "no record has that id"
                yield ctx.at("CLR604", sf, ("releases", i, "datasets_added", j),
                             f"published release {rel.version} added `{ds_id}`, but {found}",
                             "a record that left the registry stays, with `removed_in`; its `added_in` never changes")


def _open_release_hint(hist) -> str:
    newest = hist.releases[-1]
    if newest.status == "open":
        return f"name the open release: `added_in: {newest.version}`"
    return "open the next release with `clinreg new release X.Y.Z --title ...` and name it in `added_in`"


@rule("CLR603")
def version_bumped(ctx: Context) -> Iterable[Diagnostic]:
    base = ctx.base
    if not base:
        return
    root = ctx.reg.root
    top = run_git(root, "rev-parse", "--show-toplevel", timeout=30)
    if top.returncode != 0:
        return
    from pathlib import Path

    toplevel = Path(top.stdout.decode().strip()).resolve()
    for ds_id, ds in ctx.reg.datasets.items():
        sf = ctx.reg.dataset_files[ds_id]
        rel_to_git = sf.path.resolve().relative_to(toplevel).as_posix()
        old = run_git(root, "show", f"{base}:{rel_to_git}", timeout=30)
        if old.returncode != 0:
            continue  # a new record: nothing to compare against
        old_doc = parse_yaml(old.stdout)
        if old_doc.problems or not isinstance(old_doc.data, dict):
            continue
        new_content = {k: v for k, v in sf.doc.data.items() if k != "version"}
        old_content = {k: v for k, v in old_doc.data.items() if k != "version"}
        if new_content == old_content:
            continue
        old_v, new_v = parse_semver(old_doc.data.get("version")), parse_semver(ds.version)
        if old_v is not None and new_v is not None and new_v <= old_v:
            yield ctx.at("CLR603", sf, ("version",),
                         f"the record changed since {base} but its version is still {ds.version} (was "
                         f"{old_doc.data.get('version')})",
                         "bump the version: patch for fixes, minor for new mappings or fields, major for breaking "
                         "changes")
