"""The coverage matrix as plain data: tasks, datasets and access tiers per category, subcategory and task."""

from __future__ import annotations

import datetime as dt
from typing import Any, Iterable

from clinreg.hashing import review_hash
from clinreg.store import Registry

TIERS = ("public", "gated", "private")


def review_state(review, name: str, definition: str) -> str:
    """approved | stale | proposed | rejected | changes_requested, as reports show it."""
    if review is None:
        return "proposed"
    if review.status == "approved":
        return "approved" if review.content_hash == review_hash(name, definition) else "stale"
    return review.status


def coverage_data(reg: Registry, access: Iterable[str] | None = None, today: dt.date | None = None) -> dict[str, Any]:
    """Everything every coverage format shows. Renderers format this; none of them recompute it.

    `access` restricts the datasets counted to those tiers (what a given user can reproduce).
    """
    tiers = tuple(access) if access else TIERS
    datasets = {k: v for k, v in reg.datasets.items() if v.access.tier in tiers}
    task_datasets: dict[str, list[str]] = {}
    task_benchmarks: dict[str, int] = {}
    for ds_id in sorted(datasets):
        for m in datasets[ds_id].mappings:
            for t in m.tasks:
                if ds_id not in task_datasets.setdefault(t, []):
                    task_datasets[t].append(ds_id)
                task_benchmarks[t] = task_benchmarks.get(t, 0) + 1

    categories, subcategories, tasks = [], [], []
    for category, _ in reg.ordered_categories():
        cat_subs = []
        for sub in category.subcategories:
            ds_ids = sorted({d for t in sub.tasks for d in task_datasets.get(t.id, [])})
            mappings = [(d, m) for d in ds_ids for m in datasets[d].mappings if any(t.id in m.tasks for t in sub.tasks)]
            states = [review_state(t.review, t.name, t.definition) for t in sub.tasks]
            row = {
                "id": sub.id,
                "name": sub.name,
                "category": category.id,
                "category_name": category.name,
                "tasks": len(sub.tasks),
                "tasks_covered": sum(1 for t in sub.tasks if t.id in task_datasets),
                "tasks_drafted": sum(1 for t in sub.tasks if t.provenance.kind == "drafted"),
                "uncovered_tasks": [t.id for t in sub.tasks if t.id not in task_datasets],
                "datasets": ds_ids,
                "benchmarks": len(mappings),
                "access": {tier: sum(1 for d in ds_ids if datasets[d].access.tier == tier) for tier in TIERS},
                "instances": sum(m.instances.evaluated or 0 for _, m in mappings),
                "thin": len(ds_ids) == 1,
                "review": {s: states.count(s) for s in ("approved", "proposed", "stale", "changes_requested", "rejected")},
                "subcategory_review": review_state(sub.review, sub.name, sub.definition),
            }
            cat_subs.append(row)
            subcategories.append(row)
            for t in sub.tasks:
                tasks.append({
                    "id": t.id,
                    "name": t.name,
                    "subcategory": sub.id,
                    "category": category.id,
                    "provenance": t.provenance.kind,
                    "review": review_state(t.review, t.name, t.definition),
                    "datasets": task_datasets.get(t.id, []),
                    "benchmarks": task_benchmarks.get(t.id, 0),
                })
        cat_ds = sorted({d for s in cat_subs for d in s["datasets"]})
        categories.append({
            "id": category.id,
            "name": category.name,
            "subcategories": len(cat_subs),
            "tasks": sum(s["tasks"] for s in cat_subs),
            "tasks_covered": sum(s["tasks_covered"] for s in cat_subs),
            "tasks_drafted": sum(s["tasks_drafted"] for s in cat_subs),
            "datasets": cat_ds,
            "benchmarks": sum(s["benchmarks"] for s in cat_subs),
            "access": {tier: sum(1 for d in cat_ds if datasets[d].access.tier == tier) for tier in TIERS},
            "instances": sum(s["instances"] for s in cat_subs),
            "thin_subcategories": sum(1 for s in cat_subs if s["thin"]),
        })

    drafted = sum(1 for t in tasks if t["provenance"] == "drafted")
    awaiting = sum(1 for t in tasks if t["review"] in ("proposed", "stale", "changes_requested"))
    totals = {
        "categories": len(categories),
        "subcategories": len(subcategories),
        "tasks": len(tasks),
        "tasks_covered": sum(1 for t in tasks if t["datasets"]),
        "tasks_drafted": drafted,
        "tasks_sourced": len(tasks) - drafted,
        "tasks_awaiting_review": awaiting,
        "tasks_approved": sum(1 for t in tasks if t["review"] == "approved"),
        "datasets": len(datasets),
        "benchmarks": sum(len(d.mappings) for d in datasets.values()),
        "collections": len({d.collection or k for k, d in datasets.items()}),
        "access": {tier: sum(1 for d in datasets.values() if d.access.tier == tier) for tier in TIERS},
        "instances": sum(m.instances.evaluated or 0 for d in datasets.values() for m in d.mappings),
        "thin_subcategories": sum(1 for s in subcategories if s["thin"]),
        "uncovered_subcategories": sum(1 for s in subcategories if not s["datasets"]),
    }
    published_total = reg.taxonomy.task_total if reg.taxonomy else None
    release_dates = {r.version: r.date.isoformat() for r in reg.releases.releases} if reg.releases else {}
    return {
        "release": reg.current_release,
        "release_date": release_dates.get(reg.current_release or ""),
        "date": (today or dt.date.today()).isoformat(),
        "taxonomy": {"id": reg.taxonomy.id, "name": reg.taxonomy.name, "version": reg.taxonomy.version,
                     "published_task_total": published_total} if reg.taxonomy else None,
        "access_filter": list(tiers),
        "totals": totals,
        "provenance_note": (
            f"{drafted} of {len(tasks)} tasks were drafted by clinreg maintainers; the other {len(tasks) - drafted} "
            f"come from public sources (few tasks are named there; most were worded by clinreg from the work "
            f"MedHELM's benchmarks measure). {awaiting} tasks await clinician review."
        ),
        "categories": categories,
        "subcategories": subcategories,
        "tasks": tasks,
        "datasets": [
            {"id": k, "name": d.name, "access": d.access.tier, "added_in": d.added_in, "collection": d.collection,
             "licence": d.licence.spdx, "benchmarks": len(d.mappings),
             "tasks": sorted({t for m in d.mappings for t in m.tasks}),
             "instances": sum(m.instances.evaluated or 0 for m in d.mappings)}
            for k, d in sorted(datasets.items())
        ],
    }
