"""Render leaderboard data as a terminal table, Markdown, CSV or a self-contained HTML page; nothing is recomputed."""

from __future__ import annotations

import csv
import io
from typing import Any, Literal

from clinreg import __version__
from clinreg.core.model import ACCESS_TIERS
from clinreg.reports.contamination import board_line
from clinreg.reports.coverage import edition_line
from clinreg.reports.csvout import csv_cell
from clinreg.text.output import defuse, shown


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def num(x: float | None) -> str:
    """A mean win rate, win rate or score: always three decimals, so a column's numbers line up (JSON keeps all)."""
    return "–" if x is None else f"{x:.3f}"


def bound(x: float) -> str:
    """A metric range's end as written: `0`, `1`, `5`, `0.5`."""
    return f"{x:g}"


def instances_cell(r: dict[str, Any]) -> str:
    """A row's instance count, `*` after it where the count is (partly) the registry's: the source gave none."""
    return f"{r['instances']:,}" + ("*" if r.get("instances_from", "results") != "results" else "")


def origin_label(r: dict[str, Any]) -> str:
    """A row's origin as printed in its Source column: a published release's id, or `yours`."""
    return r["source"]["label"]


def releases_line(data: dict[str, Any]) -> str | None:
    """The header line naming the published release(s) on the board and what the Source column means; None when
    the board holds only your results."""
    releases = data.get("published_releases") or []
    if not releases:
        return None
    named = "; ".join(f"{r['id']} ({r['name']}, published {r['date']})" for r in releases)
    yours = (" Rows marked `yours` are from your results files, ranked against every score on each benchmark; "
             "a model you ran that a release also has is a row of its own, `<model> (yours)`.") if data.get("yours") \
        else ""
    return (f"Published: {named}. A row whose source is a release holds exactly that release's scores and its mean "
            f"win rate (ranked within the release).{yours}")


def source_legend(data: dict[str, Any]) -> str:
    """The legend of the Source column and of the `*` after an instance count."""
    source = ("Source = whose numbers the row holds: a published release's id, or `yours` (your results files). "
              if data.get("published_releases") else "")
    registry = any(r.get("instances_from", "results") != "results" for rows in data["tables"].values() for r in rows)
    star = ("* after an instance count = (partly) the registry's count of the instances MedHELM evaluated: the "
            "source gives none. " if registry else "")
    return source + star


def interval(iv: dict[str, Any] | None) -> str:
    return "" if not iv else f"{100 * iv['low']:.1f}–{100 * iv['high']:.1f}"


def coverage_words(r: dict[str, Any]) -> str:
    unknown = f" (+{r['instances_unknown']} benchmark(s) without a count)" if r["instances_unknown"] else ""
    jury = f"; jury differs on {len(r['jury_differs'])} benchmark(s)" if r.get("jury_differs") else ""
    star = "*" if r.get("instances_from", "results") != "results" else ""
    return (f"{len(r['benchmarks'])}/{r['benchmarks_total']} benchmarks, {r['instances']:,}{star} instances{unknown}, "
            f"{r['tasks_covered']}/{r['tasks_total']} tasks ({r['tasks_drafted']} drafted){jury}")


