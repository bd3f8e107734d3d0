"""What the results commands (`results import`, `results export`, `leaderboard`) share: their options, and reading
their sources through the one resolver (clinreg.results.resolve) and the strictness policy (clinreg.results.intake)."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli.common import load, refuse_load_errors


class _SourcesArgument(click.Argument):
    """SOURCES...; not repeated in a subcommand's usage line (`clinreg leaderboard diff`, whose group takes them)."""

    def get_usage_pieces(self, ctx):
        return super().get_usage_pieces(ctx) if self in ctx.command.params else []


sources_argument = click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path),
                                  cls=_SourcesArgument)


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


def collect_sources(reg, sources, fmt, strict=False, exports=(), aliases=()):
    """Read every source against `reg` under the strictness policy (clinreg.results.intake): a stop ends the command
    with every located finding, as a validation report; otherwise the refused findings and warnings go to stderr."""
    from clinreg.core import render_json, render_text
    from clinreg.results import AliasError, load_aliases, read_results

    try:
        table = load_aliases(list(aliases))
    except AliasError as exc:
        raise click.BadParameter(str(exc), param_hint="--aliases") from None
    intake = read_results(reg, list(sources), list(exports), table, strict)
    if intake.stop:
        if fmt == "json":
            from clinreg.text import wrap

            click.echo(wrap("validation", render_json(intake.report)))
        else:
            click.echo(render_text(intake.report), err=True)
        raise click.exceptions.Exit(intake.exit_code)
    if intake.report.diagnostics:
        click.echo(render_text(intake.report), err=True)
    return intake


def results_registry(root):
    """The registry a results command reads against, loaded once per command."""
    reg = load(root)
    refuse_load_errors(reg, "reading results")
    return reg


def resolved(given, policy="when-missing", hint="SOURCES"):
    """The file or folder a results source names (clinreg.results.resolve): a path, else a published release id;
    a name that is neither is a usage error with the closest id, if one is close."""
    from clinreg.results import resolve_source

    found = resolve_source(str(given), policy)
    if found.problem is not None:
        raise click.BadParameter(found.message(did_you_mean=True), param_hint=hint)
    return found.path
