"""Render a leaderboard diff (`clinreg leaderboard diff`) as a terminal table; nothing is recomputed."""

from __future__ import annotations

from typing import Any

from clinreg.text.output import defuse, shown


def render_diff_table(data: dict[str, Any]) -> str:
    """The table of `results.board_diff` data with the sides' names: each model's change split into its parts."""
    b, c = data["benchmarks"], data["cohort"]
    lines = [f"clinreg leaderboard diff: {shown(data['old'])} -> {shown(data['new'])}",
             f"benchmarks {b['old']} -> {b['new']} (+{len(b['added'])} -{len(b['removed'])}); "
             f"models {c['old']} -> {c['new']} (+{len(c['added'])} -{len(c['removed'])}); "
             f"{len(data['benchmarks_with_changed_scores'])} benchmark(s) with changed scores"]
    for side, what in (("added", "joined"), ("removed", "left")):
        if c[side]:
            lines.append(f"models that {what}: {', '.join(shown(m) for m in c[side])}")
        if b[side]:
            lines.append(f"benchmarks {side}: {', '.join(b[side])}")
    for side in ("old", "new"):
        for e in data.get("comparability", {}).get(side, []):
            lines.append(f"Not like for like on {side.upper()}: {e['benchmark']} ({e['what'] or e.get('unknown_what')}"
                         "); the scores that differ are marked `differs` below, as the leaderboard marks them")
    for model, notes in data.get("cohort_differs", {}).items():
        lines.append(f"Warning: {shown(model)} joined the cohort with scores that are not like for like "
                     f"({'; '.join(shown(n) for n in notes)}); any change the Cohort column credits to it rests "
                     "on them")
    if data.get("empty_because"):
        lines.append(f"No table: {data['empty_because']}.")
    head = ["Model", "Old", "New", "Change", "Benchmarks", "Cohort", "Scores", ""]
    rows = [[shown(m["model"]), f"{m['old']:.3f}", f"{m['new']:.3f}",
             *(f"{m['change'][k]:+.3f}" for k in ("total", "benchmarks", "cohort", "scores")),
             "; ".join(f"{side}: differs on {len(n)}" for side, n in m.get("differs", {}).items())]
            for m in data["models"]]
    widths = [max(len(head[j]), *(len(r[j]) for r in rows)) if rows else len(head[j]) for j in range(len(head))]
    for r in [head, *rows] if rows else []:
        lines.append("  ".join([r[0].ljust(widths[0]), *(r[j].rjust(widths[j]) for j in range(1, len(head) - 1)),
                                r[-1]]))
    if data["unchanged"]:
        lines.append(f"unchanged: {', '.join(shown(m) for m in data['unchanged'])}")
    lines.append("Change = Benchmarks + Cohort + Scores, taken in that order: the benchmark set changes first (old "
                 "models and scores), then the models ranked beside (new cohort), then the scores themselves.")
    stated = [f"{shown(m['model'])} {m['release_states'][side]:.3f} on {side.upper()} (recomputed {m[side]:.3f})"
              for m in data["models"] for side in ("old", "new") if side in m.get("release_states", {})]
    if stated:
        lines.append("Old and New are recomputed from the scores, so that the parts sum; where a release states its "
                     "own mean win rate otherwise (as the leaderboard shows it), it says: " + "; ".join(stated) + ".")
    return defuse("\n".join(line.rstrip() for line in lines))
