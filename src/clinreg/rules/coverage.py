"""Coverage rules: every subcategory has tasks and datasets; uncovered tasks and thin subcategories are reported."""

from __future__ import annotations

from typing import Iterable

from clinreg.core.diagnostics import Diagnostic
from clinreg.rules.base import rule
from clinreg.rules.context import Context


def _datasets_of(ctx: Context, sub) -> set[str]:
    return {ds for t in sub.tasks for ds in ctx.task_datasets.get(t.id, [])}


@rule("CLR401")
def subcategory_without_tasks(ctx: Context) -> Iterable[Diagnostic]:
    for sub, _, sf, path in ctx.reg.subcategories():
        if not sub.tasks:
            yield ctx.at("CLR401", sf, path + ("id",), f"subcategory {sub.id!r} has no tasks")


@rule("CLR402")
def subcategory_without_datasets(ctx: Context) -> Iterable[Diagnostic]:
    if ctx.incomplete:  # a record that failed to load may be the one that covers it; report that failure only
        return
    for sub, _, sf, path in ctx.reg.subcategories():
        if sub.tasks and not _datasets_of(ctx, sub):
            yield ctx.at("CLR402", sf, path + ("id",), f"no dataset measures any task of subcategory {sub.id!r}",
                         "map a dataset to one of its tasks, or say why none exists")


@rule("CLR403")
def task_without_datasets(ctx: Context) -> Iterable[Diagnostic]:
    if ctx.incomplete:
        return
    for sub, _, sf, path in ctx.reg.subcategories():
        for j, task in enumerate(sub.tasks):
            if task.id not in ctx.task_datasets:
                yield ctx.at("CLR403", sf, path + ("tasks", j, "id"), f"task {task.id!r} has no dataset")


@rule("CLR404")
def thin_subcategory(ctx: Context) -> Iterable[Diagnostic]:
    for sub, _, sf, path in ctx.reg.subcategories():
        datasets = _datasets_of(ctx, sub)
        if len(datasets) == 1:
            yield ctx.at("CLR404", sf, path + ("id",),
                         f"subcategory {sub.id!r} rests on a single dataset ({next(iter(datasets))})")


@rule("CLR405")
def task_total(ctx: Context) -> Iterable[Diagnostic]:
    tax, sf = ctx.reg.taxonomy, ctx.reg.taxonomy_file
    if tax is None or sf is None or tax.task_total is None or not ctx.reg.categories:
        return
    n = sum(len(sub.tasks) for sub, *_ in ctx.reg.subcategories())
    if n != tax.task_total:
        yield ctx.at("CLR405", sf, ("task_total",),
                     f"the category files hold {n} tasks, but task_total is {tax.task_total}")


@rule("CLR406")
def subcategory_task_count(ctx: Context) -> Iterable[Diagnostic]:
    for sub, _, sf, path in ctx.reg.subcategories():
        expected = sub.tasks_expected
        if expected is not None and len(sub.tasks) != expected.count:
            yield ctx.at("CLR406", sf, path + ("tasks_expected", "count"),
                         f"subcategory {sub.id!r} holds {len(sub.tasks)} tasks; {expected.citation.text} gives "
                         f"{expected.count}", "merge, move or draft tasks, or explain the difference in the note")
