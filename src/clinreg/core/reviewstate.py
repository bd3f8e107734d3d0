"""The review state of a task or subcategory, derived from its history of decisions and its current content."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clinreg.core.hashing import review_hash, reviewed_content

# approved: every current decision on this exact content approves it. stale: the last decision approved
# older content. changes_requested / rejected: every current decision says so. revised: changes were
# requested (or the item rejected) and the content has changed since, so it awaits re-review. conflicting:
# two reviewers' current decisions on this content disagree. proposed: nobody has decided yet.
STATES = ("approved", "proposed", "stale", "revised", "changes_requested", "rejected", "conflicting")
PENDING = ("proposed", "stale", "revised", "conflicting")  # what a clinician is asked to look at
AWAITING = PENDING + ("changes_requested",)  # not approved and not rejected


@dataclass
class ReviewState:
    state: str
    content_hash: str
    current: list[Any] = field(default_factory=list)  # latest decision per reviewer on this content
    previous: Any = None  # for stale and revised: the latest decision, on older content

    def to_dict(self) -> dict[str, Any]:
        def entry(r):
            return None if r is None else r.model_dump(mode="json", exclude_none=True)

        return {"state": self.state, "content_hash": self.content_hash,
                "current": [entry(r) for r in self.current], "previous": entry(self.previous)}


def item_content(kind: str, item: Any, placement: str | None) -> dict[str, str]:
    return reviewed_content(item.name, item.definition, getattr(item, "example", None) if kind == "task" else None,
                            placement)


def item_hash(kind: str, item: Any, placement: str | None) -> str:
    """The hash a decision on this item covers. `placement` is the task's subcategory or the subcategory's category."""
    return review_hash(item.name, item.definition, getattr(item, "example", None) if kind == "task" else None, placement)


def _who(reviewer: Any) -> str:
    return (reviewer.orcid or "").strip() or " ".join(reviewer.name.lower().split())


def derive_state(review: Any, current_hash: str) -> ReviewState:
    """Replay the decisions: each reviewer's latest one counts, and only if it covers `current_hash`."""
    if review is None:
        return ReviewState("proposed", current_hash)
    entries = [r for r in review.reviewers if r.decision]
    if not entries:
        if review.status == "approved":  # a hand-written approval without history
            return ReviewState("approved" if review.content_hash == current_hash else "stale", current_hash)
        return ReviewState(review.status if review.status in ("rejected", "changes_requested") else "proposed",
                           current_hash)
    hashes = [r.content_hash for r in entries]
    if hashes[-1] is None:  # written before decisions carried their own hash: the block's hash is the last one's
        hashes[-1] = review.content_hash
    latest: dict[str, tuple[Any, str | None]] = {}
    for entry, digest in zip(entries, hashes):
        latest.pop(_who(entry), None)
        latest[_who(entry)] = (entry, digest)
    current = [e for e, h in latest.values() if h == current_hash]
    if current:
        decisions = {e.decision for e in current}
        state = "conflicting" if len(decisions) > 1 else decisions.pop()
        return ReviewState(state, current_hash, current)
    last = entries[-1]
    return ReviewState("stale" if last.decision == "approved" else "revised", current_hash, [], last)
