"""How far the review panel agrees: per panel, category and subcategory, the reviewers and the items each
reviewed, pairwise percent agreement (a proportion from 0 to 1 in the data;
printed as a percentage), Krippendorff's alpha (nominal) and the items the panel splits on.

An item is a task or a subcategory. Its values are each reviewer's latest decision on its current content
(approved, changes_requested or rejected); a reviewer who has not decided on it is missing. Comments without a
decision, decisions on older wording and a maintainer's adjudication are not votes."""

from __future__ import annotations

from typing import Any

from clinreg.core.reviewstate import derive_state, item_hash, policy_of
from clinreg.core.store import Registry
from clinreg.scoring import krippendorff_alpha, percent_agreement


def _who(reviewer: Any) -> str:
    return (reviewer.orcid or "").strip() or " ".join(reviewer.name.lower().split())


def _items(reg: Registry) -> list[dict[str, Any]]:
    policy = policy_of(reg)
    out = []
    for sub, category, _, _ in reg.subcategories():
        for kind, item, placement in [("subcategory", sub, category.id)] + [("task", t, sub.id) for t in sub.tasks]:
            state = derive_state(item.review, item_hash(kind, item, placement), policy)
            votes = {_who(r): (r.name, r.decision) for r in state.current}
            out.append({"kind": kind, "id": item.id, "category": category.id, "subcategory": sub.id,
                        "state": state.state, "adjudicated": state.adjudication is not None, "votes": votes})
    return out


def _why_undefined(pairable_items: int) -> str:
    """Why alpha has no value: no two decisions on one item, or no variation to compare against chance."""
    if not pairable_items:
        return "no item has decisions from two reviewers"
    return "every decision is the same, so there is no disagreement to set against chance"


def _summary(items: list[dict[str, Any]]) -> dict[str, Any]:
    raters = sorted({who for it in items for who in it["votes"]})
    names = {who: name for it in items for who, (name, _) in it["votes"].items()}
    units = [[it["votes"].get(who, (None, None))[1] for who in raters] for it in items]
    reviewed = [it for it in items if it["votes"]]
    pairable_items = sum(1 for it in items if len(it["votes"]) >= 2)
    alpha = krippendorff_alpha(units, "nominal")
    percent = percent_agreement(units)
    return {
        "reviewers": len(raters),
        "items": len(reviewed),
        "items_by_reviewer": [{"reviewer": names[who], "items": sum(1 for it in items if who in it["votes"])}
                              for who in raters],
        "pairable_items": pairable_items,
        "percent_agreement": percent,
        "percent_agreement_undefined": None if percent is not None else _why_undefined(0),
        "alpha": alpha,
        "alpha_undefined": None if alpha is not None else _why_undefined(pairable_items),
        "split": [{"kind": it["kind"], "id": it["id"], "state": it["state"], "adjudicated": it["adjudicated"],
                   "decisions": {names[who]: d for who, (_, d) in sorted(it["votes"].items())}}
                  for it in items if len({d for _, d in it["votes"].values()}) > 1],
    }


def review_agreement(reg: Registry) -> dict[str, Any]:
    """The panel's agreement overall, per category and per subcategory (in display order)."""
    items = _items(reg)
    categories, subcategories = [], []
    for category, _ in reg.ordered_categories():
        categories.append({"id": category.id, "name": category.name,
                           **_summary([it for it in items if it["category"] == category.id])})
        for sub in category.subcategories:
            subcategories.append({"id": sub.id, "name": sub.name, "category": category.id,
                                  **_summary([it for it in items if it["subcategory"] == sub.id])})
    policy = policy_of(reg)
    return {"review_policy": None if policy is None else policy.model_dump(mode="json"),
            "values": ["approved", "changes_requested", "rejected"],
            "overall": _summary(items), "categories": categories, "subcategories": subcategories}