def counted(n: int, noun: str) -> str:
    """`1 model`, `4 models`: the header's counts read as English."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


# The kinds of header line: what the board is (title), what shapes it (note), whose words its tasks are
# (provenance), and what a reader must weigh before comparing rows (warning). Renderers style and pick by kind.
HeaderKind = Literal["title", "note", "provenance", "warning"]


def header_lines(data: dict[str, Any], by: str) -> list[tuple[HeaderKind, str]]:
    """The lines above the board, each with its kind."""
    released = f" ({data['release_date']})" if data.get("release_date") else ""
    lines: list[tuple[HeaderKind, str]] = [(
        "title", f"clinreg leaderboard by {by}: release {data['release'] or 'unreleased'}{released}, "
                 f"{counted(len(data['models']), 'model')}, {counted(len(data['benchmarks']), 'benchmark')} with "
                 f"scores ({sum(1 for b in data['benchmarks'] if not b['in_medhelm'])} not in MedHELM)")]
    if data["access_filter"] != list(ACCESS_TIERS):
        lines.append(("note", f"Only benchmarks with access: {', '.join(data['access_filter'])}"))
    if data["excluded"]:
        lines.append(("note", f"{len(data['excluded'])} score(s) left out (not in this release or access filter)"))
    if releases_line(data):
        lines.append(("note", str(releases_line(data))))
    lines.append(("provenance", data["provenance_note"]))
    if data.get("medhelm_edition"):
        lines.append(("note", edition_line(data["medhelm_edition"])))
    if data.get("aliases"):
        lines.append(("note", "One model's names joined (within each source): " + "; ".join(
            f"{m['model']} = {', '.join(n['name'] for n in m['names'])}" for m in data["aliases"])))
    if data.get("jury_unvalidated"):
        lines.append(("warning", unvalidated_line(data)))
    if data.get("comparability"):
        lines.append(("warning", comparability_line(data)))
    if data.get("contamination"):
        lines.append(("warning", board_line(data["contamination"])))
    if data.get("overlap_not_computed"):
        u = data["overlap_not_computed"]
        lines.append(("note", f"Contamination: split overlap not computed for {u['not_computed']} of {u['records']} "
                              "records on this board (their data is not readable here; `clinreg overlap --data-dir "
                              "DIR` computes it): no note is not the same as clean."))
    if data.get("comparable_only", {}).get("dropped"):
        lines.append(("warning", dropped_line(data)))
    if data.get("beside"):
        lines.append(("warning", beside_line(data)))
    return lines


def beside_line(data: dict[str, Any]) -> str:
    """One line: the scores on another metric than their benchmark's, which the board does not rank."""
    parts = []
    for e in data["beside"]:
        over = f" over {e['n_instances']} instances" if e.get("n_instances") else ""
        harness = f" ({e['harness']})" if e.get("harness") else ""
        parts.append(f"{e['model']} on {e['benchmark']}: {e['metric']} {e['value']:.4g}{over}{harness}, not "
                     f"{e.get('stands_in_for') or 'the main metric'}")
    return f"Another metric, not ranked ({len(parts)}): " + "; ".join(parts) + "."


def unvalidated_line(data: dict[str, Any]) -> str:
    """One line: the jury benchmarks on the board whose record's jury has no validation evidence."""
    keys = data["jury_unvalidated"]["benchmarks"]
    return (f"Jury not validated on {len(keys)} benchmark(s): {', '.join(keys)} (marked `jury not validated`: "
            "no evidence in the record of how far the jury agrees with clinicians).")


def unvalidated_legend(data: dict[str, Any]) -> str:
    """The legend of the `jury not validated` mark, as the data give it."""
    legend = data["jury_unvalidated"]["legend"]
    return legend[len("jury not validated: "):] if legend.startswith("jury not validated: ") else legend


def comparability_line(data: dict[str, Any]) -> str:
    """One line: on which benchmarks the scores differ, and in what."""
    parts = [f"{e['benchmark']} ({'; '.join(w for w in (e['what'], unknown_words(e)) if w)})"
             for e in data["comparability"]]
    against = "the published release's values where a release is on the benchmark, else its majority"
    return (f"Not like for like: scores differ on {len(parts)} benchmark(s): {'; '.join(parts)}. Each score that "
            f"differs from {against} is marked `differs`, naming whose it is and what it differs from; a value a "
            "source does not give is unknown, never the same. Your scores are ranked against every score; a "
            "release's only within its release (--comparable-only ranks your scores within the largest comparable "
            "group; a release's scores always stay in its rows).")


