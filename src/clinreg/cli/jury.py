"""`clinreg jury`: check an LLM jury against clinicians from per-instance ratings."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli.common import EXIT_USAGE, fail
from clinreg.text.output import shown


@click.group("jury")
def jury():
    """Check an LLM jury: agreement between its judges and with clinicians."""


def _n(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _lines(label: str, s: dict) -> list[str]:
    j, jc = s["judges"], s["jury_vs_clinicians"]
    out = [f"{label}: {s['targets']} target(s)",
           f"  judges: ICC(2,1) {_n(j['icc2_1'])}, ICC(2,k) {_n(j['icc2_k'])} over the "
           f"{j['targets_scored_by_every_judge']} target(s) every judge scored; alpha (interval) {_n(j['alpha_interval'])}",
           f"  jury mean vs clinicians' mean: ICC(2,1) {_n(jc['icc2_1'])}, ICC(2,k) {_n(jc['icc2_k'])} "
           f"over {jc['targets']} target(s)",
           f"  clinicians: alpha (interval) {_n(s['clinicians']['alpha_interval'])}; all raters: alpha (interval) "
           f"{_n(s['all_raters']['alpha_interval'])}"]
    for b in s["bias"]:
        out.append(f"  bias of {b['judge']}: {_n(b['minus_other_judges'])} against the other judges, "
                   f"{_n(b['minus_clinicians'])} against the clinicians")
    return out


@jury.command("agreement")
@click.argument("ratings", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--benchmark", default=None, metavar="NAME",
              help="Only the ratings of this benchmark (the file's `benchmark` column); needed when it holds several.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def jury_agreement(ratings, benchmark, fmt):
    """How far a jury's judges agree with each other and with clinicians.

    RATINGS is a CSV file (with a header) or a JSON lines file with instance_id, rater, axis and score per
    rating, and optionally model (the model whose answer was rated) and benchmark (`clinreg results ratings`
    writes both; instances of different benchmarks are different targets even when their ids match, and
    --benchmark reads one benchmark's ratings alone). A rater whose name starts `clinician:` is a
    clinician; every other rater is a judge. Each instance and axis is a target. Reports, overall and per axis:
    ICC(2,1) and ICC(2,k) (two-way random, absolute agreement; Shrout and Fleiss 1979) between the judges, over
    the targets every judge scored, and between the jury's mean and the clinicians' mean; Krippendorff's alpha
    (interval) among the judges, the clinicians and all raters; each judge's bias (its score minus the other
    judges' mean, and minus the clinicians' mean). With a model column: the models' jury scores, and Kendall's
    tau between that ranking and the ranking with each judge left out.

    A file with problems is reported line by line, and nothing else (exit 2).
    """
    from clinreg.scoring import RatingsError, jury_agreement as agreement, read_ratings

    try:
        rows = read_ratings(ratings)
    except RatingsError as exc:
        for problem in exc.problems[:50]:
            click.echo(f"clinreg: error: {shown(problem)}", err=True)
        if len(exc.problems) > 50:
            click.echo(f"clinreg: error: ... and {len(exc.problems) - 50} more", err=True)
        raise click.exceptions.Exit(EXIT_USAGE)
    named = sorted({r.benchmark for r in rows if r.benchmark})
    if benchmark is not None:
        rows = [r for r in rows if r.benchmark == benchmark]
        if not rows:
            raise fail(f"{ratings} holds no ratings of benchmark {benchmark!r} "
                       f"(it holds: {', '.join(named) or 'none named'})")
    data = agreement(rows)
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        click.echo(dumps("jury_agreement", data))
        return
    click.echo(shown(f"{len(data['judges'])} judge(s): {', '.join(data['judges']) or 'none'}; "
                     f"{len(data['clinicians'])} clinician(s); {data['instances']} instance(s); "
                     f"axes: {', '.join(data['axes'])}"))
    if len(data["benchmarks"]) > 1:
        click.echo(shown(f"pooled over {len(data['benchmarks'])} benchmarks ({', '.join(data['benchmarks'])}); "
                         "--benchmark NAME reads one alone"))
    for line in _lines("all axes", data["overall"]):
        click.echo(shown(line))
    if len(data["by_axis"]) > 1:
        for axis in data["by_axis"]:
            for line in _lines(f"axis {axis['axis']}", axis):
                click.echo(shown(line))
    loo = data["leave_one_judge_out"]
    if loo is None:
        click.echo("leave one judge out: needs a model column naming at least two rated models, and two judges")
    else:
        click.echo(f"leave one judge out ({loo['models']} models):")
        for j in loo["left_out"]:
            click.echo(shown(f"  without {j['judge']}: Kendall's tau {_n(j['kendall_tau'])}"))
