"""Render coverage data as plain CSV (a header row, then one row per record) and its metadata as a JSON sidecar.

The CSV holds nothing but the table, so any CSV reader takes it as it is; lists inside a cell are joined with `;`.
The release, the date, the access filter, the totals and the provenance note go to `metadata()`, which
`clinreg coverage --format csv -o FILE` writes beside the table as `FILE.meta.json` (and `--format json` has them).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from clinreg.core.model import ACCESS_TIERS
from clinreg.reports.coverage import PROVENANCE, REVIEW_STATES
from clinreg.text.output import csv_cell, defuse, to_json

__all__ = ["csv_cell", "metadata", "render_coverage_csv", "render_coverage_csv_metadata"]


def _ids(values: list[str]) -> str:
    return ";".join(values)


def _tier_header() -> list[str]:
    return [f"{kind}_{what}" for kind in PROVENANCE for what in ("tasks", "covered")]


def _tier_cells(row: dict[str, Any]) -> list[int]:
    return [row["by_tier"][kind][what] for kind in PROVENANCE for what in ("tasks", "covered")]


def subcategory_rows(data: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    states = list(data["subcategories"][0]["review"]) if data["subcategories"] else list(REVIEW_STATES)
    header = ["category", "category_name", "subcategory", "subcategory_name", "tasks", "tasks_covered",
              "tasks_drafted", *_tier_header(), "tasks_rejected", "datasets", *ACCESS_TIERS, "benchmarks", "instances",
              "judge_calls", "judged_benchmarks", "thin",
              *(f"review_{s}" for s in states), "subcategory_review", "dataset_ids", "not_in_medhelm_ids",
              "uncovered_task_ids", "judge_calls_uncounted_ids"]
    rows = [[s["category"], s["category_name"], s["id"], s["name"], s["tasks"], s["tasks_covered"], s["tasks_drafted"],
             *_tier_cells(s), s["tasks_rejected"], len(s["datasets"]), *(s["access"][t] for t in ACCESS_TIERS),
             s["benchmarks"], s["instances"], s["judge_calls"], s["judged_benchmarks"],
             "true" if s["thin"] else "false", *(s["review"].get(r, 0) for r in states), s["subcategory_review"],
             _ids(s["datasets"]), _ids(s["not_in_medhelm"]), _ids(s["uncovered_tasks"]),
             _ids(s["judge_calls_uncounted"])] for s in data["subcategories"]]
    return header, rows


def category_rows(data: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    header = ["category", "category_name", "subcategories", "tasks", "tasks_covered", "tasks_drafted",
              *_tier_header(), "tasks_rejected", "datasets",
              *ACCESS_TIERS, "benchmarks", "instances", "judge_calls", "judged_benchmarks", "thin_subcategories",
              "dataset_ids", "not_in_medhelm_ids", "judge_calls_uncounted_ids"]
    rows = [[c["id"], c["name"], c["subcategories"], c["tasks"], c["tasks_covered"], c["tasks_drafted"],
             *_tier_cells(c), c["tasks_rejected"], len(c["datasets"]), *(c["access"][t] for t in ACCESS_TIERS),
             c["benchmarks"], c["instances"], c["judge_calls"], c["judged_benchmarks"],
             c["thin_subcategories"], _ids(c["datasets"]), _ids(c["not_in_medhelm"]), _ids(c["judge_calls_uncounted"])]
            for c in data["categories"]]
    return header, rows


def task_rows(data: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    header = ["task", "task_name", "category", "subcategory", "provenance", "review", "datasets", "benchmarks",
              "dataset_ids", "not_in_medhelm_ids"]
    beyond = {d["id"] for d in data["datasets"] if not d["in_medhelm"]}
    rows = [[t["id"], t["name"], t["category"], t["subcategory"], t["provenance"], t["review"], len(t["datasets"]),
             t["benchmarks"], _ids(t["datasets"]), _ids([d for d in t["datasets"] if d in beyond])]
            for t in data["tasks"]]
    return header, rows


ROWS = {"subcategory": subcategory_rows, "category": category_rows, "task": task_rows}


def metadata(data: dict[str, Any], by: str) -> dict[str, str]:
    t = data["totals"]
    taxonomy = data["taxonomy"] or {}
    return {
        "clinreg coverage": f"one row per {by}",
        "release": str(data["release"] or "unreleased"),
        "date": data["date"],
        "taxonomy": f"{taxonomy.get('id', '')} {taxonomy.get('version', '')}".strip(),
        "access": ",".join(data["access_filter"]),
        "medhelm_only": "true" if data.get("medhelm_only") else "false",
        "tasks": str(t["tasks"]),
        "tasks_covered": str(t["tasks_covered"]),
        "tasks_drafted": str(t["tasks_drafted"]),
        "tasks_rejected_not_counted": str(t["tasks_rejected"]),
        "coverage_by_provenance": t["tier_summary"],
        "tasks_awaiting_review": str(t["tasks_awaiting_review"]),
        "datasets": str(t["datasets"]),
        "datasets_in_medhelm": str(t["datasets_in_medhelm"]),
        "datasets_not_in_medhelm": str(t["datasets_not_in_medhelm"]),
        "instances": f"{t['instances']} (instances MedHELM evaluated; records not in MedHELM add none)",
        "judge_calls": (f"{t['judge_calls']} (judge calls one model run of every benchmark shown takes"
                        + (f"; not counted: {', '.join(t['judge_calls_uncounted'])}" if t["judge_calls_uncounted"]
                           else "") + ")"),
        "provenance": " ".join(data["provenance_note"].split()),
        "medhelm_edition": (data.get("medhelm_edition") or {}).get("id", ""),
    }


def render_coverage_csv(data: dict[str, Any], by: str = "subcategory") -> str:
    header, rows = ROWS[by](data)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[csv_cell(v) for v in row] for row in rows])
    return defuse(buf.getvalue())


def render_coverage_csv_metadata(data: dict[str, Any], by: str = "subcategory") -> str:
    """The sidecar of a CSV table: its metadata as a JSON object."""
    return to_json(metadata(data, by)) + "\n"
