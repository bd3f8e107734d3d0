"""Render the HTML coverage report and the HTML review document from plain data, in a sandboxed Jinja environment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clinreg import __version__
from clinreg.core.model import ACCESS_TIERS
from clinreg.reports import svg
from clinreg.reports.coverage import edition_line
from clinreg.text.output import defuse, template_finalize
from clinreg.text.plainwords import first_sight, has_maintainer_words

TEMPLATES = Path(__file__).parent / "templates"


def _thousands(n: int):
    """`24 242` with a narrow no-break space, written as the entity: the raw U+202F is a separator character,
    which `template_finalize` shows as a `\\u202f` escape like any other invisible character."""
    from markupsafe import Markup

    return Markup(f"{int(n):,}".replace(",", "&#8239;"))


def environment():
    """Autoescaping sandbox: every registry string reaches the page as text, whatever it contains."""
    from jinja2 import FileSystemLoader, StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                                        trim_blocks=True, lstrip_blocks=True, finalize=template_finalize)
    env.filters["thousands"] = _thousands
    env.filters["edition_line"] = edition_line
    # Issue 40: provenance in plain words at first sight; the full text goes behind "Source details"
    env.filters["plain"] = first_sight
    env.filters["maintainer_words"] = has_maintainer_words
    env.filters["percent"] = lambda part, whole: f"{round(100 * part / whole)}%" if whole else "–"
    env.globals["access_tiers"] = ACCESS_TIERS
    return env


def coverage_view(data: dict[str, Any]) -> dict[str, Any]:
    """The coverage data plus chart geometry and lookups the template needs; no count is recomputed."""
    task_names = {t["id"]: t["name"] for t in data["tasks"]}
    most_tasks = max((s["tasks"] for s in data["subcategories"]), default=1)
    most_datasets = max((len(s["datasets"]) for s in data["subcategories"]), default=1)
    most_in_category = max((len(c["datasets"]) for c in data["categories"]), default=1)
    rows = []
    for sub in data["subcategories"]:
        rows.append({**sub, "task_bar": svg.task_bar(sub["tasks_covered"], sub["tasks"], most_tasks),
                     "tier_bar": svg.tier_bar(sub["access"], most_datasets),
                     "step": svg.coverage_step(sub["tasks_covered"], sub["tasks"])})
    uncovered = [{"id": s["id"], "name": s["name"], "category_name": s["category_name"],
                  "tasks": [{"id": t, "name": task_names.get(t, t)} for t in s["uncovered_tasks"]]}
                 for s in data["subcategories"] if s["uncovered_tasks"]]
    totals = data["totals"]
    row_groups: list[dict[str, Any]] = []
    for row in rows:  # one block per category, kept together in print
        if not row_groups or row_groups[-1]["id"] != row["category"]:
            row_groups.append({"id": row["category"], "name": row["category_name"], "rows": []})
        row_groups[-1]["rows"].append(row)
    return {
        "row_groups": row_groups,
        "data": data,
        "totals": totals,
        "version": __version__,
        "rows": rows,
        "heatmap": svg.heatmap(data),
        "progress": svg.progress(totals["tasks_covered"], totals["tasks"]),
        "tier_mix": svg.tier_mix(totals["access"]),
        "category_mix": [{**c, "bar": svg.tier_bar(c["access"], most_in_category, width=420, height=16)}
                         for c in data["categories"]],
        "tier_legend": svg.tier_legend(),
        "tier_colours": svg.TIER_COLOURS,
        "steps": [svg.coverage_step(*pair) for pair in ((0, 1), (1, 10), (3, 10), (6, 10), (9, 10), (1, 1))],
        "thin": [s for s in data["subcategories"] if s["thin"]],
        "uncovered": uncovered,
        "uncovered_count": sum(len(s["uncovered_tasks"]) for s in data["subcategories"]),
        "sub_names": {s["id"]: s["name"] for s in data["subcategories"]},
        "filtered": data["access_filter"] != list(ACCESS_TIERS),
    }


def render_coverage_html(data: dict[str, Any]) -> str:
    return defuse(environment().get_template("coverage.html.j2").render(**coverage_view(data)), "html")


def render_review_html(document: dict[str, Any]) -> str:
    return defuse(environment().get_template("review.html.j2").render(doc=document, version=__version__,
                                                                        tier_colours=svg.TIER_COLOURS), "html")