def unknown_words(entry: dict[str, Any]) -> str:
    """`unknown on a side: harness, export`: what some score on the benchmark does not say."""
    return f"unknown on a side: {entry['unknown_what']}" if entry.get("unknown_what") else ""


def dropped_line(data: dict[str, Any]) -> str:
    dropped = data["comparable_only"]["dropped"]
    parts = [f"{d['model']} on {d['benchmark']} ({d['what']})" for d in dropped[:5]]
    more = f" and {len(dropped) - 5} more" if len(dropped) > 5 else ""
    return (f"--comparable-only: left out {len(dropped)} score(s) outside their benchmark's largest comparable "
            f"group: {'; '.join(parts)}{more}.")


# --------------------------------------------------------------------------------------------- terminal


def render_table(data: dict[str, Any], by: str, width: int = 100, color: bool = False) -> str:
    """The terminal table: header lines, one row per model (and group), a legend.

    The rows are laid out here, not by rich: a table of thousands of models is rendered in linear time (rich
    measures every cell of every row again for each column, minutes for 40,000 rows). Columns are as wide as
    their widest cell; Model and Group wrap at 28 and 36 characters, on spaces where they can.
    """
    from rich.console import Console
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=color, color_system="standard" if color else None,
                      highlight=False, soft_wrap=False)
    styles = {"title": "bold", "provenance": "yellow"}
    for kind, line in header_lines(data, by):
        console.print(Text(shown(line), style=styles.get(kind, "")))
    sourced = bool(data.get("published_releases"))
    head = ["#", "Model", *(["Source"] if sourced else []), *([] if by == "overall" else ["Group"]), "MWR",
            "Macro %", "95% CI", "Bench", "Inst", "Tasks (dr)", ""]
    first = 3 if sourced else 2
    wrap = {1: 34, **({} if by == "overall" else {first: 36})}
    rows = []
    for r in data["tables"][by]:
        flags = "; ".join(f for f in ("thin" if r["thin"] else "", f"missing {len(r['missing_benchmarks'])}"
                                     if r["missing_benchmarks"] else "",
                                     f"jury differs on {len(r['jury_differs'])}" if r.get("jury_differs") else "",
                                     f"differs on {len(r['differs'])}" if r.get("differs") else "",
                                     f"jury not validated on {len(r['jury_unvalidated'])}"
                                     if r.get("jury_unvalidated") else "") if f)
        # model and group names come from results files: shown() escapes control characters
        rows.append([str(r["rank"] or "–"), shown(r["model"]), *([shown(origin_label(r))] if sourced else []),
                     *([] if by == "overall" else [shown(r["group_name"])]),
                     num(r["mean_win_rate"]), pct(r["macro_average"]), interval(r["macro_interval"]),
                     f"{len(r['benchmarks'])}/{r['benchmarks_total']}", instances_cell(r),
                     f"{r['tasks_covered']}/{r['tasks_total']} ({r['tasks_drafted']})", flags])
    left = {1, len(head) - 1} | ({2} if sourced else set()) | (set() if by == "overall" else {first})
    lines = _layout(head, rows, wrap, left=left)
    if color and lines:
        lines[0] = f"\x1b[1m{lines[0]}\x1b[0m"
    out = buf.getvalue().rstrip("\n").splitlines() + lines
    buf.seek(0)
    buf.truncate()  # the same console wraps the legend below the rows
    console.print(source_legend(data) + "MWR = mean win rate (HELM's); Macro % = mean score rescaled to 0-100 by "
                  "each metric's range; "
                  "Bench = benchmarks behind the row / with scores in the group; thin = one benchmark; "
                  "jury differs = a jury score from other judges or rubric than other models', ranked only with its "
                  "own; "
                  "Tasks (dr) = tasks covered / in the group (drafted among them)."
                  + (" differs on N = on N benchmarks the row's score differs from the release's (or, with no "
                     "release there, the benchmark's majority) in metric, harness, export, instance set, edition, "
                     "generation settings or jury; --format markdown names each side's value."
                     if data.get("comparability") else "")
                  + (f" jury not validated on N = {unvalidated_legend(data)}" if data.get("jury_unvalidated") else ""))
    out += buf.getvalue().rstrip("\n").splitlines()
    return defuse("\n".join(line.rstrip() for line in out))


