"""Contamination you can see, as the card, `clinreg show`, the leaderboard and HELM's contamination.yaml show it:
the facts a record declares (each with its source), and the figures computed from its data (split fingerprints,
duplicates inside each evaluation split, overlaps with the record's other splits), read from the overlap
figures file (clinreg.instances.figures). Where that file does not hold a record, the figures are "not computed:
data not readable here", never zero.

HELM's shape (src/helm/benchmark/static/contamination.yaml) is a list of points, each with `models`, `groups`,
`level` (`strong` or `weak`) and a `description` that ends with where it is stated. clinreg keeps the source in a
field of its own and appends it to the description on export; a fact that names no model or no level is not a
HELM point (HELM's points are about models) and is listed as left out.
"""

from __future__ import annotations

import textwrap
from typing import Any

from clinreg.core.store import Registry
from clinreg.instances.figures import declared_facts


def _wrapped(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, width=100, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False) or [indent]


def contamination_lines(view: dict[str, Any]) -> list[str]:
    """`clinreg show`'s section: declared facts with sources, then the fingerprints and overlap figures."""
    out = ["Contamination"]
    if view["declared"]:
        for f in view["declared"]:
            scope = ", ".join(x for x in (f"models {', '.join(f['models'])}" if f["models"] else "",
                                          f"splits {', '.join(f['splits'])}" if f["splits"] else "",
                                          f"level {f['level']}" if f["level"] else "") if x)
            out += _wrapped(f"declared: {f['statement']}" + (f" ({scope})" if scope else ""), "  ")
            out += _wrapped(f"source: {f['source']}", "    ")
    else:
        out.append("  declared: none (no source read states a contamination fact for this record)")
    if view["declared_note"]:
        out += _wrapped(f"note: {view['declared_note']}", "    ")
    if "computed" not in view:
        return out + _wrapped(f"fingerprints and overlap: {view['note']}", "  ")
    out += _wrapped(f"computed figures: {view['note']}", "  ")
    for m in view["computed"]:
        for s in m.get("splits", []):
            role = "evaluation split" if s["evaluation"] else "other split"
            out += _wrapped(f"{m['mapping']}: {role} {s['split']!r}: " + (
                f"not read: {s['unreadable']}" if s["unreadable"] else
                f"{s['instances']} instance(s), fingerprint {s['fingerprint']}"), "    ")
    for line in view["overlap_words"]:
        out += _wrapped(line, "    ")
    return out + _wrapped(f"method: {view['method']}", "    ")


def board_line(notes: list[dict[str, Any]]) -> str:
    """One leaderboard note: which records declare contamination or overlap, and which models on the board a fact
    names."""
    parts = []
    for n in notes:
        bits = []
        for f in n["declared"]:
            who = f"; names {', '.join(f['on_board'])} on this board" if f["on_board"] else ""
            bits.append(f"declared: {f['statement']} (source: {f['source']}{who})")
        bits += n["overlap"]
        parts.append(f"{n['record']}: " + "; ".join(bits))
    return "Contamination: " + " | ".join(parts)


def helm_points(reg: Registry) -> dict[str, Any]:
    """Every declared fact in HELM's contamination.yaml shape, and the facts left out (no model or no level)."""
    points, left_out = [], []
    for record in sorted(reg.datasets.values(), key=lambda r: r.id):
        for f in declared_facts(record)[0]:
            if not f["models"] or not f["level"]:
                left_out.append({"record": record.id, "statement": f["statement"],
                                 "why": "names no model" if not f["models"] else "states no level"})
                continue
            points.append({"models": f["models"], "groups": [m.id for m in record.mappings], "level": f["level"],
                           "description": f"{f['statement']} See {f['source']}."})
    return {"points": points, "left_out": left_out}
