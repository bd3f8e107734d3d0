"""Render the review commands' outcomes as text: the review document in its format, the review status, the panel's
agreement, an import of decisions, and one recorded decision; nothing is recomputed."""

from __future__ import annotations

from typing import Any

from clinreg.core.reviewstate import tally_words
from clinreg.reports.table import safe_text
from clinreg.text.output import shown


def render_review(document: dict[str, Any], fmt: str) -> str:
    """The review document as JSON, Markdown (to read on a terminal) or HTML (the offline review form)."""
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        return dumps("review_document", document)
    if fmt == "markdown":
        from clinreg.reports.markdown import render_review_markdown

        return render_review_markdown(document)
    from clinreg.reports.html import render_review_html

    return render_review_html(document)


# A panel that has not decided, in the words a clinician reads: the state's name stays in JSON.
STATE_WORDS = {"awaiting_reviews": "in review (awaiting reviews)", "split": "disputed (split)"}


def _words(value: str) -> str:
    return STATE_WORDS.get(value, value.replace("_", " "))


def status_lines(rows: list[dict[str, Any]], only: str | None, show_hashes: bool = False) -> list[str]:
    """`review status` as text: one line per item with its state, the panel's tally and its reviewers'
    decisions, then who adjudicated it and why, what changed since the last decision, and the count. The
    version (a content hash) only with `show_hashes`."""
    out = []
    for row in rows:
        line = f"{row['file']}: {row['kind']} {row['id']}  {_words(row['state'])}"
        if row.get("adjudication"):
            line += " (by adjudication)"
        if show_hashes:
            line += f"  (version {row['version']})"
        if row.get("panel") and not row.get("adjudication"):
            line += f"  [{tally_words(row['panel'])}]"
        if row["decisions"]:
            line += "; " + ", ".join(f"{d['name']}: {_words(d['decision'])}" for d in row["decisions"])
        out.append(safe_text(line))
        adj = row.get("adjudication")
        if adj:
            out.append(safe_text(f"    adjudicated: {_words(adj['decision'])} by {adj['maintainer']}"
                                 f"{' on ' + adj['date'] if adj['date'] else ''}; reason: {adj['reason']}"))
        prev = row["previous"]
        if prev and prev["reviewed"]:
            for key in ("name", "definition", "example", "placement"):
                old, new = prev["reviewed"].get(key), prev["now"].get(key)
                if (old or "") != (new or ""):
                    out.append(safe_text(f"    {key}: {_words(prev['decision'])} {old or '(none)'!r}, "
                                         f"now {new or '(none)'!r}"))
    out.append(f"{len(rows)} item(s)" + (f" ({only})" if only else ""))
    return out


def render_status(rows: list[dict[str, Any]], only: str | None, fmt: str, show_hashes: bool = False) -> str:
    """`review status` as JSON or text (the version hashes in text only with `show_hashes`)."""
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        return dumps("review_status", {"filter": only, "items": rows})
    return "\n".join(status_lines(rows, only, show_hashes))


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _agreement_line(label: str, s: dict[str, Any]) -> str:
    alpha = _number(s["alpha"]) if s["alpha"] is not None else f"n/a ({s['alpha_undefined']})"
    percent = (_percent(s["percent_agreement"]) if s["percent_agreement"] is not None
               else f"n/a ({s['percent_agreement_undefined']})")
    return (f"{label}: {s['reviewers']} reviewer(s), {s['items']} item(s) reviewed, "
            f"{s['pairable_items']} by two or more; percent agreement {percent}, "
            f"alpha {alpha}; split on {len(s['split'])}")


# Each statistic in one plain line, printed under the panel's line.
EXPLAINED = (
    "  percent agreement: of all pairs of decisions two reviewers made on the same item, the share that match.",
    "  alpha (Krippendorff's, nominal): agreement corrected for chance; 1 is full agreement, 0 is what chance "
    "alone gives, below 0 less than chance. It is low when nearly every decision is the same value, because "
    "then chance agreement is high.",
)


def agreement_lines(data: dict[str, Any]) -> list[str]:
    """`review agreement` as text: the panel overall and what its statistics mean, each reviewer, each split
    item, then each group anyone reviewed, and the groups nobody reviewed in one line."""
    overall = data["overall"]
    out = [_agreement_line("panel", overall), *EXPLAINED]
    out.extend(safe_text(f"  {r['reviewer']}: {r['items']} item(s)") for r in overall["items_by_reviewer"])
    for s in overall["split"]:
        decided = ", ".join(f"{name}: {_words(d)}" for name, d in s["decisions"].items())
        out.append(safe_text(f"  split: {s['kind']} {s['id']} ({decided}; now {_words(s['state'])}"
                             f"{', adjudicated' if s['adjudicated'] else ''})"))
    out.extend(_agreement_line(f"category {c['id']}", c) for c in data["categories"] if c["items"])
    out.extend(_agreement_line(f"subcategory {s['id']}", s) for s in data["subcategories"] if s["items"])
    categories = [c["id"] for c in data["categories"] if not c["items"]]
    subcategories = [s["id"] for s in data["subcategories"] if not s["items"]]
    if categories or subcategories:
        out.append(f"nobody reviewed {len(categories)} categor{'y' if len(categories) == 1 else 'ies'}"
                   f"{' (' + ', '.join(categories) + ')' if categories else ''} and {len(subcategories)} "
                   f"subcategor{'y' if len(subcategories) == 1 else 'ies'} (each listed in --format json)")
    return out


def render_agreement(data: dict[str, Any], fmt: str) -> str:
    """`review agreement` as JSON or text."""
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        return dumps("review_agreement", data)
    return "\n".join(agreement_lines(data))


def import_lines(result: Any) -> tuple[list[str], list[str]]:
    """`review import` as text: the decisions applied (stdout), and the refusals and counts (stderr)."""
    out = []
    for a in result.applied:
        # reviewer names, ids and reasons come from the decisions file: escaped before they reach a terminal
        if a["decision"] == "comment":
            out.append(shown(f"{a['file']}:{a['line']}: comment (no decision) on {a['kind']} {a['id']!r} by "
                             f"{a['reviewer']} (still {_words(a['state'])})"))
            continue
        out.append(shown(f"{a['file']}:{a['line']}: {_words(a['decision'])} {a['kind']} {a['id']!r} by "
                         f"{a['reviewer']} (now {_words(a['state'])})"))
    err = [f"clinreg: refused: {shown(r['where'])}: {shown(r['reason'])}" for r in result.refused]
    comments = sum(1 for a in result.applied if a["decision"] == "comment")
    counts = f"{len(result.applied) - comments} decision(s) recorded"
    if comments:
        counts += f", {comments} comment(s) without a decision recorded as comments (they change no review state)"
    already = f", {len(result.already)} already recorded" if result.already else ""
    err.append(f"{counts}, {len(result.refused)} refused{already}")
    return out, err


VERBS = {"approved": "approved", "rejected": "rejected", "changes_requested": "changes requested for"}


def decision_line(result: Any, decision: str) -> str:
    """One recorded decision (`review approve`, `reject`, `request-changes`)."""
    return (f"{result.file}:{result.line}: {VERBS[decision]} {result.kind} {result.id!r} by "
            f"{shown(result.reviewer['name'])} on {result.date.isoformat()} (review {result.reviewers} of this item)")


def adjudication_line(result: Any, decision: str) -> str:
    return (f"{result.file}:{result.line}: adjudicated {result.kind} {result.id!r}: {_words(decision)} by "
            f"{shown(result.reviewer['name'])} on {result.date.isoformat()} (now {_words(result.state)})")
