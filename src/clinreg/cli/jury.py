"""`clinreg jury`: check an LLM jury against clinicians from per-instance ratings."""

from __future__ import annotations

import math
from pathlib import Path

import click

from clinreg.cli.common import EXIT_USAGE, fail


@click.group("jury")
def jury():
    """Check an LLM jury: agreement between its judges and with clinicians."""


@jury.command("agreement")
@click.argument("ratings", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--benchmark", default=None, metavar="NAME",
              help="Only the ratings of this benchmark (the file's `benchmark` column); needed when it holds several.")
@click.option("--scale", default=None, metavar="LOW:HIGH",
              help="The rating scale (e.g. 1:5): a rating outside it is a problem at its line. Without it, only a "
                   "rating past a million either way is.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def jury_agreement(ratings, benchmark, scale, fmt):
    """How far a jury's judges agree with each other and with clinicians.

    RATINGS is a CSV file (with a header) or a JSON lines file with instance_id, rater, axis and score per rating,
    and optionally rater_kind, model (the model whose answer was rated) and benchmark (`clinreg results ratings`
    writes them; instances of different benchmarks are different targets even when their ids match, and --benchmark
    reads one benchmark's ratings alone). A rater is a clinician when its row's rater_kind is `clinician` (the
    clinicians' sheet says so; `results ratings` writes `judge`), never because of its name; a file without the
    column is read the old way (docs/jury.md). Each instance and axis is a target. Reports, overall and per axis:
    ICC(2,1) and ICC(2,k) (two-way random, absolute agreement; Shrout and Fleiss 1979) between the judges, over the
    targets every judge scored, and between the jury's mean and the clinicians' mean; Krippendorff's alpha
    (interval) among the judges, the clinicians and all raters; each judge's bias (its score minus the other judges'
    mean, and minus the clinicians' mean). With a model column: the models' jury scores, and Kendall's tau between
    that ranking and the ranking with each judge left out.

    A file with problems is reported line by line, and nothing else (exit 2).
    """
    from clinreg.scoring import RatingsError, jury_agreement as agreement, read_ratings

    bounds = _scale(scale)
    try:
        rows = read_ratings(ratings, benchmark, bounds)
    except RatingsError as exc:
        from clinreg.reports import problem_lines

        for line in problem_lines("error", exc.problems):
            click.echo(line, err=True)
        raise click.exceptions.Exit(EXIT_USAGE) from None
    if benchmark is not None and not len(rows):
        raise fail(f"{ratings} holds no ratings of benchmark {benchmark!r} "
                   f"(it holds: {', '.join(sorted(rows.benchmarks)) or 'none named'})")
    data = agreement(rows)
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("jury_agreement", data))
        return
    from clinreg.reports import jury_agreement_lines

    click.echo("\n".join(jury_agreement_lines(data)))


def _scale(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    low, sep, high = text.partition(":")
    bounds = (_number(low), _number(high))
    if not sep or None in bounds or not all(math.isfinite(b) for b in bounds) or bounds[0] >= bounds[1]:
        raise fail(f"--scale takes LOW:HIGH, two finite numbers with LOW below HIGH (such as 1:5), not {text!r}")
    return bounds


def _number(text: str) -> float | None:
    """A decimal number as --scale writes it (an optional sign, digits, one point, an exponent), or None."""
    import re

    return float(text) if re.fullmatch(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*", text) else None
