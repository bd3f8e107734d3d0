"""Render a list of located problems for stderr: the first ones, and how many more there are."""

from __future__ import annotations

from clinreg.text.output import shown


def problem_lines(kind: str, problems: list[str], limit: int = 50) -> list[str]:
    """`clinreg: KIND: ...` for the first `limit` problems, and a count of the rest."""
    out = [f"clinreg: {kind}: {shown(problem)}" for problem in problems[:limit]]
    if len(problems) > limit:
        out.append(f"clinreg: {kind}: ... and {len(problems) - limit} more")
    return out
