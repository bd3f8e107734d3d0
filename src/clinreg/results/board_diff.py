"""`clinreg leaderboard diff OLD NEW`: why each model's mean win rate changed between two boards.

A model's mean win rate depends on three things besides its own scores: which benchmarks there are, and which
other models (the cohort) are ranked beside it. The change from OLD to NEW is split sequentially, in this order,
so that the three parts sum to the change:

1. `benchmarks`: the benchmark set changes (OLD's models, OLD's scores where OLD has them; a benchmark only NEW
   has brings NEW's scores of OLD's models);
2. `cohort`: the models change (models only NEW has join with their NEW scores; models only OLD has leave);
3. `scores`: every remaining score becomes NEW's (the model's own and every other model's).

Each intermediate board is ranked exactly as `clinreg leaderboard` ranks (leaderboard_data, overall), so the
first and last are OLD's and NEW's own mean win rates. `scores` is computed as the change less the other two.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from clinreg.core.store import Registry
from clinreg.results.leaderboard import leaderboard_data
from clinreg.results.score import Score


def _rates(reg: Registry, scores: list[Score]) -> dict[str, float | None]:
    # The steps mix OLD's and NEW's scores on one board: published scores, whichever release they are from, are
    # ranked as one cohort among themselves (as the leaderboard ranks a release's rows within the release), and
    # your scores against every score, so that your runs joining a release's board change none of its rows.
    plain = [replace(s, provenance={**s.provenance, "published": {"id": "published"}}) if s.published else s
             for s in scores]
    data = leaderboard_data(reg, plain)
    return {r["model"]: r["mean_win_rate"] for r in data["tables"]["overall"]}


def board_diff(reg: Registry, old: list[Score], new: list[Score],
               reported: tuple[list[Any] | None, list[Any] | None] = (None, None)) -> dict[str, Any]:
    """Per model on both boards whose mean win rate changed: old, new and change {benchmarks, cohort, scores, total};
    `reported` (each side's release-stated mean win rates, as `results import` reads them) names where a release
    states a model's rate otherwise than the recomputed one (`release_states`)."""
    old_by = {(s.model, s.key): s for s in old}
    new_by = {(s.model, s.key): s for s in new}
    b0, b1 = {s.key for s in old}, {s.key for s in new}
    c0, c1 = {s.model for s in old}, {s.model for s in new}
    # 1. the benchmark set becomes NEW's, for OLD's models
    step1 = [s for s in old if s.key in b1] + [s for s in new if s.key not in b0 and s.model in c0]
    # 2. the cohort becomes NEW's
    step2 = [s for s in step1 if s.model in c1] + [s for s in new if s.model not in c0]
    r0, r1, r2, r3 = (_rates(reg, scores) for scores in (old, step1, step2, new))
    models = []
    for model in sorted(c0 & c1):
        before, after = r0.get(model), r3.get(model)
        if before is None or after is None or before == after:
            continue
        total = after - before
        benchmarks = _step(r0, r1, model)
        cohort = _step(r1, r2, model)
        models.append({"model": model, "old": before, "new": after,
                       "change": {"benchmarks": benchmarks, "cohort": cohort,
                                  "scores": total - benchmarks - cohort, "total": total}})
    models.sort(key=lambda m: (-abs(m["change"]["total"]), m["model"]))
    # what the leaderboard warns of on each board, carried into the diff: scores not like for like, per model
    boards = {"old": leaderboard_data(reg, old, reported[0]), "new": leaderboard_data(reg, new, reported[1])}
    differs = {side: {r["model"]: r["differs"] for r in d["tables"]["overall"] if r.get("differs")}
               for side, d in boards.items()}
    # A release states its own mean win rate, which the leaderboard shows; the diff recomputes both sides from
    # the scores so that its parts sum, and names where the two part by more than the last shown digit.
    stated = {side: {r["model"]: r["mean_win_rate"] for r in d["tables"]["overall"]
                     if r.get("mean_win_rate_from") == "release" and r["mean_win_rate"] is not None}
              for side, d in boards.items()}
    for m in models:
        m["differs"] = {side: differs[side][m["model"]] for side in boards if m["model"] in differs[side]}
        m["release_states"] = {side: stated[side][m["model"]] for side in boards if m["model"] in stated[side]
                               and round(stated[side][m["model"]], 3) != round(m[side], 3)}
    joined = sorted(c1 - c0)
    if not c0 & c1:
        empty = "no model is on both boards, so no mean win rate can be compared"
    elif not models:
        empty = "every model on both boards has the same mean win rate on each"
    else:
        empty = None
    unchanged = sorted(m for m in c0 & c1 if r0.get(m) is not None and r0.get(m) == r3.get(m))
    changed_scores = sorted({k for (m, k), s in new_by.items() if (m, k) in old_by and old_by[(m, k)].value != s.value})
    return {
        "benchmarks": {"old": len(b0), "new": len(b1), "added": sorted(b1 - b0), "removed": sorted(b0 - b1)},
        "cohort": {"old": len(c0), "new": len(c1), "added": sorted(c1 - c0), "removed": sorted(c0 - c1)},
        "benchmarks_with_changed_scores": changed_scores,
        "models": models,
        "unchanged": unchanged,
        "empty_because": empty,
        "comparability": {side: d.get("comparability", []) for side, d in boards.items()},
        # models that joined NEW's cohort whose scores differ from what their benchmarks are compared with: the
        # cohort part of every change rests partly on them
        "cohort_differs": {m: differs["new"][m] for m in joined if m in differs["new"]},
        "method": "sequential: benchmark set, then cohort, then scores; each step ranked as `clinreg leaderboard` "
                  "ranks (overall), a release's scores among published ones only; the mean win rates are computed "
                  "from the scores (a release's own stated one may differ in the third decimal); the parts sum to "
                  "the change",
    }


def _step(before: dict[str, float | None], after: dict[str, float | None], model: str) -> float:
    a, b = before.get(model), after.get(model)
    return 0.0 if a is None or b is None else b - a


__all__ = ["board_diff"]
