"""The `results import` and `leaderboard` commands: scores from HELM, lm-eval and Inspect, ranked through the taxonomy."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli.common import (
    EXIT_FINDINGS, EXIT_USAGE, access_tiers, emit, force_option, load, medhelm_option, output_option,
    refuse_load_errors, release_option, root_option,
)
from clinreg.text.output import to_json

sources_argument = click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))


strict_option = click.option(
    "--strict", is_flag=True,
    help="All or nothing: any source or score that cannot be imported stops the command and nothing is written.",
)


def _collect(root, sources, fmt, strict=False):
    """Read every source against the current registry.

    Every score that maps is kept; each refused source or score is a located warning on stderr, and the
    refused findings are returned for the summary. With `strict`, or when nothing at all could be read, any
    error stops the command with every located finding, as a validation report.
    """
    from dataclasses import replace

    from clinreg.core.codes import CODES
    from clinreg.core.diagnostics import Report, render_json, render_text
    from clinreg.results.importing import collect

    reg = load(root)
    refuse_load_errors(reg, "reading results")
    scores, reported, findings = collect(reg, list(sources))
    if findings.errors and (strict or not scores):
        report = Report(findings.diagnostics, len(sources))
        if fmt == "json":
            from clinreg.text.jsonout import wrap

            click.echo(wrap("validation", render_json(report)))
        else:
            click.echo(render_text(report), err=True)
        raise click.exceptions.Exit(EXIT_USAGE if findings.unreadable else EXIT_FINDINGS)
    refused = [replace(d, severity=CODES[d.code].severity_in(strict=False), hint=_refused_hint(d.hint))
               for d in findings.errors]
    if refused:
        click.echo(render_text(Report(refused, len(sources))), err=True)
    return reg, scores, reported, refused, findings.stand_ins


def _refused_hint(hint):
    return f"{hint}; left out of the import (--strict stops instead)" if hint else "left out of the import (--strict stops instead)"


@click.group("results")
def results():
    """Evaluation results: read them from HELM, lm-eval and Inspect into one normalised file."""


@results.command("import")
@sources_argument
@root_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="How to report what was imported (the results file itself is always JSON).")
@output_option
@force_option
@strict_option
def import_results(sources, root, fmt, output, force, strict):
    """Read SOURCES and write one results file: model, benchmark, metric, value, range, instances, source.

    A SOURCE is a HELM leaderboard CSV (Model, optional Mean win rate, then `<benchmark> - <metric>` columns), a
    HELM run folder (benchmark_output/runs/<suite>), an lm-eval results_*.json, an Inspect .eval or .json log,
    or a results file written by this command: a file, or a folder that holds them (an Inspect log folder,
    lm-eval's --output_path, a HELM suite folder). Every score that maps to a benchmark of the registry is
    written; each column, task, run group or score that does not is a warning at file:line:col, and the summary
    counts them. With --strict, any of those stops the import and nothing is written.
    """
    from clinreg.results.importing import results_document, results_text

    reg, scores, reported, refused, stand_ins = _collect(root, sources, fmt, strict)
    document = results_document(reg, scores, reported, stand_ins)
    text = results_text(document)
    if output is None:
        click.echo(text)
        return
    emit(text, output, force=force)
    summary = {"output": str(output), "scores": len(scores), "models": document["models"],
               "benchmarks": document["benchmarks"], "reported_win_rates": len(reported),
               "stand_ins": len(stand_ins), "refused": [d.to_dict() for d in refused]}
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        click.echo(dumps("results_import", summary))
    else:
        left = f"; {len(refused)} refused (see the warnings above)" if refused else ""
        if stand_ins:
            left += f"; {len(stand_ins)} token-overlap stand-in(s) kept beside, not ranked (lm-eval has no jury)"
        click.echo(f"{len(scores)} score(s) for {len(document['models'])} model(s) on "
                   f"{len(document['benchmarks'])} benchmark(s){left}")


@click.command("leaderboard")
@sources_argument
@root_option
@release_option
@click.option("--by", type=click.Choice(["overall", "category", "subcategory"]), default="overall", show_default=True)
@click.option("--access", default=None, metavar="TIERS", help="Count only benchmarks with these access tiers, e.g. public,gated.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown", "csv", "html"]), default="table",
              show_default=True)
@output_option
@force_option
@strict_option
@medhelm_option
def leaderboard(sources, root, release, by, access, fmt, output, force, strict, medhelm):
    """Rank models by HELM's mean win rate, overall or per category or subcategory, with coverage beside each row.

    SOURCES are results files from `clinreg results import`, or anything that command reads. Each row also gives
    the macro average on a 0-1 scale (each metric rescaled by its declared range), the benchmarks and instances
    behind it, the tasks they cover (and how many of those are drafted), a `thin` flag when one benchmark carries
    the row, and the benchmarks the model is missing.
    """
    import sys

    from clinreg.results.leaderboard import leaderboard_data

    tiers = access_tiers(access)
    _, scores, reported, _, _ = _collect(root, sources, "json" if fmt == "json" else "text", strict)
    view = load(root, release, medhelm=medhelm) if release or medhelm else None
    if view is not None:
        refuse_load_errors(view, "a leaderboard")
    data = leaderboard_data(view or load(root), scores, reported, access=tiers)
    if fmt == "json":
        out = {k: v for k, v in data.items() if k != "tables"}
        from clinreg.text.jsonout import envelope

        text = to_json(envelope("leaderboard", {"by": by, "rows": data["tables"][by], **out}))
    else:
        from clinreg.reports import leaderboard as render

        if fmt == "table":
            text = render.render_table(data, by, color=output is None and sys.stdout.isatty())
        elif fmt == "markdown":
            text = render.render_markdown(data, by)
        elif fmt == "csv":
            text = render.render_csv(data, by)
        else:
            text = render.render_html(data)
    emit(text, output, force=force)
