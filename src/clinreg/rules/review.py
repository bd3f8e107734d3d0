"""Review rules: an approval must cover the current content, reviewers' current decisions must agree, and a
panel's split must be adjudicated."""

from __future__ import annotations

from typing import Iterable

from clinreg.core.diagnostics import Diagnostic
from clinreg.core.reviewstate import derive_state, item_content, item_hash, policy_of, tally_words
from clinreg.rules.base import rule
from clinreg.rules.context import Context


def review_items(ctx: Context):
    """Every reviewable item: (kind, item, placement, file, path) for subcategories and tasks."""
    for sub, category, sf, path in ctx.reg.subcategories():
        yield "subcategory", sub, category.id, sf, path
        for j, task in enumerate(sub.tasks):
            yield "task", task, sub.id, sf, path + ("tasks", j)


def _changes(old: dict, new: dict) -> str:
    parts = []
    for key in ("name", "definition", "example", "placement"):
        if (old.get(key) or "") != (new.get(key) or ""):
            parts.append(f"{key} was {old.get(key) or '(none)'!r}, now {new.get(key) or '(none)'!r}")
    return "; ".join(parts)


@rule("CLR801")
def stale_review(ctx: Context) -> Iterable[Diagnostic]:
    for kind, item, placement, sf, path in review_items(ctx):
        rv = item.review
        if rv is None:
            continue
        state = derive_state(rv, item_hash(kind, item, placement), policy_of(ctx.reg))
        if state.state != "stale":
            continue
        prev = state.previous
        if prev is None:
            yield ctx.at("CLR801", sf, path + ("review",), f"{kind} {item.id!r} is approved but the approval does not "
                         "cover its current content",
                         "approve it with `clinreg review approve`, which records the hash")
            continue
        what = _changes(prev.reviewed.model_dump(), item_content(kind, item, placement)) if prev.reviewed else ""
        yield ctx.at("CLR801", sf, path + ("definition",),
                     f"{kind} {item.id!r} changed since {prev.name} approved it on {prev.date}; it needs re-review"
                     + (f" ({what})" if what else ""),
                     f"ask a clinician to review it again: clinreg review approve {item.id} --reviewer NAME")


@rule("CLR802")
def conflicting_review(ctx: Context) -> Iterable[Diagnostic]:
    for kind, item, placement, sf, path in review_items(ctx):
        if item.review is None:
            continue
        state = derive_state(item.review, item_hash(kind, item, placement), policy_of(ctx.reg))
        if state.state == "conflicting":
            who = "; ".join(f"{r.name}: {r.decision.replace('_', ' ')}" for r in state.current)
            yield ctx.at("CLR802", sf, path + ("review",),
                         f"{kind} {item.id!r} has conflicting current decisions ({who})",
                         "the reviewers should agree; one of them records a new decision with `clinreg review`")


@rule("CLR803")
def split_review(ctx: Context) -> Iterable[Diagnostic]:
    policy = policy_of(ctx.reg)
    if policy is None:
        return
    for kind, item, placement, sf, path in review_items(ctx):
        if item.review is None:
            continue
        state = derive_state(item.review, item_hash(kind, item, placement), policy)
        if state.state == "split":
            yield ctx.at("CLR803", sf, path + ("review",),
                         f"the review panel splits on {kind} {item.id!r} ({tally_words(state.panel)})",
                         f"a reviewer changes their decision, or a maintainer adjudicates: clinreg review adjudicate "
                         f"{item.id} --decision DECISION --reason TEXT --maintainer NAME")
