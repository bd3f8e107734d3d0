"""The `results import` and `leaderboard` commands: scores from HELM, lm-eval and Inspect, ranked through the taxonomy."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli.common import (
    EXIT_FINDINGS, EXIT_USAGE, access_tiers, emit, fail, force_option, load, medhelm_option, output_option,
    refuse_load_errors, release_option, root_option,
)
from clinreg.text.output import to_json

RESULTS_FORMATS = ("every-eval-ever", "hf-eval-results")  # what `results export` writes
sources_argument = click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))


strict_option = click.option(
    "--strict", is_flag=True,
    help="All or nothing: any source or score that cannot be imported stops the command and nothing is written.",
)


export_option = click.option(
    "--export", "exports", multiple=True, type=click.Path(path_type=Path, file_okay=False), metavar="DIR",
    help="A folder `clinreg export` wrote that the harness runs used (repeatable): each score of a benchmark it "
         "exports records the export's id, registry release and instance set. An export a run names by an absolute "
         "path is found without it.",
)


aliases_option = click.option(
    "--aliases", "aliases", multiple=True, type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
    help="More model names to merge, in the format of the shipped table (src/clinreg/results/aliases.json); "
         "repeatable. Only names a table lists are merged.",
)


def _collect(root, sources, fmt, strict=False, exports=(), aliases=()):
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
    from clinreg.results.aliases import AliasError, load_aliases

    try:
        table = load_aliases(list(aliases))
    except AliasError as exc:
        raise click.BadParameter(str(exc), param_hint="--aliases") from None
    scores, reported, findings = collect(reg, list(sources), list(exports), table)
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
    if refused or findings.warnings:
        click.echo(render_text(Report(refused + findings.warnings, len(sources))), err=True)
    return reg, scores, reported, refused, findings.stand_ins, findings.merged


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
    from clinreg.results.importing import results_document, results_text

    reg, scores, reported, refused, stand_ins, _ = _collect(root, sources, fmt, strict, exports, aliases)
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


@results.command("export")
@click.argument("sources", nargs=-1, required=True)
@root_option
@click.option("--to", "to", type=click.Choice(RESULTS_FORMATS), default=None,
              help="The format to write. every-eval-ever: one Every Eval Ever 0.3.0 record per model and benchmark, "
                   "under data/<benchmark>/<developer>/<model>/<uuid>.json. hf-eval-results: <model>/.eval_results/"
                   "<benchmark>.yaml for each score of a benchmark on the Hugging Face Hub (never uploaded).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", *RESULTS_FORMATS]), default="text",
              show_default=True,
              help="text or json: how to report what was written and what the format leaves out. "
                   "every-eval-ever or hf-eval-results: the same as --to (reported as text).")
@click.option("-o", "--output", type=click.Path(path_type=Path, file_okay=False), required=True, metavar="DIR",
              help="The folder to write (replaced as a whole with --force).")
@force_option
@strict_option
@aliases_option
@click.option("--organization", default="unknown", show_default=True,
              help="Every Eval Ever: who ran the evaluations (source_organization_name) of results that are not a "
                   "published leaderboard's.")
def export_results_command(sources, root, to, fmt, output, force, strict, aliases, organization):
    """Write SOURCES (results files, anything `results import` reads, or published release ids such as
    medhelm-2025-07-31) in another tool's format, into the folder DIR, and say what the format leaves out.

    Every Eval Ever records carry the benchmark (record, subcategory), the registry release and MedHELM edition in
    `additional_details`, the jury in `llm_scoring` and standard errors and intervals in `uncertainty`, and
    `clinreg results import` reads them back. Each record is checked against the Every Eval Ever 0.3.0 schema
    shipped with clinreg before anything is written.
    """
    from clinreg.results.aliases import load_aliases
    from clinreg.results.convert import ExportRefused, export_results

    if fmt in RESULTS_FORMATS:
        if to is not None and to != fmt:
            raise fail(f"--to {to} and --format {fmt} name two formats; give one")
        to, fmt = fmt, "text"
    if to is None:
        raise fail(f"name the format to write: --to {' or --to '.join(RESULTS_FORMATS)}")
    paths = []
    for given in sources:
        path = Path(given)
        paths.extend(_with_published([given]) if not path.exists() and not any(c in given for c in "/\\.") else [path])
    reg, scores, reported, _, stand_ins, _ = _collect(root, tuple(paths), fmt, strict, (), aliases)
    try:
        summary = export_results(reg, to, scores, reported, stand_ins, output, force=force, organization=organization,
                                 aliases=load_aliases(list(aliases)))
    except ExportRefused as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}") from None
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        click.echo(dumps("results_export", summary))
        return
    click.echo(f"wrote {len(summary['files'])} file(s) for {summary['scores']} score(s) to {output} ({to})")
    for item in summary["left_out"]:
        click.echo(f"left out: {item['what']} ({item['count']}): {item['why']}")


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
    from clinreg.results.ratings import collect_ratings, ratings_text
    from clinreg.text.output import shown

    found = collect_ratings(list(runs))
    for problem in found.problems[:50]:
        click.echo(f"clinreg: warning: {shown(problem)}", err=True)
    if len(found.problems) > 50:
        click.echo(f"clinreg: warning: ... and {len(found.problems) - 50} more", err=True)
    for note in found.notes:
        click.echo(f"clinreg: note: {shown(note)}", err=True)
    if not found.rows:
        raise fail("no jury ratings in these runs; nothing written", EXIT_FINDINGS)
    jsonl = output is not None and output.suffix.casefold() == ".jsonl"
    text = ratings_text(found.rows, "jsonl" if jsonl else "csv")
    if output is None:
        click.echo(text, nl=False)
        return
    emit(text, output, force=force)
    summary = {"output": str(output) if output else None, "format": "jsonl" if jsonl else "csv",
               "ratings": len(found.rows), "runs": found.runs,
               "raters": sorted({r["rater"] for r in found.rows}), "models": sorted({r["model"] for r in found.rows}),
               "instances": len({(r["model"], r["instance_id"]) for r in found.rows}),
               "problems": found.problems, "notes": found.notes}
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        click.echo(dumps("results_ratings", summary))
    else:
        click.echo(shown(f"{summary['ratings']} rating(s) by {len(summary['raters'])} judge(s) "
                         f"({', '.join(summary['raters'])}) of {len(summary['models'])} model(s) on "
                         f"{summary['instances']} instance(s), from {len(found.runs)} run(s)"))


@results.command("published")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def published(fmt):
    """List the published leaderboards shipped with clinreg: MedHELM's releases, each a results file to put beside
    your own with `clinreg leaderboard MY_RESULTS --with ID`."""
    from clinreg.results.published import published_releases

    rows = [{"id": r["id"], "date": r["date"], "name": r["name"], "source": r["source"], "edition": r["edition"],
             "edition_note": r.get("edition_note"), "models": r["models"], "benchmarks": r["benchmarks"]}
            for r in published_releases()]
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        click.echo(dumps("results_published", {"releases": rows}))
        return
    for r in rows:
        source = f"{r['source']['repository']}@{r['source']['commit'][:12]}:{r['source']['file']}"
        click.echo(f"{r['id']}  {r['date']}  {r['models']} models x {r['benchmarks']} benchmarks  "
                   f"edition {r['edition'] or 'none'}  {source}")


def _with_published(ids):
    """The shipped files of the published release ids given with --with; an unknown id is a usage error."""
    from clinreg.results.published import RELEASES, published_file

    paths = []
    for release_id in ids:
        path = published_file(release_id)
        if path is None:
            known = ", ".join(r["id"] for r in RELEASES)
            raise click.BadParameter(f"no published release {release_id!r} (known: {known}; see `clinreg results "
                                     "published`)", param_hint="--with")
        paths.append(path)
    return paths


with_option = click.option(
    "--with", "with_", multiple=True, metavar="ID",
    help="Put a published leaderboard beside SOURCES, by its id (see `clinreg results published`); repeatable.",
)


class _LeaderboardCommand(click.Command):
    """`clinreg leaderboard RESULTS...`, and `clinreg leaderboard diff OLD NEW` when the first argument is `diff`
    (a results file named `diff` is given as `./diff`)."""

    def make_context(self, info_name, args, parent=None, **extra):
        if args and args[0] == "diff":
            return leaderboard_diff.make_context(f"{info_name} diff", list(args[1:]), parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx):
        return ctx.command.invoke(ctx) if ctx.command is not self else super().invoke(ctx)


@click.command("diff")
@click.argument("old")
@click.argument("new")
@root_option
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@aliases_option
@output_option
@force_option
def leaderboard_diff(old, new, root, fmt, aliases, output, force):
    """Why each model's mean win rate changed from OLD to NEW (results files, anything `results import` reads,
    or published release ids such as medhelm-2025-05-04): the change split, in order, into the benchmark set,
    the cohort of models, and the scores; the three parts sum to the change."""
    from clinreg.results.board_diff import board_diff

    sides = []
    for given in (old, new):
        path = Path(given)
        if not path.exists():
            (path,) = _with_published([given])
        reg, scores, _, _, _, _ = _collect(root, (path,), "json" if fmt == "json" else "text", aliases=aliases)
        sides.append(scores)
    data = {"old": old, "new": new, **board_diff(reg, *sides)}
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        text = dumps("leaderboard_diff", data)
    else:
        text = _diff_table(data)
    emit(text, output, force=force)


def _diff_table(data):
    from clinreg.text.output import defuse, shown

    b, c = data["benchmarks"], data["cohort"]
    lines = [f"clinreg leaderboard diff: {shown(data['old'])} -> {shown(data['new'])}",
             f"benchmarks {b['old']} -> {b['new']} (+{len(b['added'])} -{len(b['removed'])}); "
             f"models {c['old']} -> {c['new']} (+{len(c['added'])} -{len(c['removed'])}); "
             f"{len(data['benchmarks_with_changed_scores'])} benchmark(s) with changed scores"]
    head = ["Model", "Old", "New", "Change", "Benchmarks", "Cohort", "Scores"]
    rows = [[shown(m["model"]), f"{m['old']:.3f}", f"{m['new']:.3f}",
             *(f"{m['change'][k]:+.3f}" for k in ("total", "benchmarks", "cohort", "scores"))] for m in data["models"]]
    widths = [max(len(head[j]), *(len(r[j]) for r in rows)) if rows else len(head[j]) for j in range(len(head))]
    for r in [head, *rows]:
        lines.append("  ".join([r[0].ljust(widths[0]), *(r[j].rjust(widths[j]) for j in range(1, len(head)))]))
    if data["unchanged"]:
        lines.append(f"unchanged: {', '.join(shown(m) for m in data['unchanged'])}")
    lines.append("Change = Benchmarks + Cohort + Scores, taken in that order: the benchmark set changes first (old "
                 "models and scores), then the models ranked beside (new cohort), then the scores themselves.")
    return defuse("\n".join(line.rstrip() for line in lines))


@click.command("leaderboard", cls=_LeaderboardCommand)
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
@with_option
@export_option
@click.option("--comparable-only", is_flag=True,
              help="Rank, on each benchmark, only the largest group of scores that agree in harness, export, instance "
                   "set, MedHELM edition, generation settings and jury; say what was left out.")
@aliases_option
@medhelm_option
def leaderboard(sources, root, release, by, access, fmt, output, force, strict, with_, exports, comparable_only,
                aliases, medhelm):
    """Rank models by HELM's mean win rate, overall or per category or subcategory, with coverage beside each row.
    `clinreg leaderboard diff OLD NEW` explains how each model's mean win rate changed between two boards.

    SOURCES are results files from `clinreg results import`, or anything that command reads. Each row also gives
    the macro average, Macro %: each score rescaled to 0-100 by its metric's declared range (json and csv keep
    the 0-1 fraction), the benchmarks and instances
    behind it, the tasks they cover (and how many of those are drafted), a `thin` flag when one benchmark carries
    the row, and the benchmarks the model is missing.
    """
    import sys

    from clinreg.results.leaderboard import leaderboard_data

    tiers = access_tiers(access)
    sources = tuple(sources) + tuple(_with_published(with_))
    _, scores, reported, _, _, merged = _collect(root, sources, "json" if fmt == "json" else "text", strict, exports,
                                                 aliases)
    view = load(root, release, medhelm=medhelm) if release or medhelm else None
    if view is not None:
        refuse_load_errors(view, "a leaderboard")
    data = leaderboard_data(view or load(root), scores, reported, access=tiers, comparable_only=comparable_only,
                            merged=merged)
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
