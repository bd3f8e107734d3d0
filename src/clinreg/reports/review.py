"""The review document as plain data: every category, subcategory and task with its provenance, review and datasets."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from typing import Any

from clinreg.core.model import Citation, Review
from clinreg.core.provenance import dataset_names, plain_note
from clinreg.core.reviewstate import (
    AWAITING, PENDING, derive_state, item_content, item_hash, policy_of, sealed, states_for, tally_words,
)
from clinreg.core.store import Registry
from clinreg.errors import ClinregError
from clinreg.reports.coverage import PROVENANCE, coverage_data, tier_counts, tier_summary


class UnknownCategory(ClinregError, ValueError):
    """The requested category is not in the taxonomy."""

    default_code = "CLR984"


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


_TOKEN = re.compile(r"\s*(?:\w[\w'’-]*|[^\w\s])")


def word_diff(old: str, new: str) -> list[dict[str, Any]]:
    """The words that changed between two texts: runs of kept (`same`), removed (`del`) and added (`ins`) words
    and punctuation, in reading order, so a reader sees the change, not two whole sentences. `space` says
    whether a space comes before the run; spacing differences are no change."""
    before, after = _TOKEN.findall(" ".join(old.split())), _TOKEN.findall(" ".join(new.split()))
    parts: list[dict[str, Any]] = []

    def run(op: str, tokens: list[str]) -> None:
        text = "".join(tokens)
        parts.append({"op": op, "text": text.strip(), "space": bool(parts) and text[:1].isspace()})

    matcher = difflib.SequenceMatcher(None, [t.strip() for t in before], [t.strip() for t in after], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            run("same", after[j1:j2])
            continue
        if i2 > i1:
            run("del", before[i1:i2])
        if j2 > j1:
            run("ins", after[j1:j2])
    return parts


_FIELD_WORDS = {"name": "Name", "definition": "Definition", "example": "Example"}


def _changes(kind: str, previous: dict[str, Any] | None, now: dict[str, Any],
             places: dict[str, str]) -> list[dict[str, Any]]:
    """Each field that changed since the last decision, as a word diff; a placement is shown by its name."""
    if previous is None:
        return []
    out = []
    for key in ("name", "definition", "example", "placement"):
        old, new = previous.get(key) or "", now.get(key) or ""
        if " ".join(old.split()) == " ".join(new.split()):
            continue
        if key == "placement":
            label = "Subcategory" if kind == "task" else "Category"
            old, new = places.get(old, old), places.get(new, new)
        else:
            label = _FIELD_WORDS[key]
        out.append({"field": key, "label": label,
                    "parts": word_diff(old, new) if old and new else
                    [p for p in ({"op": "del", "text": old, "space": False},
                                 {"op": "ins", "text": new, "space": bool(old)}) if p["text"]]})
    return out


def _reviewer(r: Any) -> dict[str, Any]:
    # `adjudication` only where it is set, so that a tree without adjudications reads as it always did
    return {**r.model_dump(mode="json", exclude=None if r.adjudication else {"adjudication"}),
            "href": f"https://orcid.org/{r.orcid}" if r.orcid else None}


def _review(kind: str, item: Any, placement: str, places: dict[str, str] | None = None,
            policy: Any = None) -> dict[str, Any]:
    review: Review | None = item.review
    derived = derive_state(review, item_hash(kind, item, placement), policy)
    history = [] if review is None else list(review.reviewers)
    if sealed(derived):  # the panel is still deciding: no reviewer reads another's decision or note before deciding
        history = [r for r in history if r.content_hash != derived.content_hash]
    reviewers = [_reviewer(r) for r in history]
    previous = (derived.previous.reviewed.model_dump(mode="json") if derived.previous and derived.previous.reviewed
                else None)
    return {
        "state": derived.state,
        "content_hash": derived.content_hash,
        "version": derived.content_hash.split(":")[-1][:12],
        "content": item_content(kind, item, placement),
        "previous_content": previous,
        "previous_decision": derived.previous.decision if derived.previous else None,
        "changes": _changes(kind, previous, item_content(kind, item, placement), places or {}),
        "status": review.status if review else None,
        "date": review.date.isoformat() if review and review.date else None,
        "reviewers": reviewers,
        **({} if policy is None else {"panel": None if derived.panel is None else {
            **derived.panel, "words": tally_words(derived.panel), "sealed": sealed(derived)},
            "adjudication": None if derived.adjudication is None else _reviewer(derived.adjudication)}),
    }


def review_document(reg: Registry, category: str | None = None, today: dt.date | None = None,
                    pending: bool = False) -> dict[str, Any]:
    """The taxonomy as clinicians review it. `category` limits it to one category id; `pending` to the tasks
    that need a clinician (proposed, stale, revised or conflicting)."""
    known = [c.id for c, _ in reg.ordered_categories()]
    if category is not None and category not in known:
        raise UnknownCategory(f"--category {category}: no such category (known: {', '.join(known) or 'none'})")
    coverage = coverage_data(reg, today=today)
    task_datasets = {t["id"]: t["datasets"] for t in coverage["tasks"]}
    places = {c.id: c.name for c, _ in reg.ordered_categories()}  # a placement shown by name in what changed
    places.update({s.id: s.name for s, *_ in reg.subcategories()})
    names = dataset_names(reg)
    policy = policy_of(reg)
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
                                     "in_medhelm": ds.in_medhelm,
                                     "benchmarks": [m.id for m in ds.mappings if task.id in m.tasks]})
                note_words, placement_words = plain_note(task.provenance.note, names,
                                                         task.provenance.subcategory_assignment)
                tasks.append({
                    "id": task.id, "name": task.name, "definition": task.definition, "example": task.example,
                    "provenance": {"kind": task.provenance.kind, "citation": _citation(task.provenance.citation),
                                   "quote": task.provenance.quote, "benchmarks": list(task.provenance.benchmarks),
                                   "note": task.provenance.note,
                                   # for a clinician: display names for ids, the placement in a sentence
                                   "benchmark_names": [names.get(b, b) for b in task.provenance.benchmarks],
                                   "note_words": note_words, "placement_words": placement_words},
                    "review": _review("task", task, sub.id, places, policy),
                    "datasets": datasets,
                })
            expected = None if sub.tasks_expected is None else {
                "count": sub.tasks_expected.count, "held": len(sub.tasks), "source": sub.tasks_expected.citation.text,
                "note": sub.tasks_expected.note}
            subcategories.append({"id": sub.id, "name": sub.name, "definition": sub.definition, "note": sub.note,
                                  "note_words": plain_note(sub.note, names)[0],
                                  "tasks_expected": expected,
                                  "review": _review("subcategory", sub, cat.id, places, policy), "tasks": tasks})
        categories.append({"id": cat.id, "name": cat.name, "definition": cat.definition,
                           "subcategories": subcategories})
    if pending:
        for c in categories:
            for s in c["subcategories"]:
                s["tasks"] = [t for t in s["tasks"] if t["review"]["state"] in PENDING]
            c["subcategories"] = [s for s in c["subcategories"] if s["tasks"] or s["review"]["state"] in PENDING]
        categories = [c for c in categories if c["subcategories"]]
    number = 0
    for c in categories:
        for s in c["subcategories"]:
            for t in s["tasks"]:
                number += 1
                t["number"] = number
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
        "datasets": len({d["id"] for t in all_tasks for d in t["datasets"]}),
        "datasets_not_in_medhelm": len({d["id"] for t in all_tasks for d in t["datasets"] if not d["in_medhelm"]}),
        "review": {s: states.count(s) for s in states_for(policy)},
    }
    taxonomy = reg.taxonomy
    panel = {} if policy is None else {"review_policy": policy.model_dump(mode="json")}
    return {
        "release": reg.current_release,
        "date": coverage["date"],
        "taxonomy": None if taxonomy is None else {
            "id": taxonomy.id, "name": taxonomy.name, "version": taxonomy.version,
            "citation": _citation(taxonomy.citation), "note": taxonomy.note,
        },
        "category_filter": category,
        "pending_only": pending,
        "medhelm_edition": coverage.get("medhelm_edition"),
        "counts": counts,
        # Said once, plainly (issue 22): how many await review, and whose words they are.
        "summary": (
            f"{awaiting} of the {len(all_tasks)} tasks in this document await your review. "
            f"{tiers['published']} task name{'s' if tiers['published'] != 1 else ''} "
            f"{'are' if tiers['published'] != 1 else 'is'} quoted from a public source; the other "
            f"{tiers['derived'] + drafted} were worded by clinreg's maintainers ({tiers['derived']} from a "
            f"benchmark's description, {drafted} written to fill gaps). A task is covered when at least one "
            f"benchmark in the registry measures it."
        ),
        "categories": categories,
        **panel,
    }


def status_rows(reg: Registry, only: str | None = None) -> list[dict[str, Any]]:
    """Every task and subcategory with its derived review state; `only` is pending, stale or conflicts."""
    policy = policy_of(reg)
    wanted = {"pending": PENDING, "stale": ("stale",), "conflicts": ("conflicting", "split")}.get(
        only or "", states_for(policy))
    rows = []
    for sub, cat, sf, _ in reg.subcategories():
        items = [("subcategory", sub, cat.id)] + [("task", t, sub.id) for t in sub.tasks]
        for kind, item, placement in items:
            state = derive_state(item.review, item_hash(kind, item, placement), policy)
            if state.state not in wanted:
                continue
            prev = state.previous
            rows.append({
                "kind": kind, "id": item.id, "file": sf.rel, "placement": placement, "state": state.state,
                "provenance": item.provenance.kind if kind == "task" else None,
                "version": state.content_hash.split(":")[-1][:12], "content_hash": state.content_hash,
                "decisions": [{"name": r.name, "orcid": r.orcid, "decision": r.decision,
                               "date": r.date.isoformat() if r.date else None, "note": r.note} for r in state.current],
                "previous": None if prev is None else {
                    "name": prev.name, "decision": prev.decision, "date": prev.date.isoformat() if prev.date else None,
                    "reviewed": prev.reviewed.model_dump(mode="json") if prev.reviewed else None,
                    "now": item_content(kind, item, placement)},
                **({} if state.panel is None else {"panel": state.panel}),
                **({} if state.adjudication is None else {"adjudication": {
                    "maintainer": state.adjudication.name, "decision": state.adjudication.decision,
                    "date": state.adjudication.date.isoformat() if state.adjudication.date else None,
                    "reason": state.adjudication.note}}),
            })
    return rows
