"""The review state of a task or subcategory, derived from its history of decisions and its current content."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from clinreg.core.hashing import review_hash, reviewed_content

# approved: every current decision on this exact content approves it. stale: the last decision approved
# older content. changes_requested / rejected: every current decision says so. revised: changes were
# requested (or the item rejected) and the content has changed since, so it awaits re-review. conflicting:
# two reviewers' current decisions on this content disagree. proposed: nobody has decided yet.
STATES = ("approved", "proposed", "stale", "revised", "changes_requested", "rejected", "conflicting")
# With a panel policy (the taxonomy's `review_policy`) two more: split (disputed): the panel's current decisions
# disagree and the policy does not settle it, until a maintainer adjudicates; awaiting_reviews (in review): the
# current decisions agree but are fewer than the policy's `min_approvals`, so they decide nothing yet (one
# rejection of a panel of three leaves the item in review). A panel never reports `conflicting`.
PANEL_STATES = ("split", "awaiting_reviews")
# what a clinician is asked to look at
PENDING = ("proposed", "stale", "revised", "conflicting", "split", "awaiting_reviews")
AWAITING = PENDING + ("changes_requested",)  # not approved and not rejected
# The words a decision may be typed in (the sheet's "approve", "reject", "request changes", the commands' names and
# the recorded values), each to the value recorded.
DECISION_WORDS = {
    "approve": "approved", "approved": "approved",
    "reject": "rejected", "rejected": "rejected",
    "request changes": "changes_requested", "request-changes": "changes_requested",
    "changes requested": "changes_requested", "changes_requested": "changes_requested",
    "request_changes": "changes_requested",
}


def decision_value(word: str) -> str | None:
    """The recorded value of a decision typed in any of DECISION_WORDS (case and spacing aside), or None."""
    return DECISION_WORDS.get(" ".join(str(word).strip().lower().split()))


def states_for(policy: Any) -> tuple[str, ...]:
    """The states an item can be in: STATES, and with a panel policy PANEL_STATES too (so that a tree without a
    policy counts exactly the states it always did)."""
    return STATES + PANEL_STATES if policy is not None else STATES


def policy_of(reg: Any) -> Any:
    """The registry's panel policy (the taxonomy's `review_policy`), or None."""
    taxonomy = getattr(reg, "taxonomy", None)
    return getattr(taxonomy, "review_policy", None) if taxonomy is not None else None


@dataclass
class ReviewState:
    state: str
    content_hash: str
    current: list[Any] = field(default_factory=list)  # latest decision per reviewer on this content
    previous: Any = None  # for stale and revised: the latest decision, on older content
    adjudication: Any = None  # a maintainer's adjudication on this content, which closed a split
    panel: dict[str, Any] | None = None  # with a panel policy: the tally of current decisions against it

    def to_dict(self) -> dict[str, Any]:
        def entry(r):
            return None if r is None else r.model_dump(mode="json", exclude_none=True)

        out = {"state": self.state, "content_hash": self.content_hash,
               "current": [entry(r) for r in self.current], "previous": entry(self.previous)}
        if self.adjudication is not None:
            out["adjudication"] = entry(self.adjudication)
        if self.panel is not None:
            out["panel"] = self.panel
        return out


def item_content(kind: str, item: Any, placement: str | None) -> dict[str, str]:
    return reviewed_content(item.name, item.definition, getattr(item, "example", None) if kind == "task" else None,
                            placement)


def item_hash(kind: str, item: Any, placement: str | None) -> str:
    """The hash a decision on this item covers. `placement` is the task's subcategory or the subcategory's category."""
    return review_hash(item.name, item.definition, getattr(item, "example", None) if kind == "task" else None,
                       placement)


def _who(reviewer: Any) -> str:
    return (reviewer.orcid or "").strip() or " ".join(reviewer.name.lower().split())


def panel_tally(current: list[Any], policy: Any) -> dict[str, Any]:
    """The current decisions counted against the policy: approvals, requested changes, rejections, and how
    many approvals the policy needs."""
    decisions = [e.decision for e in current]
    return {"approvals": decisions.count("approved"), "changes_requested": decisions.count("changes_requested"),
            "rejections": decisions.count("rejected"), "min_approvals": policy.min_approvals,
            "open_rejection_blocks": policy.open_rejection_blocks}


def panel_state(current: list[Any], policy: Any) -> str:
    """The state of an item with current decisions under a panel policy.

    The panel decides once `min_approvals` reviewers agree: approved when that many approve and no objection
    (a rejection or a request for changes) is open, or one is but `open_rejection_blocks` is false; rejected when
    that many reject; changes_requested when that many object, none approves and too few reject. An open
    objection blocks an approval but decides nothing alone. Until the panel decides, the item is awaiting_reviews
    (in review: every current decision agrees, too few of them) or split (disputed: they disagree)."""
    needed = policy.min_approvals
    approvals = sum(1 for e in current if e.decision == "approved")
    rejections = sum(1 for e in current if e.decision == "rejected")
    objections = len(current) - approvals
    if approvals >= needed and (not objections or not policy.open_rejection_blocks) and rejections < needed:
        return "approved"
    if rejections >= needed and approvals < needed:
        return "rejected"
    if objections >= needed and not approvals:
        return "changes_requested"
    return "split" if approvals and objections else "awaiting_reviews"


def sealed(state: ReviewState) -> bool:
    """Whether the panel is still deciding the item (awaiting reviews, or split and not adjudicated): then the
    documents given to reviewers show the tally of current decisions, not who decided what or their notes, so
    that no reviewer reads another's note before deciding."""
    return state.panel is not None and state.adjudication is None and state.state in PANEL_STATES


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def tally_words(panel: dict[str, Any]) -> str:
    """What the panel has and still needs, in words, e.g. `1 approval of the 2 needed (1 more needed); 1 rejection
    is open`."""
    have, needed = panel["approvals"], panel["min_approvals"]
    words = f"{_count(have, 'approval', 'approvals')} of the {needed} needed"
    if have > needed:
        words = f"{_count(have, 'approval', 'approvals')}, more than the {needed} needed"
    elif have < needed:
        words += f" ({needed - have} more needed)"
    parts = [words]
    if panel["changes_requested"]:
        n = panel["changes_requested"]
        parts.append(f"{_count(n, 'request for changes', 'requests for changes')} {'is' if n == 1 else 'are'} open")
    if panel["rejections"]:
        n = panel["rejections"]
        parts.append(f"{_count(n, 'rejection', 'rejections')} {'is' if n == 1 else 'are'} open")
    return "; ".join(parts)


