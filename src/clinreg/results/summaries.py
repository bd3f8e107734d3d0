"""What the results commands report after writing: the summaries of an import and of a ratings file, and the rows
of the published leaderboards, as data (clinreg.reports.results_text renders them for people)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clinreg.results.intake import Intake


def import_summary(output: Path, document: dict[str, Any], intake: Intake) -> dict[str, Any]:
    """What `results import -o FILE` wrote: the counts, and every finding it left out."""
    return {"output": str(output), "scores": len(intake.scores), "models": document["models"],
            "benchmarks": document["benchmarks"], "reported_win_rates": len(intake.reported),
            "stand_ins": len(intake.stand_ins), "refused": [d.to_dict() for d in intake.refused]}


def ratings_summary(found: Any, output: Path | None, file_format: str) -> dict[str, Any]:
    """What `results ratings -o FILE` wrote, from the ratings found (`results.ratings.collect_ratings`)."""
    rows = found.rows
    return {"output": str(output) if output else None, "format": file_format, "ratings": len(rows),
            "runs": found.runs, "raters": sorted({r["rater"] for r in rows}),
            "models": sorted({r["model"] for r in rows}),
            "instances": len({(r["model"], r["instance_id"]) for r in rows}),
            "problems": found.problems, "notes": found.notes}


def published_rows() -> list[dict[str, Any]]:
    """The published leaderboards shipped with clinreg, as `clinreg results published` lists them."""
    from clinreg.results.published import published_releases

    return [{"id": r["id"], "date": r["date"], "name": r["name"], "source": r["source"], "edition": r["edition"],
             "edition_note": r.get("edition_note"), "models": r["models"], "benchmarks": r["benchmarks"]}
            for r in published_releases()]
