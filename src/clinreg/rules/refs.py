"""Reference rules: every task, category and release id resolves, and nothing is left orphaned."""

from __future__ import annotations

from typing import Iterable

from clinreg.core.diagnostics import Diagnostic
from clinreg.core.diagnostics import make
from clinreg.core.store import EDITIONS_FILE, RELEASES_FILE, TAXONOMY_FILE
from clinreg.core.semver import parse_semver
from clinreg.rules.base import rule
from clinreg.rules.context import Context
from clinreg.text.suggest import Suggester


def _hint(value: str, options: Suggester) -> str | None:
    close = options.closest(value)
    return f"did you mean `{close}`?" if close else None


@rule("CLR301")
def unknown_task(ctx: Context) -> Iterable[Diagnostic]:
    if not ctx.reg.categories:
        return
    known = Suggester(ctx.tasks)  # built once: a file may name thousands of unknown ids
    for ds_id, ds in ctx.reg.datasets.items():
        sf = ctx.reg.dataset_files[ds_id]
        for i, m in enumerate(ds.mappings):
            for j, task_id in enumerate(m.tasks):
                if task_id not in ctx.tasks:
                    yield ctx.at("CLR301", sf, ("mappings", i, "tasks", j), f"task {task_id!r} is not in the taxonomy",
                                 _hint(task_id, known) or "add the task to taxonomy/<category>.yaml first")


@rule("CLR302")
def unknown_category(ctx: Context) -> Iterable[Diagnostic]:
    tax, sf = ctx.reg.taxonomy, ctx.reg.taxonomy_file
    if tax is None or sf is None:
        return
    seen: set[str] = set()
    known = Suggester(ctx.reg.categories)
    for i, cat_id in enumerate(tax.categories):
        if cat_id in seen:
            yield ctx.at("CLR302", sf, ("categories", i), f"category {cat_id!r} is listed twice")
        seen.add(cat_id)
        if cat_id not in ctx.reg.categories and not _broken_file(ctx, f"taxonomy/{cat_id}.yaml"):
            yield ctx.at("CLR302", sf, ("categories", i), f"category {cat_id!r} has no file taxonomy/{cat_id}.yaml",
                         _hint(cat_id, known))


def _broken_file(ctx: Context, rel: str) -> bool:
    """A file that exists but failed to load already has its own diagnostics; don't pile a second one on."""
    return any(f.rel == rel for f in ctx.reg.files)


@rule("CLR303")
def unknown_release(ctx: Context) -> Iterable[Diagnostic]:
    if ctx.reg.releases is None:
        return
    known = {r.version for r in ctx.reg.releases.releases}
    versions = Suggester(known)
    for ds_id, ds in ctx.reg.datasets.items():
        sf = ctx.reg.dataset_files[ds_id]
        for field in ("added_in", "removed_in"):
            value = getattr(ds, field)
            if value is not None and value not in known:
                yield ctx.at("CLR303", sf, (field,), f"`{field}: {value}` is not a release in {RELEASES_FILE}",
                             _release_hint(value, ctx.reg.releases.releases, versions))


def _release_hint(value: str, releases, versions: Suggester) -> str:
    """A version past every release is one not opened yet; a spelling suggestion would name an unrelated old one."""
    newest = max((r for r in releases if parse_semver(r.version) is not None), key=lambda r: parse_semver(r.version),
                 default=None)
    key = parse_semver(value)
    if newest is not None and key is not None and key > parse_semver(newest.version):
        if newest.status == "open":
            return (f"{value} is newer than every release; the open release is {newest.version}: name it, or publish "
                    "it first")
        return f"{value} is newer than every release: open it with `clinreg new release {value} --title ...`"
    known = ", ".join(r.version for r in releases)
    close = versions.closest(value) if key is None else None  # a typo of a version, not a different version
    return f"did you mean `{close}`? (known releases: {known})" if close else f"known releases: {known}"


