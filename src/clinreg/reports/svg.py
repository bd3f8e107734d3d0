"""Geometry of the report's inline SVG charts as plain data; the templates only place what is computed here."""

from __future__ import annotations

import textwrap
from typing import Any

from clinreg.core.model import ACCESS_TIERS

# Okabe-Ito colours for the access tiers: distinguishable with every common colour-vision deficiency.
TIER_COLOURS = {"public": "#0072B2", "gated": "#E69F00", "private": "#CC79A7"}
TIER_INK = {"public": "#ffffff", "gated": "#1a1a1a", "private": "#1a1a1a"}

# Steps of the share of tasks covered: grey for none, then ColorBrewer YlGnBu from light to dark (safe for
# colour-blind readers and in greyscale print). Each step has a label, so colour is never the only cue.
COVERAGE_STEPS = (
    ("none", "no task covered", "#eeeeee", "#1a1a1a"),
    ("low", "under 25%", "#edf8b1", "#1a1a1a"),
    ("some", "25 to 49%", "#c7e9b4", "#1a1a1a"),
    ("half", "50 to 74%", "#7fcdbb", "#1a1a1a"),
    ("most", "75 to 99%", "#1d91c0", "#ffffff"),
    ("all", "every task", "#253494", "#ffffff"),
)
TRACK = "#e6e6ea"
COVERED = "#1d91c0"

CELL_W, CELL_H, GAP, ROW_LABEL_W = 206, 112, 8, 176


def coverage_step(covered: int, tasks: int) -> dict[str, str]:
    """The colour step for a share of tasks covered, with its label so colour is never the only cue."""
    if tasks == 0 or covered == 0:
        index = 0
    elif covered == tasks:
        index = 5
    else:
        index = 1 + min(3, int(4 * covered / tasks))
    key, label, fill, ink = COVERAGE_STEPS[index]
    return {"key": key, "label": label, "fill": fill, "ink": ink}


def wrap(text: str, width: int, lines: int) -> list[str]:
    """Break a label into at most `lines` lines of about `width` characters, ending with an ellipsis if cut."""
    parts = textwrap.wrap(text, width) or [""]
    if len(parts) > lines:
        parts = parts[:lines]
        parts[-1] = parts[-1][: max(1, width - 1)].rstrip() + "…"
    return parts


def heatmap(data: dict[str, Any]) -> dict[str, Any]:
    """Category rows by subcategory cells, coloured by the share of tasks covered, labelled with the numbers."""
    by_category: dict[str, list[dict]] = {}
    for sub in data["subcategories"]:
        by_category.setdefault(sub["category"], []).append(sub)
    columns = max((len(v) for v in by_category.values()), default=1)
    rows = []
    for r, category in enumerate(data["categories"]):
        y = r * (CELL_H + GAP)
        cells = []
        for c, sub in enumerate(by_category.get(category["id"], [])):
            step = coverage_step(sub["tasks_covered"], sub["tasks"])
            n = len(sub["datasets"])
            cells.append({
                "id": sub["id"], "x": ROW_LABEL_W + c * (CELL_W + GAP), "y": y, "w": CELL_W, "h": CELL_H,
                "fill": step["fill"], "ink": step["ink"], "step": step["label"],
                "name": wrap(sub["name"], 22, 3),
                "covered": f"{sub['tasks_covered']} of {sub['tasks']} tasks covered",
                "datasets": f"{n} dataset{'' if n == 1 else 's'}",
                "thin": sub["thin"],
                "title": f"{sub['name']}: {sub['tasks_covered']} of {sub['tasks']} tasks covered, {n} datasets",
            })
        rows.append({"id": category["id"], "y": y, "label": wrap(category["name"], 20, 3), "cells": cells,
                     "summary": f"{category['tasks_covered']}/{category['tasks']} tasks"})
    width = ROW_LABEL_W + columns * (CELL_W + GAP) - GAP
    height = max(1, len(rows)) * (CELL_H + GAP) - GAP
    legend = [{"label": label, "fill": fill, "x": i * 150} for i, (_, label, fill, _) in enumerate(COVERAGE_STEPS)]
    return {"width": width, "height": height, "rows": rows, "legend": legend, "legend_width": 150 * len(legend)}


def progress(covered: int, total: int, width: int = 150, height: int = 12) -> dict[str, Any]:
    """A track of `total` with its covered part filled."""
    filled = 0 if total == 0 else round(width * covered / total, 1)
    return {"width": width, "height": height, "filled": filled, "track": TRACK, "fill": COVERED}


def task_bar(covered: int, tasks: int, most_tasks: int, width: int = 170, height: int = 14) -> dict[str, Any]:
    """Tasks of a subcategory on a common scale: the track is the tasks, the filled part the covered ones."""
    unit = width / max(1, most_tasks)
    return {"width": width, "height": height, "track": round(unit * tasks, 1), "filled": round(unit * covered, 1),
            "track_fill": TRACK, "fill": COVERED}


def tier_bar(access: dict[str, int], scale_max: int, width: int = 170, height: int = 16) -> dict[str, Any]:
    """Datasets stacked by access tier on a common scale, each segment wide enough to show its count."""
    unit = width / max(1, scale_max)
    x, segments = 0.0, []
    for tier in ACCESS_TIERS:
        count = access.get(tier, 0)
        if not count:
            continue
        w = round(unit * count, 1)
        segments.append({"tier": tier, "count": count, "x": round(x, 1), "w": w, "fill": TIER_COLOURS[tier],
                         "ink": TIER_INK[tier], "show_count": w >= 14})
        x += w
    return {"width": width, "height": height, "segments": segments, "track_fill": TRACK}


def tier_mix(access: dict[str, int], width: int = 1100, height: int = 34) -> dict[str, Any]:
    """The overall access-tier mix: one full-width bar split by tier, labelled with counts and shares."""
    total = sum(access.get(t, 0) for t in ACCESS_TIERS)
    bar = tier_bar(access, total, width, height)
    for seg in bar["segments"]:
        seg["pct"] = round(100 * seg["count"] / total) if total else 0
        seg["label"] = f"{seg['count']} {seg['tier']} ({seg['pct']}%)"
        seg["show_label"] = seg["w"] >= 9 * len(seg["label"]) + 16
    bar["total"] = total
    return bar


def tier_legend() -> list[dict[str, str]]:
    return [{"tier": t, "fill": TIER_COLOURS[t]} for t in ACCESS_TIERS]
