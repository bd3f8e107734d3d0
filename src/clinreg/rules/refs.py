"""Reference rules: every task, category and release id resolves, and nothing is left orphaned."""

from __future__ import annotations

from typing import Iterable

from clinreg.diagnostics import Diagnostic
from clinreg.rules.base import declare, make, rule
from clinreg.rules.context import Context
from clinreg.store import RELEASES_FILE, TAXONOMY_FILE
from clinreg.suggest import Suggester

declare("CLR305", "unrecognised-file", "warning", "A YAML file outside the registry layout", "refs", """
    Only `taxonomy/taxonomy.yaml`, `taxonomy/<category>.yaml`, `registry/datasets/<id>.yaml` and
    `registry/releases.yaml` are read. Any other YAML file is ignored, which is usually a misplaced record.

    Bad:
        registry/pubmed_qa.yaml
    Good:
        registry/datasets/pubmed_qa.yaml
""")


def _hint(value: str, options: Suggester) -> str | None:
    close = options.closest(value)
    return f"did you mean `{close}`?" if close else None


@rule("CLR301", "unknown-task", "error", "A mapping names a task that is not in the taxonomy")
def unknown_task(ctx: Context) -> Iterable[Diagnostic]:
    """
    Each mapping's `tasks` are ids of tasks in `taxonomy/*.yaml`. A dangling id would silently drop the
    benchmark from coverage.

    Bad:
        tasks: [answer_medical_knowledge_question]
    Good:
        tasks: [answer_medical_knowledge_questions]
    """
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


@rule("CLR302", "unknown-category", "error", "taxonomy.yaml lists a category that has no file")
def unknown_category(ctx: Context) -> Iterable[Diagnostic]:
    """
    Every id in `taxonomy/taxonomy.yaml`'s `categories` needs a file `taxonomy/<id>.yaml`.

    Bad:
        categories: [clinical_decision_suport]
    Good:
        categories: [clinical_decision_support]
    """
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


@rule("CLR303", "unknown-release", "error", "A record names a release that is not in releases.yaml")
def unknown_release(ctx: Context) -> Iterable[Diagnostic]:
    """
    `added_in` and `removed_in` name versions listed in `registry/releases.yaml`, so that
    `--release X` can rebuild the registry as it stood at X.

    Bad:
        added_in: 1.4.0     # no such release
    Good:
        added_in: 1.3.0
    """
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
                             _hint(value, versions) or f"known releases: {', '.join(sorted(known))}")


@rule("CLR304", "orphan", "error", "A file or part of the tree that nothing refers to, or a required file that is missing")
def orphans(ctx: Context) -> Iterable[Diagnostic]:
    """
    A category file that `taxonomy.yaml` does not list is never shown in reports; a tree without
    `taxonomy/taxonomy.yaml` or `registry/releases.yaml` cannot be checked.

    Bad:
        taxonomy/extra_category.yaml   (not in taxonomy.yaml's categories)
    Good:
        categories: [..., extra_category]
    """
    listed = set(ctx.reg.taxonomy.categories) if ctx.reg.taxonomy else None
    for cat_id, (_, sf) in ctx.reg.categories.items():
        if listed is not None and cat_id not in listed:
            yield ctx.at("CLR304", sf, ("id",), f"category {cat_id!r} is not listed in {TAXONOMY_FILE}",
                         f"add `{cat_id}` to `categories` in {TAXONOMY_FILE}")
    for rel in (TAXONOMY_FILE, RELEASES_FILE):
        if not _broken_file(ctx, rel):
            yield make("CLR304", rel, 1, 1, f"{rel} is missing", "every registry tree needs this file")