def derive_state(review: Any, current_hash: str, policy: Any = None) -> ReviewState:
    """Replay the decisions: each reviewer's latest one counts, and only if it covers `current_hash`.

    With a panel `policy` the current decisions are judged by it (see panel_state). A maintainer's
    adjudication (`adjudication: true`) on the current content closes the item with its decision, whatever
    the reviewers' decisions; it is not one of the reviewers' votes."""
    if review is None:
        return ReviewState("proposed", current_hash)
    adjudications = [r for r in review.reviewers if r.decision and getattr(r, "adjudication", None)]
    if adjudications:
        votes = SimpleNamespace(status=review.status, content_hash=review.content_hash,
                                reviewers=[r for r in review.reviewers if not getattr(r, "adjudication", None)])
        result = derive_state(votes, current_hash, policy)
        closing = [r for r in adjudications if r.content_hash == current_hash]
        if closing:
            result.adjudication = closing[-1]
            result.state = closing[-1].decision
        return result
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
        if policy is not None:
            return ReviewState(panel_state(current, policy), current_hash, current, panel=panel_tally(current, policy))
        decisions = {e.decision for e in current}
        state = "conflicting" if len(decisions) > 1 else decisions.pop()
        return ReviewState(state, current_hash, current)
    last = entries[-1]
    return ReviewState("stale" if last.decision == "approved" else "revised", current_hash, [], last)
