"""Coverage rules: every subcategory has tasks and datasets; uncovered tasks and thin subcategories are reported."""

from __future__ import annotations

from typing import Iterable

from clinreg.diagnostics import Diagnostic
from clinreg.rules.base import rule
from clinreg.rules.context import Context


def _datasets_of(ctx: Context, sub) -> set[str]:
    return {ds for t in sub.tasks for ds in ctx.task_datasets.get(t.id, [])}


@rule("CLR401", "subcategory-without-tasks", "error", "A subcategory has no tasks")
def subcategory_without_tasks(ctx: Context) -> Iterable[Diagnostic]:
    """
    A subcategory is defined by the work it covers; without tasks no dataset can be placed in it.

    Bad:
        - id: recording_procedures
          tasks: []
    Good:
        - id: recording_procedures
          tasks:
            - id: write_operative_notes
              ...
    """
    for sub, _, sf, path in ctx.reg.subcategories():
        if not sub.tasks:
            yield ctx.at("CLR401", sf, path + ("id",), f"subcategory {sub.id!r} has no tasks")


@rule("CLR402", "subcategory-without-datasets", "error", "No dataset measures any task of a subcategory")
def subcategory_without_datasets(ctx: Context) -> Iterable[Diagnostic]:
    """
    MedHELM evaluates every subcategory with at least one benchmark. A subcategory with no dataset mapped to
    any of its tasks has no evidence at all.

    Bad:
        (no mapping in registry/datasets/ lists a task of `recording_procedures`)
    Good:
        mappings:
          - id: mtsamples_procedures
            tasks: [write_operative_notes]
    """
    if ctx.incomplete:  # a record that failed to load may be the one that covers it; report that failure only
        return
    for sub, _, sf, path in ctx.reg.subcategories():
        if sub.tasks and not _datasets_of(ctx, sub):
            yield ctx.at("CLR402", sf, path + ("id",), f"no dataset measures any task of subcategory {sub.id!r}",
                         "map a dataset to one of its tasks, or say why none exists")


@rule("CLR403", "task-without-datasets", "info", "A task has no dataset")
def task_without_datasets(ctx: Context) -> Iterable[Diagnostic]:
    """
    Reported for information: the taxonomy has many more tasks than there are benchmarks, and these are
    the gaps a new dataset could fill.

    Bad:
        (no mapping lists `reconcile_medication_lists`)
    Good:
        mappings:
          - tasks: [reconcile_medication_lists]
    """
    if ctx.incomplete:
        return
    for sub, _, sf, path in ctx.reg.subcategories():
        for j, task in enumerate(sub.tasks):
            if task.id not in ctx.task_datasets:
                yield ctx.at("CLR403", sf, path + ("tasks", j, "id"), f"task {task.id!r} has no dataset")


@rule("CLR404", "thin-subcategory", "info", "A subcategory rests on a single dataset")
def thin_subcategory(ctx: Context) -> Iterable[Diagnostic]:
    """
    MedHELM's authors warn that per-subcategory results rest on thin ground: 15 of the 22 subcategories
    have one benchmark. A score for such a subcategory is a score for one dataset.

    Bad:
        managing_research_enrollment: n2c2_ct_matching only
    Good:
        providing_clinical_knowledge_support: head_qa, medbullets, med_qa, med_mcqa, ...
    """
    for sub, _, sf, path in ctx.reg.subcategories():
        datasets = _datasets_of(ctx, sub)
        if len(datasets) == 1:
            yield ctx.at("CLR404", sf, path + ("id",), f"subcategory {sub.id!r} rests on a single dataset ({next(iter(datasets))})")


@rule("CLR405", "task-total", "warning", "The taxonomy's task count differs from its declared total")
def task_total(ctx: Context) -> Iterable[Diagnostic]:
    """
    `taxonomy.yaml` may declare `task_total` (121 for MedHELM). When the files hold a different number,
    tasks were lost or added by mistake.

    Bad:
        task_total: 121    # but the category files hold 120 tasks
    Good:
        task_total: 121    # and the category files hold 121
    """
    tax, sf = ctx.reg.taxonomy, ctx.reg.taxonomy_file
    if tax is None or sf is None or tax.task_total is None or not ctx.reg.categories:
        return
    n = sum(len(sub.tasks) for sub, *_ in ctx.reg.subcategories())
    if n != tax.task_total:
        yield ctx.at("CLR405", sf, ("task_total",), f"the category files hold {n} tasks, but task_total is {tax.task_total}")
