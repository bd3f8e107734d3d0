"""The coverage matrix as plain data: tasks, datasets and access tiers per category, subcategory and task."""

from __future__ import annotations

import datetime as dt
from typing import Any, Iterable

from clinreg.core.model import ACCESS_TIERS
from clinreg.core.reviewstate import AWAITING, STATES, derive_state, item_hash, policy_of, states_for
from clinreg.core.store import Registry, gc_paused
from clinreg.scoring import judge_calls, judge_requirement

PROVENANCE = ("published", "derived", "drafted")


def tier_counts(tasks: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per provenance tier: tasks counted (rejected ones left out) and how many of them have a dataset."""
    counted = [t for t in tasks if t["review"] != "rejected"]
    return {kind: {"tasks": sum(1 for t in counted if t["provenance"] == kind),
                   "covered": sum(1 for t in counted if t["provenance"] == kind and t["datasets"])}
            for kind in PROVENANCE}


def tier_summary(by_tier: dict[str, dict[str, int]]) -> str:
    """`published 2/2, derived 32/33, drafted 0/86 covered`."""
    return ", ".join(f"{k} {v['covered']}/{v['tasks']}" for k, v in by_tier.items()) + " covered"


REVIEW_STATES = STATES


def judging(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """The judge calls one model run of these benchmarks ((dataset id, mapping) pairs, each counted once) takes:
    `judge_calls` sums what can be counted, `judged_benchmarks` counts those needing a judge, and
    `judge_calls_uncounted` names those whose calls cannot be counted, a benchmark whose scoring clinreg cannot
    express among them (so the sum is a floor where it is not empty)."""
    seen: dict[tuple[str, str], Any] = {}
    for d, m in pairs:
        seen.setdefault((d, m.id), m)
    total, judged, uncounted = 0, 0, []
    for key in sorted(seen):
        mapping = seen[key]
        judged += judge_requirement(mapping).needs_judge is True
        calls, _ = judge_calls(mapping)
        if calls is None:
            uncounted.append(key[1])
        else:
            total += calls
    return {"judge_calls": total, "judged_benchmarks": judged, "judge_calls_uncounted": uncounted}


def review_state(kind: str, item, placement: str, policy=None) -> str:
    """The derived review state of a task (placement: its subcategory id) or subcategory (its category id),
    under the taxonomy's panel policy when it has one."""
    return derive_state(item.review, item_hash(kind, item, placement), policy).state


def provenance_note(by_tier: dict[str, dict[str, int]], awaiting: int, rejected: int) -> str:
    """One honest sentence on where the task wording comes from, shared by every coverage output."""
    published, derived, drafted = (by_tier[k]["tasks"] for k in PROVENANCE)
    total = published + derived + drafted
    note = (f"Of {total} tasks: {published} published (named in a public source), {derived} derived (worded by "
            f"clinreg maintainers from a benchmark's description) and {drafted} drafted by clinreg maintainers; "
            f"derived and drafted wording is ours and unverified until a clinician approves it. "
            f"Coverage by tier: {tier_summary(by_tier)}. {awaiting} tasks await clinician review.")
    if rejected:
        note += (f" {rejected} rejected task{'s' if rejected != 1 else ''} {'are' if rejected != 1 else 'is'} left out "
                 "of every count.")
    return note


def coverage_data(reg: Registry, access: Iterable[str] | None = None, today: dt.date | None = None,
                  medhelm_only: bool = False) -> dict[str, Any]:
    """Everything every coverage format shows. Renderers format this; none of them recompute it.

    `access` restricts the datasets counted to those tiers (what a given user can reproduce); `medhelm_only`
    to the records MedHELM's published evaluation runs (`in_medhelm: true`).
    """
    with gc_paused():  # many small acyclic dicts while a large registry is alive: see store.gc_paused
        return _coverage_data(reg, access, today, medhelm_only)


def _coverage_data(reg: Registry, access: Iterable[str] | None, today: dt.date | None,
                   medhelm_only: bool) -> dict[str, Any]:
    tiers = tuple(access) if access else ACCESS_TIERS
    datasets = {k: v for k, v in reg.datasets.items() if v.access.tier in tiers and (v.in_medhelm or not medhelm_only)}
    ordered: dict[str, dict[str, None]] = {}  # dicts as ordered sets: a list membership test was quadratic
    task_benchmarks: dict[str, int] = {}
    for ds_id in sorted(datasets):
        for m in datasets[ds_id].mappings:
            for t in m.tasks:
                ordered.setdefault(t, {})[ds_id] = None
                task_benchmarks[t] = task_benchmarks.get(t, 0) + 1
    task_datasets = {t: list(ids) for t, ids in ordered.items()}

    categories, subcategories, tasks = [], [], []
    for category, _ in reg.ordered_categories():
        cat_subs, cat_pairs = [], []
        for sub in category.subcategories:
            sub_tasks = [{
                "id": t.id,
                "name": t.name,
                "subcategory": sub.id,
                "category": category.id,
                "provenance": t.provenance.kind,
                "review": review_state("task", t, sub.id, policy_of(reg)),
                "datasets": task_datasets.get(t.id, []),
                "benchmarks": task_benchmarks.get(t.id, 0),
            } for t in sub.tasks]
            tasks.extend(sub_tasks)
            # Rejected tasks stay listed but leave every denominator: the registry no longer claims that work.
            counted = [t for t in sub_tasks if t["review"] != "rejected"]
            ds_ids = sorted({d for t in counted for d in t["datasets"]})
            counted_ids = {t["id"] for t in counted}
            mappings = [(d, m) for d in ds_ids for m in datasets[d].mappings if any(t in counted_ids for t in m.tasks)]
            states = [t["review"] for t in sub_tasks]
            row = {
                "id": sub.id,
                "name": sub.name,
                "category": category.id,
                "category_name": category.name,
                "tasks": len(counted),
                "tasks_expected": None if sub.tasks_expected is None else {
                    "count": sub.tasks_expected.count, "source": sub.tasks_expected.citation.text,
                    "matches": sub.tasks_expected.count == len(sub_tasks)},
                "tasks_covered": sum(1 for t in counted if t["datasets"]),
                "tasks_drafted": sum(1 for t in counted if t["provenance"] == "drafted"),
                "tasks_rejected": len(sub_tasks) - len(counted),
                "by_tier": tier_counts(sub_tasks),
                "uncovered_tasks": [t["id"] for t in counted if not t["datasets"]],
                "datasets": ds_ids,
                "benchmarks": len(mappings),
                "access": {tier: sum(1 for d in ds_ids if datasets[d].access.tier == tier) for tier in ACCESS_TIERS},
                "instances": sum(m.instances.evaluated or 0 for d, m in mappings if datasets[d].in_medhelm),
                "not_in_medhelm": [d for d in ds_ids if not datasets[d].in_medhelm],
                **judging(mappings),
                "thin": len(ds_ids) == 1,
                "review": {s: states.count(s) for s in states_for(policy_of(reg))},
                "subcategory_review": review_state("subcategory", sub, category.id, policy_of(reg)),
            }
            cat_subs.append(row)
            cat_pairs.extend(mappings)
            subcategories.append(row)
        cat_ds = sorted({d for s in cat_subs for d in s["datasets"]})
        categories.append({
            "id": category.id,
            "name": category.name,
            "subcategories": len(cat_subs),
            "tasks": sum(s["tasks"] for s in cat_subs),
            "tasks_covered": sum(s["tasks_covered"] for s in cat_subs),
            "tasks_drafted": sum(s["tasks_drafted"] for s in cat_subs),
            "tasks_rejected": sum(s["tasks_rejected"] for s in cat_subs),
            "by_tier": tier_counts([t for t in tasks if t["category"] == category.id]),
            "datasets": cat_ds,
            "benchmarks": sum(s["benchmarks"] for s in cat_subs),
            "access": {tier: sum(1 for d in cat_ds if datasets[d].access.tier == tier) for tier in ACCESS_TIERS},
            "instances": sum(s["instances"] for s in cat_subs),
            "not_in_medhelm": [d for d in cat_ds if not datasets[d].in_medhelm],
            **judging(cat_pairs),
            "thin_subcategories": sum(1 for s in cat_subs if s["thin"]),
        })

    counted = [t for t in tasks if t["review"] != "rejected"]
    by_tier = tier_counts(tasks)
    drafted = by_tier["drafted"]["tasks"]
    rejected = len(tasks) - len(counted)
    awaiting = sum(1 for t in tasks if t["review"] in AWAITING)
    totals = {
        "categories": len(categories),
        "subcategories": len(subcategories),
        "tasks": len(counted),
        "tasks_covered": sum(1 for t in counted if t["datasets"]),
        "tasks_drafted": drafted,
        "tasks_published": by_tier["published"]["tasks"],
        "tasks_derived": by_tier["derived"]["tasks"],
        "tasks_rejected": rejected,
        "by_tier": by_tier,
        "tier_summary": tier_summary(by_tier),
        "tasks_awaiting_review": awaiting,
        "tasks_approved": sum(1 for t in tasks if t["review"] == "approved"),
        "datasets": len(datasets),
        "datasets_in_medhelm": sum(1 for d in datasets.values() if d.in_medhelm),
        "datasets_not_in_medhelm": sum(1 for d in datasets.values() if not d.in_medhelm),
        "benchmarks": sum(len(d.mappings) for d in datasets.values()),
        "collections": len({d.collection or k for k, d in datasets.items()}),
        "access": {tier: sum(1 for d in datasets.values() if d.access.tier == tier) for tier in ACCESS_TIERS},
        # "Instances MedHELM evaluated": a record beyond MedHELM adds none, whatever its own counts say.
        "instances": sum(m.instances.evaluated or 0 for d in datasets.values() if d.in_medhelm for m in d.mappings),
        **judging((k, m) for k, d in datasets.items() for m in d.mappings),
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
        "medhelm_only": medhelm_only,
        "medhelm_edition": edition_summary(reg),
        "totals": totals,
        "provenance_note": provenance_note(by_tier, awaiting, rejected),
        "categories": categories,
        "subcategories": subcategories,
        "tasks": tasks,
        "datasets": [
            {"id": k, "name": d.name, "access": d.access.tier, "added_in": d.added_in, "in_medhelm": d.in_medhelm,
             "medhelm_editions": [e.id for e in reg.editions.editions_of(k)] if reg.editions else [],
             "medhelm_unreleased": [e.id for e in reg.editions.only_unreleased(k)] if reg.editions else [],
             "collection": d.collection,
             "licence": d.licence.spdx, "benchmarks": len(d.mappings),
             "tasks": sorted({t for m in d.mappings for t in m.tasks}),
             "instances": sum(m.instances.evaluated or 0 for m in d.mappings) if d.in_medhelm else 0,
             **judging((k, m) for m in d.mappings),
             "judge": {m.id: {**judge_requirement(m).to_dict(), "judge_calls": judge_calls(m)[0]} for m in d.mappings}}
            for k, d in sorted(datasets.items())
        ],
    }


def edition_summary(reg: Registry) -> dict[str, Any] | None:
    """The MedHELM edition a view follows, as every report names it: id, title, date, source, and whether the view
    keeps only its benchmarks (`--medhelm EDITION`) or marks every record by it (the default)."""
    edition = reg.medhelm_edition
    if edition is None:
        return None
    return {"id": edition.id, "title": edition.title, "date": edition.date.isoformat(), "source": edition.where,
            "benchmarks": len(edition.benchmarks), "only": reg.edition_filtered,
            "default": reg.editions is not None and edition.id == reg.editions.default,
            "released": edition.released, "unreleased": edition.unreleased_words}


def edition_line(edition: dict[str, Any] | None) -> str | None:
    """One line naming the edition, for the text, Markdown, CSV and HTML reports."""
    if not edition:
        return None
    how = "only its benchmarks" if edition["only"] else "\"in MedHELM\" marks follow it"
    line = f"MedHELM edition {edition['id']}: {edition['title']} [{edition['source']}, {edition['date']}]; {how}"
    if edition.get("unreleased"):
        line = f"UNRELEASED {line}; its benchmarks are {edition['unreleased']}, not MedHELM's published set"
    return line
