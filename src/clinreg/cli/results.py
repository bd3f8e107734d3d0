"""The `results` commands: scores from HELM, lm-eval and Inspect imported into one normalised file, exported to
other tools' formats, jury ratings taken out of runs, and the published leaderboards shipped with clinreg."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli.common import EXIT_FINDINGS, emit, fail, force_option, output_option, root_option
from clinreg.cli.common_results import (
    aliases_option, collect_sources, export_option, resolved, results_registry, sources_argument, strict_option,
)

RESULTS_FORMATS = ("every-eval-ever", "hf-eval-results")  # what `results export` writes


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
@export_option
@aliases_option
def import_results(sources, root, fmt, output, force, strict, exports, aliases):
    """Read SOURCES and write one results file: model, benchmark, metric, value, range, instances, source.

    A SOURCE is a HELM leaderboard CSV (Model, optional Mean win rate, then `<benchmark> - <metric>` columns), a
    HELM run folder (benchmark_output/runs/<suite>), an lm-eval results_*.json, an Inspect .eval or .json log,
    an Every Eval Ever record (`clinreg results export --format every-eval-ever` writes them), or a results file
    written by this command: a file, or a folder that holds them (an Inspect log folder,
    lm-eval's --output_path, a HELM suite folder). Every score that maps to a benchmark of the registry is
    written; each column, task, run group or score that does not is a warning at file:line:col, and the summary
    counts them. With --strict, any of those stops the import and nothing is written.
    """
    from clinreg.reports import import_summary_text
    from clinreg.results import import_summary, results_document, results_text

    reg = results_registry(root)
    intake = collect_sources(reg, [resolved(s) for s in sources], fmt, strict, exports, aliases)
    document = results_document(reg, intake.scores, intake.reported, intake.stand_ins)
    text = results_text(document)
    if output is None:
        click.echo(text)
        return
    emit(text, output, force=force)
    summary = import_summary(output, document, intake)
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("results_import", summary))
    else:
        click.echo(import_summary_text(summary))


@results.command("export")
@click.argument("sources", nargs=-1, required=True)
@root_option
@click.option("--to", "to", type=click.Choice(RESULTS_FORMATS), default=None,
              help="The format to write. every-eval-ever: one Every Eval Ever 0.3.0 record per model and benchmark, "
                   "under data/<benchmark>/<developer>/<model>/<uuid>.json. hf-eval-results: <model>/.eval_results/"
                   "<benchmark>.yaml for each score of a benchmark on the Hugging Face Hub (never uploaded).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", *RESULTS_FORMATS]), default="text",
              show_default=True, metavar="[text|json]",
              help="How to report what was written and what the format leaves out.")
@click.option("-o", "--output", type=click.Path(path_type=Path, file_okay=False), required=True, metavar="DIR",
              help="The folder to write.")
@click.option("--force", is_flag=True, help="Replace the folder DIR, as a whole, if it exists.")
@strict_option
@aliases_option
@click.option("--organization", default="unknown", show_default=True,
              help="Every Eval Ever: who ran the evaluations (source_organization_name) of results that are not a "
                   "published leaderboard's.")
def export_results_command(sources, root, to, fmt, output, force, strict, aliases, organization):
    """Write SOURCES (results files, anything `results import` reads, or published release ids such as
    medhelm-2025-07-31) in the format --to names, into the folder DIR, and say what the format leaves out. Where
    scores given cannot be written (scores on another metric, a benchmark with no Hub dataset id), they are named
    with why and the exit code is 1.

    Every Eval Ever records carry the benchmark (record, subcategory), the registry release and MedHELM edition in
    `additional_details`, the jury in `llm_scoring` and standard errors and intervals in `uncertainty`, and
    `clinreg results import` reads them back. Each record is checked against the Every Eval Ever 0.3.0 schema
    shipped with clinreg before anything is written.
    """
    from clinreg.reports import export_summary_lines
    from clinreg.results import ExportRefused, export_results, load_aliases

    if fmt in RESULTS_FORMATS:
        if to is not None and to != fmt:
            raise fail(f"--to {to} and --format {fmt} name two formats; give one")
        to, fmt = fmt, "text"
    if to is None:
        raise fail(f"name the format to write: --to {' or --to '.join(RESULTS_FORMATS)}")
    paths = [resolved(given) for given in sources]
    reg = results_registry(root)
    intake = collect_sources(reg, paths, fmt, strict, (), aliases)
    try:
        summary = export_results(reg, to, intake.scores, intake.reported, intake.stand_ins, output, force=force,
                                 organization=organization, aliases=load_aliases(list(aliases)))
    except ExportRefused as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}") from None
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("results_export", summary))
    else:
        click.echo("\n".join(export_summary_lines(summary, output, to)))
    if any(item.get("dropped") for item in summary["left_out"]):  # named above, with why: never in silence
        raise click.exceptions.Exit(EXIT_FINDINGS)


@results.command("ratings")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="How to report what was written (the ratings file is CSV, or JSON lines for -o *.jsonl).")
@output_option
@force_option
def ratings(runs, fmt, output, force):
    """Write each judge's per-instance ratings out of jury runs, for `clinreg jury agreement`.

    RUNS are Inspect logs (.eval, .json, or a folder of them) of tasks `clinreg export inspect` wrote, and HELM
    run folders (a run, or a suite folder) of runs `clinreg export helm` or MedHELM's run specs made. One row per
    rating the jury score counted: instance_id, rater (the judge's name in the jury), axis, score, model (the
    model whose answer was rated), judge_model and benchmark (the run's benchmark as the harness names it). An
    instance no judge rated has no row. The file is CSV, or JSON lines when -o ends in .jsonl; without -o, CSV on
    stdout. A run or log named that holds no jury ratings,
    a file that cannot be read, or a rating given twice is a warning and left out (runs found in a folder without
    jury ratings are counted in a note); with no ratings at all nothing is written (exit 1).
    """
    from clinreg.reports import problem_lines, ratings_summary_text
    from clinreg.results import collect_ratings, ratings_summary
    from clinreg.scoring import ratings_text

    for run in runs:  # a FIFO or a device is never read: refused before anything is, as every results source is
        if not (run.is_dir() or run.is_file()):
            raise fail(f"{run}: not a regular file or a folder (a FIFO, a device or a socket); nothing read")
    found = collect_ratings(list(runs))
    for line in problem_lines("warning", found.problems) + problem_lines("note", found.notes, len(found.notes)):
        click.echo(line, err=True)
    if not found.rows:
        raise fail("no jury ratings in these runs; nothing written", EXIT_FINDINGS)
    file_format = "jsonl" if output is not None and output.suffix.casefold() == ".jsonl" else "csv"
    text = ratings_text(found.rows, file_format)
    if output is None:
        click.echo(text, nl=False)
        return
    emit(text, output, force=force)
    summary = ratings_summary(found, output, file_format)
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("results_ratings", summary))
    else:
        click.echo(ratings_summary_text(summary))


@results.command("published")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def published(fmt):
    """List the published leaderboards shipped with clinreg: MedHELM's releases, each a results file to put beside
    your own with `clinreg leaderboard MY_RESULTS --with ID`."""
    from clinreg.results import published_rows

    rows = published_rows()
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("results_published", {"releases": rows}))
        return
    from clinreg.reports import published_lines

    for line in published_lines(rows):
        click.echo(line)