@rule("CLR304")
def orphans(ctx: Context) -> Iterable[Diagnostic]:
    listed = set(ctx.reg.taxonomy.categories) if ctx.reg.taxonomy else None
    for cat_id, (_, sf) in ctx.reg.categories.items():
        if listed is not None and cat_id not in listed:
            yield ctx.at("CLR304", sf, ("id",), f"category {cat_id!r} is not listed in {TAXONOMY_FILE}",
                         f"add `{cat_id}` to `categories` in {TAXONOMY_FILE}")
    for rel in (TAXONOMY_FILE, RELEASES_FILE):
        if not _broken_file(ctx, rel):
            yield make("CLR304", rel, 1, 1, f"{rel} is missing", "every registry tree needs this file")


@rule("CLR306")
def unknown_compare_with(ctx: Context) -> Iterable[Diagnostic]:
    # A record shown at an older release may name one added later: that id exists, just not yet.
    known = set(ctx.reg.datasets) | set(ctx.reg.later_datasets)
    ids = Suggester(known)
    for ds_id, ds in ctx.reg.datasets.items():
        sf = ctx.reg.dataset_files[ds_id]
        for i, other in enumerate(ds.compare_with):
            if other.id == ds_id:
                yield ctx.at("CLR306", sf, ("compare_with", i, "id"), f"dataset {ds_id!r} is compared with itself",
                             "name another dataset record")
            elif other.id not in known and not _broken_file(ctx, f"registry/datasets/{other.id}.yaml"):
                yield ctx.at("CLR306", sf, ("compare_with", i, "id"),
                             f"compare_with names {other.id!r}, which is not a dataset record in this registry",
                             _hint(other.id, ids) or "give the id of a file registry/datasets/<id>.yaml")


@rule("CLR307")
def unknown_edition_benchmark(ctx: Context) -> Iterable[Diagnostic]:
    editions, sf = ctx.reg.editions, ctx.reg.editions_file
    if editions is None or sf is None:
        return
    # An edition may name a record that a release view leaves out (added later): that id exists, just not yet.
    known = set(ctx.reg.datasets) | set(ctx.reg.later_datasets)
    ids = Suggester(known)
    seen: set[str] = set()
    for i, edition in enumerate(editions.editions):
        if edition.id in seen:
            yield ctx.at("CLR307", sf, ("editions", i, "id"), f"edition {edition.id!r} is listed twice",
                         "give each edition its own id")
        seen.add(edition.id)
        listed: set[str] = set()
        for j, ds_id in enumerate(edition.benchmarks):
            if ds_id in listed:
                yield ctx.at("CLR307", sf, ("editions", i, "benchmarks", j),
                             f"edition {edition.id!r} lists {ds_id!r} twice")
            listed.add(ds_id)
            if ds_id not in known and not _broken_file(ctx, f"registry/datasets/{ds_id}.yaml"):
                yield ctx.at("CLR307", sf, ("editions", i, "benchmarks", j),
                             f"edition {edition.id!r} names {ds_id!r}, which is not a dataset record in this registry",
                             _hint(ds_id, ids)
                             or "add its record (`clinreg new dataset`) or remove it from the edition")
    if editions.get(editions.default) is None:
        yield ctx.at("CLR307", sf, ("default",),
                     f"default names {editions.default!r}, which is not an edition in {EDITIONS_FILE}",
                     _hint(editions.default, Suggester(e.id for e in editions.editions)))
    elif not editions.get(editions.default).released:
        yield ctx.at("CLR307", sf, ("default",),
                     f"default names {editions.default!r}, an unreleased edition: \"in MedHELM\" must mean a set "
                     "MedHELM published", "name a released edition")


@rule("CLR308")
def in_medhelm_disagrees(ctx: Context) -> Iterable[Diagnostic]:
    edition = ctx.reg.editions.get(ctx.reg.editions.default) if ctx.reg.editions else None
    if edition is None:
        return
    members = set(edition.benchmarks)
    for ds_id, declared in ctx.reg.declared_in_medhelm.items():
        sf = ctx.reg.dataset_files.get(ds_id)
        if sf is None or declared is None or declared == (ds_id in members):
            continue
        said = "lists" if ds_id in members else "does not list"
        yield ctx.at("CLR308", sf, ("in_medhelm",),
                     f"`in_medhelm: {str(declared).lower()}`, but MedHELM's default edition "
                     f"{edition.id} {said} {ds_id!r}",
                     f"set `in_medhelm: {str(not declared).lower()}`, or change the edition in {EDITIONS_FILE}")
