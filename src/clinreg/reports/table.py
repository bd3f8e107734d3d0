"""The coverage table, rendered with rich: fitted to a terminal's width, or unwrapped for a pipe or a file."""

from __future__ import annotations

import io
import textwrap
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from clinreg.core.model import ACCESS_TIERS
from clinreg.reports.coverage import edition_line
from clinreg.text.output import defuse, shown


def _plain(value: Any, style: str = "") -> Text:
    """Registry text as a rich Text: never read as markup (`[link=...]`, `[/]`), control characters shown escaped."""
    return Text(shown(value), style=style)


def safe_text(text: str) -> str:
    """Registry text for a terminal line: control characters (ESC, BEL, newlines) shown escaped, never sent."""
    return shown(text)


def judge_cell(row: dict[str, Any]) -> str:
    """Judge calls per model run as a cell: `-` where no benchmark needs a judge, a trailing `+` where some
    cannot be counted (the figure is then a floor)."""
    if not row["judged_benchmarks"] and not row["judge_calls_uncounted"]:
        return "-"
    return f"{row['judge_calls']:,}" + ("+" if row["judge_calls_uncounted"] else "")


def _tiers(access: dict[str, int]) -> str:
    return "/".join(str(access[tier]) for tier in ACCESS_TIERS)


def in_medhelm(totals: dict[str, Any]) -> str:
    """`37 in MedHELM, 2 not in MedHELM`: how many of the counted datasets MedHELM's own evaluation runs."""
    return f"{totals['datasets_in_medhelm']} in MedHELM, {totals['datasets_not_in_medhelm']} not in MedHELM"


UNWRAPPED = 10_000


def render_table(data: dict[str, Any], by: str = "subcategory", width: int | None = 80, color: bool = False) -> str:
    """The table at `width` columns; `width=None` wraps nothing, so a pipe gets one line per row."""
    buf = io.StringIO()
    console = Console(file=buf, width=width or UNWRAPPED, force_terminal=color,
                      color_system="standard" if color else None, highlight=False, soft_wrap=width is None)
    name_width = 40 if width is None else max(16, width - 40)
    t = data["totals"]
    released = f" of {data['release_date']}" if data.get("release_date") else ""
    console.print(_plain(f"clinreg coverage: release {data['release']}{released}, generated {data['date']}", "bold"))
    console.print(_plain(
        f"{t['categories']} categories, {t['subcategories']} subcategories, {t['tasks']} tasks "
        f"({t['tasks_covered']} covered), {t['datasets']} datasets ({in_medhelm(t)}), {t['benchmarks']} benchmarks; "
        f"access public/gated/private {_tiers(t['access'])}"
    ))
    console.print(f"provenance: {t['tier_summary']}" + (f"; {t['tasks_rejected']} rejected task(s) not counted"
                                                         if t.get("tasks_rejected") else ""), soft_wrap=False)
    console.print(_plain(data["provenance_note"], "yellow"), soft_wrap=False)
    if data.get("medhelm_edition"):
        console.print(_plain(edition_line(data["medhelm_edition"])), soft_wrap=False)
    if data["access_filter"] != list(ACCESS_TIERS):
        console.print(_plain(f"Only datasets with access: {', '.join(data['access_filter'])}"))
    if data.get("medhelm_only"):
        console.print(_plain("MedHELM only: records the registry adds beyond MedHELM are left out"))
    beyond = {d["id"] for d in data["datasets"] if not d["in_medhelm"]}
    table = Table(show_lines=False, pad_edge=False, expand=False, box=None, header_style="bold")
    if by == "category":
        table.add_column("Category", overflow="fold", max_width=38)
        for col in ("Subs", "Tasks", "Cov", "Data", "P/G/X", "Thin"):
            table.add_column(col, justify="right")
        for c in data["categories"]:
            table.add_row(_plain(c["name"]), str(c["subcategories"]), str(c["tasks"]), str(c["tasks_covered"]),
                          str(len(c["datasets"])), _tiers(c["access"]), str(c["thin_subcategories"]))
    elif by == "task":
        table.add_column("Task", overflow="fold", max_width=40)
        table.add_column("Tier", max_width=9)
        table.add_column("Review", max_width=9)
        table.add_column("Datasets", overflow="fold", max_width=20)
        for row in data["tasks"]:
            table.add_row(_plain(row["name"]), _plain(row["provenance"]), _plain(row["review"]),
                          _plain(", ".join(d + ("*" if d in beyond else "") for d in row["datasets"]) or "-"))
    else:
        table.add_column("Subcategory", no_wrap=True)
        for col in ("Tasks", "Cov", "Data", "P/G/X", "Inst", "Judge"):
            table.add_column(col, justify="right")
        table.add_column("Thin")
        current = None
        for s in data["subcategories"]:
            if s["category"] != current:
                current = s["category"]
                table.add_row(_plain(s["category_name"], "bold underline"), "", "", "", "", "", "", "")
            # wrapped here rather than by rich, so that continuation lines keep the subcategory indent
            name = Text("  " + shown(s["name"]) if width is None
                        else textwrap.fill(shown(s["name"]), width=name_width, initial_indent="  ",
                                           subsequent_indent="    "))
            table.add_row(name, str(s["tasks"]), str(s["tasks_covered"]), str(len(s["datasets"])),
                          _tiers(s["access"]), str(s["instances"]), judge_cell(s), "thin" if s["thin"] else "")
    console.print(table)
    unreleased = {d["id"] for d in data["datasets"] if not d["in_medhelm"] and d.get("medhelm_unreleased")}
    added = beyond - unreleased
    mark = ", marked *" if by == "task" else ""
    if added:
        console.print(_plain(f"not in MedHELM (added by the registry beyond MedHELM's benchmarks{mark}): "
                             + ", ".join(sorted(added))))
    if unreleased:
        console.print(_plain(f"not in a released MedHELM edition (on medhelm's main branch only{mark}): "
                             + ", ".join(sorted(unreleased))))
    if by == "category":
        console.print("Cov = tasks with at least one dataset; Data = datasets; P/G/X = public/gated/private "
                      "datasets; Thin = subcategories that rest on a single dataset.")
    elif by == "subcategory":
        console.print("Cov = tasks with at least one dataset; P/G/X = public/gated/private datasets; "
                      "Inst = instances MedHELM evaluated (records not in MedHELM add none); Judge = judge calls one "
                      "model run of its benchmarks takes, over MedHELM's evaluated instances or, where MedHELM "
                      "evaluated none, every source row (+: a floor, some cannot be counted; see --format json); "
                      "thin = rests on a single dataset.")
    # A folded name can put any part of itself at the start of a line, where CI would read `::error` as a command.
    return defuse("\n".join(line.rstrip() for line in buf.getvalue().rstrip("\n").splitlines()))
