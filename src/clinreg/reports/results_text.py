"""Render what the results commands did for people: an import's, an export's and a ratings file's summary, and the
list of published leaderboards; nothing is recomputed."""

from __future__ import annotations

from typing import Any

from clinreg.text.output import shown


def import_summary_text(summary: dict[str, Any]) -> str:
    refused, stand_ins = len(summary["refused"]), summary["stand_ins"]
    left = f"; {refused} refused (see the warnings above)" if refused else ""
    if stand_ins:
        left += (f"; {stand_ins} score(s) on another metric than the benchmark's kept beside, not ranked (lm-eval's "
                 "token overlap, medhelm's configurable jury_score)")
    return (f"{summary['scores']} score(s) for {len(summary['models'])} model(s) on "
            f"{len(summary['benchmarks'])} benchmark(s){left}")


def export_summary_lines(summary: dict[str, Any], output: Any, to: str) -> list[str]:
    return [f"wrote {len(summary['files'])} file(s) for {summary['scores']} score(s) to {output} ({to})",
            *(f"left out: {item['what']} ({item['count']}): {item['why']}" for item in summary["left_out"])]


def ratings_summary_text(summary: dict[str, Any]) -> str:
    return shown(f"{summary['ratings']} rating(s) by {len(summary['raters'])} judge(s) "
                 f"({', '.join(summary['raters'])}) of {len(summary['models'])} model(s) on "
                 f"{summary['instances']} instance(s), from {len(summary['runs'])} run(s)")


def published_lines(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in rows:
        source = f"{r['source']['repository']}@{r['source']['commit'][:12]}:{r['source']['file']}"
        out.append(f"{r['id']}  {r['date']}  {r['models']} models x {r['benchmarks']} benchmarks  "
                   f"edition {r['edition'] or 'none'}  {source}")
    return out
