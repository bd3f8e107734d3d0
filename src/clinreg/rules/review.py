"""Review rules: approved items must still match what was approved, and drafted items cannot claim approval."""

from __future__ import annotations

from typing import Iterable

from clinreg.diagnostics import Diagnostic
from clinreg.hashing import review_hash
from clinreg.rules.base import rule
from clinreg.rules.context import Context


def review_items(ctx: Context):
    """Every reviewable item: (kind, item, file, path) for subcategories and tasks."""
    for sub, _, sf, path in ctx.reg.subcategories():
        yield "subcategory", sub, sf, path
        for j, task in enumerate(sub.tasks):
            yield "task", task, sf, path + ("tasks", j)


@rule("CLR801", "stale-review", "warning", "An approved item changed after it was approved")
def stale_review(ctx: Context) -> Iterable[Diagnostic]:
    """
    `clinreg review approve` stores a hash of the item's name and definition. When either changes later,
    the approval no longer covers the text and the item needs re-review.

    Bad:
        definition: (edited after approval)
        review: {status: approved, content_hash: sha256:1f2e...}
    Good:
        Run `clinreg review approve ITEM --reviewer NAME` again after the edit is reviewed.
    """
    for kind, item, sf, path in review_items(ctx):
        rv = item.review
        if rv is None or rv.status != "approved":
            continue
        who = ", ".join(r.name for r in rv.reviewers if r.decision in (None, "approved")) or "an unnamed reviewer"
        if not rv.content_hash:
            yield ctx.at("CLR801", sf, path + ("review",), f"{kind} {item.id!r} is approved but has no content_hash",
                         "approve it with `clinreg review approve`, which records the hash")
        elif rv.content_hash != review_hash(item.name, item.definition):
            yield ctx.at("CLR801", sf, path + ("definition",),
                         f"{kind} {item.id!r} changed since {who} approved it on {rv.date}; it needs re-review",
                         f"ask a clinician to review it again: clinreg review approve {item.id} --reviewer NAME")