def _layout(head: list[str], rows: list[list[str]], wrap: dict[int, int], left: set[int]) -> list[str]:
    """Rows as aligned text: numbers right-aligned, the `left` columns left-aligned, `wrap` columns folded."""
    import textwrap

    folded = []
    for row in rows:
        cells = []
        for j, cell in enumerate(row):
            limit = wrap.get(j)
            cells.append(textwrap.wrap(cell, limit, break_long_words=True, break_on_hyphens=False) or [""]
                         if limit is not None and len(cell) > limit else [cell])
        folded.append(cells)
    widths = [max([len(head[j])] + [len(part) for cells in folded for part in cells[j]]) for j in range(len(head))]
    def line(parts: list[str]) -> str:
        return "  ".join(p.ljust(widths[j]) if j in left else p.rjust(widths[j]) for j, p in enumerate(parts))
    out = [line(head)]
    for cells in folded:
        height = max(len(c) for c in cells)
        for k in range(height):
            out.append(line([c[k] if k < len(c) else "" for c in cells]))
    return out


# --------------------------------------------------------------------------------------------- markdown


def render_markdown(data: dict[str, Any], by: str) -> str:
    from clinreg.reports.markdown import code, escape

    mixed = bool(data.get("comparability"))
    lines = [f"# Leaderboard by {by}", ""]
    header = header_lines(data, by)
    lines += [escape(line) for kind, line in header if kind == "title"]
    if releases_line(data):
        lines += ["", f"**{escape(str(releases_line(data)))}**"]
    lines += ["", f"> **{escape(data['provenance_note'])}**", ""]
    if data.get("medhelm_edition"):
        lines += [escape(edition_line(data["medhelm_edition"])) + ".", ""]
    unchecked = bool(data.get("jury_unvalidated"))
    if mixed or unchecked or data.get("comparable_only", {}).get("dropped"):
        lines += [f"> {escape(line)}" for kind, line in header if kind == "warning"] + [""]
    sourced = bool(data.get("published_releases"))
    lines += ["| Rank | Model |" + (" Source |" if sourced else "") + " Group | Mean win rate | "
              "Macro average (0–100) | 95% interval | Benchmarks | Instances | "
              "Tasks covered | Drafted | Thin | Missing | Jury differs |" + (" Differs |" if mixed else "")
              + (" Jury not validated † |" if unchecked else ""),
              "|--:|---|" + ("---|" if sourced else "") + "---|--:|--:|---|--:|--:|--:|--:|---|---|---|"
              + ("---|" if mixed else "")
              + ("---|" if unchecked else "")]
    for r in data["tables"][by]:
        lines.append(
            f"| {r['rank'] or '–'} | {escape(r['model'])} |" + (f" {escape(origin_label(r))} |" if sourced else "")
            + f" {escape(r['group_name'])} | {num(r['mean_win_rate'])} | "
            f"{pct(r['macro_average'])} | {interval(r['macro_interval'])} | {len(r['benchmarks'])}/"
            f"{r['benchmarks_total']} | {escape(instances_cell(r))} | {r['tasks_covered']}/{r['tasks_total']} | "
            f"{r['tasks_drafted']} | {'thin' if r['thin'] else ''} | "
            f"{', '.join(code(k) for k in r['missing_benchmarks'])} | "
            f"{'; '.join(escape(note) for note in r.get('jury_differs', []))} |"
            + (f" {'; '.join(escape(note) for note in r.get('differs', []))} |" if mixed else "")
            + (f" {', '.join(code(k) for k in r['jury_unvalidated'])} |" if unchecked else ""))
    lines += ["", "## Benchmarks", "", "| Benchmark | Metric | Range | Model |" + (" Source |" if sourced else "")
              + " Score | Win rate | Instances | 95% interval |" + (" Differs |" if mixed else ""),
              "|---|---|---|---|" + ("---|" if sourced else "") + "--:|--:|--:|---|" + ("---|" if mixed else "")]
    for b in data["benchmarks"]:
        for s in b["scores"]:
            beyond = " (not in MedHELM)" if not b["in_medhelm"] else ""
            beyond += " · jury not validated †" if b.get("jury_validation") == [] else ""
            lines.append(f"| {escape(b['name'])} {code(b['key'])}{beyond} | {code(s.get('metric') or b['metric'])} | "
                         f"{bound(b['range'][0])}–{bound(b['range'][1])} | {escape(s['model'])} | "
                         + (f"{escape(s['origin'])} | " if sourced else "") + f"{num(s['value'])} | "
                         f"{num(s['win_rate'])} | {escape(score_instances(s))} | "
                         f"{interval(s['interval'])} |" + (f" {differs_words(s)} |" if mixed else ""))
    legend = escape(source_legend(data))
    lines += ["", (legend + " " if legend else "") + "Mean win rate: " + escape(data["method"]["mean_win_rate"])
              + ". Macro average: "
              + escape(data["method"]["macro_average"]) + ". Intervals: " + escape(data["method"]["interval"])
              + f". Generated by clinreg {__version__}."]
    if unchecked:
        lines += ["", "† Jury not validated: " + escape(unvalidated_legend(data))]
    return defuse("\n".join(lines), "markdown")


