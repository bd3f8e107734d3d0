"""The review document as plain data: every category, subcategory and task with its provenance, review and datasets."""

from __future__ import annotations

import datetime as dt
from typing import Any

from clinreg.coverage import PROVENANCE, coverage_data, review_state, tier_counts, tier_summary
from clinreg.model import Citation, Review
from clinreg.store import Registry

AWAITING = ("proposed", "stale", "changes_requested")
STATES = ("approved", "proposed", "stale", "changes_requested", "rejected")


class UnknownCategory(ValueError):
    """The requested category is not in the taxonomy."""


def citation_link(citation: Citation | None) -> str | None:
    """An https link for a citation: DOI first, then arXiv, then its own URL when that is http(s)."""
    if citation is None:
        return None
    if citation.doi:
        return f"https://doi.org/{citation.doi}"
    if citation.arxiv:
        return f"https://arxiv.org/abs/{citation.arxiv}"
    if citation.url and citation.url.lower().startswith(("https://", "http://")):
        return citation.url
    return None


def _citation(citation: Citation | None) -> dict[str, Any] | None:
    if citation is None:
        return None
    return {**citation.model_dump(mode="json"), "href": citation_link(citation)}


def _review(review: Review | None, name: str, definition: str) -> dict[str, Any]:
    reviewers = [] if review is None else [
        {**r.model_dump(mode="json"), "href": f"https://orcid.org/{r.orcid}" if r.orcid else None}
        for r in review.reviewers
    ]
    return {
        "state": review_state(review, name, definition),
        "status": review.status if review else None,
        "date": review.date.isoformat() if review and review.date else None,
        "reviewers": reviewers,
    }


def review_document(reg: Registry, category: str | None = None, today: dt.date | None = None) -> dict[str, Any]:
    """The taxonomy as clinicians review it. `category` limits it to one category id."""
    known = [c.id for c, _ in reg.ordered_categories()]
    if category is not None and category not in known:
        raise UnknownCategory(f"--category {category}: no such category (known: {', '.join(known) or 'none'})")
    coverage = coverage_data(reg, today=today)
    task_datasets = {t["id"]: t["datasets"] for t in coverage["tasks"]}
    categories = []
    for cat, _ in reg.ordered_categories():
        if category is not None and cat.id != category:
            continue
        subcategories = []
        for sub in cat.subcategories:
            tasks = []
            for task in sub.tasks:
                datasets = []
                for ds_id in task_datasets.get(task.id, []):
                    ds = reg.datasets[ds_id]
                    datasets.append({"id": ds_id, "name": ds.name, "access": ds.access.tier,
                                     "benchmarks": [m.id for m in ds.mappings if task.id in m.tasks]})
                tasks.append({
                    "id": task.id, "name": task.name, "definition": task.definition, "example": task.example,
                    "provenance": {"kind": task.provenance.kind, "citation": _citation(task.provenance.citation),
                                   "quote": task.provenance.quote, "benchmarks": list(task.provenance.benchmarks),
                                   "note": task.provenance.note},
                    "review": _review(task.review, task.name, task.definition),
                    "datasets": datasets,
                })
            subcategories.append({"id": sub.id, "name": sub.name, "definition": sub.definition, "note": sub.note,
                                  "review": _review(sub.review, sub.name, sub.definition), "tasks": tasks})
        categories.append({"id": cat.id, "name": cat.name, "definition": cat.definition,
                           "subcategories": subcategories})
    all_tasks = [t for c in categories for s in c["subcategories"] for t in s["tasks"]]
    states = [t["review"]["state"] for t in all_tasks]
    tiers = {kind: sum(1 for t in all_tasks if t["provenance"]["kind"] == kind) for kind in PROVENANCE}
    drafted = tiers["drafted"]
    awaiting = sum(1 for s in states if s in AWAITING)
    by_tier = tier_counts([{"provenance": t["provenance"]["kind"], "review": t["review"]["state"],
                            "datasets": t["datasets"]} for t in all_tasks])
    ours_awaiting = sum(1 for t in all_tasks if t["provenance"]["kind"] in ("derived", "drafted")
                        and t["review"]["state"] in AWAITING)
    counts = {
        "categories": len(categories),
        "subcategories": sum(len(c["subcategories"]) for c in categories),
        "tasks": len(all_tasks),
        "tasks_published": tiers["published"],
        "tasks_derived": tiers["derived"],
        "tasks_drafted": drafted,
        "by_tier": by_tier,
        "tier_summary": tier_summary(by_tier),
        "tasks_awaiting_review": awaiting,
        "tasks_worded_by_clinreg_awaiting_review": ours_awaiting,
        "tasks_without_dataset": sum(1 for t in all_tasks if not t["datasets"]),
        "review": {s: states.count(s) for s in STATES},
    }
    taxonomy = reg.taxonomy
    return {
        "release": reg.current_release,
        "date": coverage["date"],
        "taxonomy": None if taxonomy is None else {
            "id": taxonomy.id, "name": taxonomy.name, "version": taxonomy.version,
            "citation": _citation(taxonomy.citation), "note": taxonomy.note,
        },
        "category_filter": category,
        "counts": counts,
        "summary": (
            f"{tiers['derived'] + drafted} of {len(all_tasks)} tasks in this document were worded by clinreg "
            f"maintainers ({tiers['derived']} derived from a benchmark's description, {drafted} drafted) and "
            f"{ours_awaiting} of them await clinician review; {tiers['published']} are published names. In all, "
            f"{awaiting} of {len(all_tasks)} tasks await review."
        ),
        "categories": categories,
    }