def differs_words(score: dict[str, Any]) -> str:
    """A score's mark: `differs: your run's jury (...) differs from medhelm-2025-07-31's (...)`, or nothing where it
    agrees with what its benchmark is compared with."""
    return f"differs: {score['differs_words']}" if score.get("differs") else ""


def score_instances(s: dict[str, Any]) -> str:
    """A score's instance count, `(registry)` after the registry's count."""
    if s["n_instances"] is None:
        return "–"
    return f"{s['n_instances']:,}" + ("*" if s.get("n_instances_from") == "registry" else "")


# --------------------------------------------------------------------------------------------- csv


def fixed(x: float | None) -> str:
    """A CSV number on the 0-1 scale: three decimals in every row, as the other formats (JSON keeps the full value)."""
    return "" if x is None else f"{x:.3f}"


def render_csv(data: dict[str, Any], by: str) -> str:
    """`# key: value` metadata lines, then one row per model and group (lists joined with `;`)."""
    buf = io.StringIO()
    for key, value in (("clinreg leaderboard", f"one row per model and {by}"), ("release", str(data["release"])),
                       ("access", ",".join(data["access_filter"])),
                       *((("published", str(releases_line(data))),) if releases_line(data) else ()),
                       *((("legend", source_legend(data).strip()),) if source_legend(data) else ()),
                       ("provenance", data["provenance_note"]),
                       ("medhelm edition", (data.get("medhelm_edition") or {}).get("id", "")),
                       *((("comparability", comparability_line(data)),) if data.get("comparability") else ()),
                       *((("jury not validated", unvalidated_line(data) + " " + unvalidated_legend(data)),)
                         if data.get("jury_unvalidated") else ()),
                       *((("comparable-only", dropped_line(data)),)
                         if data.get("comparable_only", {}).get("dropped") else ())):
        buf.write(f"# {key}: {shown(' '.join(value.split()))}\n")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["rank", "model", "source", "group", "level", "group_name", "mean_win_rate",
                     "reported_mean_win_rate", "macro_average", "macro_low", "macro_high", "benchmarks",
                     "benchmarks_total", "instances", "instances_from",
                     "tasks_covered", "tasks_total", "tasks_drafted", "thin", "missing_benchmarks", "benchmark_ids",
                     "jury_differs", *(["differs"] if data.get("comparability") else []),
                     *(["jury_not_validated"] if data.get("jury_unvalidated") else [])])
    for r in data["tables"][by]:
        iv = r["macro_interval"] or {}
        writer.writerow([csv_cell(v) for v in (
            r["rank"] or "", r["model"], origin_label(r), r["group"], r["level"], r["group_name"],
            fixed(r["mean_win_rate"]), fixed(r["reported_mean_win_rate"]), fixed(r["macro_average"]),
            fixed(iv.get("low")), fixed(iv.get("high")),
            len(r["benchmarks"]), r["benchmarks_total"], r["instances"], r.get("instances_from", ""),
            r["tasks_covered"], r["tasks_total"],
            r["tasks_drafted"], "true" if r["thin"] else "false", ";".join(r["missing_benchmarks"]),
            ";".join(r["benchmarks"]), " | ".join(r.get("jury_differs", [])),
            *([" | ".join(r.get("differs", []))] if data.get("comparability") else []),
            *([";".join(r["jury_unvalidated"])] if data.get("jury_unvalidated") else []))])
    return defuse(buf.getvalue())


# --------------------------------------------------------------------------------------------- html

# Sequential ColorBrewer Blues for the heatmap, light to dark by mean win rate; each cell also prints its number.
HEAT = ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#3182bd", "#08519c")


def heat(x: float | None) -> dict[str, str]:
    if x is None:
        return {"fill": "#eeeeee", "ink": "#1a1a1a"}
    step = min(len(HEAT) - 1, int(x * len(HEAT)))
    return {"fill": HEAT[step], "ink": "#ffffff" if step >= 5 else "#1a1a1a"}


def leaderboard_view(data: dict[str, Any]) -> dict[str, Any]:
    subs = [g for g in data["groups"] if g["level"] == "subcategory"]
    cats = {g["id"]: g["name"] for g in data["groups"] if g["level"] == "category"}
    cells = {(r["model"], r["group"]): r for r in data["tables"]["subcategory"]}
    overall = {r["model"]: r for r in data["tables"]["overall"]}
    order = [r["model"] for r in data["tables"]["overall"]] or data["models"]
    heatmap = []
    for model in order:
        row = []
        for g in subs:
            r = cells.get((model, g["id"]))
            mwr = r["mean_win_rate"] if r else None
            row.append({"group": g["id"], "row": r, "value": num(mwr) if r and r["benchmarks"] else "–",
                        "thin": bool(r and r["thin"]), "has": bool(r and r["benchmarks"]), **heat(mwr if r else None),
                        "title": (f"{model} · {g['name']}: "
                                  + (coverage_words(r) if r and r["benchmarks"] else "no score"))})
        heatmap.append({"model": model, "overall": overall.get(model), "cells": row})
    return {"data": data, "version": __version__, "subs": subs, "category_names": cats, "heatmap": heatmap,
            "legend": [{"fill": f, "label": f"{i / len(HEAT):.2f}–{(i + 1) / len(HEAT):.2f}"}
                       for i, f in enumerate(HEAT)],
            "num": num, "bound": bound, "pct": pct, "instances_cell": instances_cell,
            "score_instances": score_instances, "releases_line": releases_line, "source_legend": source_legend,
            "interval": interval, "coverage_words": coverage_words, "counted": counted,
            "differs_words": differs_words,
            "unvalidated_legend": unvalidated_legend if data.get("jury_unvalidated") else None,
            "comparability_line": comparability_line if data.get("comparability")
            else None, "dropped_line": dropped_line if data.get("comparable_only", {}).get("dropped") else None}


def render_html(data: dict[str, Any]) -> str:
    from clinreg.reports.html import environment

    return defuse(environment().get_template("leaderboard.html.j2").render(**leaderboard_view(data)), "html")
