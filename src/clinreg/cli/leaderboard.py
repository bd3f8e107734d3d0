"""`clinreg leaderboard`: rank models by HELM's mean win rate through the taxonomy, and `leaderboard diff`: why each
model's mean win rate changed between two boards."""

from __future__ import annotations

import click

from clinreg.cli.common import (
    access_tiers, emit, force_option, load, medhelm_option, output_option, refuse_load_errors, release_option,
    root_option,
)
from clinreg.cli.common_results import (
    aliases_option, collect_sources, export_option, resolved, results_registry, sources_argument, strict_option,
)
from clinreg.text import to_json

with_option = click.option(
    "--with", "with_", multiple=True, metavar="ID",
    help="Put a published leaderboard beside SOURCES, by its id (see `clinreg results published`); repeatable.",
)


class LeaderboardGroup(click.Group):
    """`clinreg leaderboard SOURCES...` ranks (the group's own callback); `clinreg leaderboard diff OLD NEW` is a
    registered subcommand, chosen when the first argument names it (a results file named `diff` is given as
    `./diff`). Otherwise the arguments are parsed as the ranking command's, exactly as a plain command would."""

    allow_extra_args, allow_interspersed_args = False, True  # a plain command's parsing, not a group's

    def parse_args(self, ctx, args):
        if args and args[0] in self.commands:
            ctx._protected_args, ctx.args = args[:1], args[1:]
            return ctx.args
        return click.Command.parse_args(self, ctx, args)

    def invoke(self, ctx):
        if not ctx._protected_args:
            return click.Command.invoke(self, ctx)
        name, command, args = self.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        ctx.invoked_subcommand = name
        with command.make_context(name, args, parent=ctx) as sub_ctx:
            return sub_ctx.command.invoke(sub_ctx)

    def collect_usage_pieces(self, ctx):
        return click.Command.collect_usage_pieces(self, ctx)


@click.group("leaderboard", cls=LeaderboardGroup, invoke_without_command=True)
@sources_argument
@root_option
@release_option
@click.option("--by", type=click.Choice(["overall", "category", "subcategory"]), default="overall", show_default=True)
@click.option("--access", default=None, metavar="TIERS",
              help="Count only benchmarks with these access tiers, e.g. public,gated.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown", "csv", "html"]), default="table",
              show_default=True)
@output_option
@force_option
@strict_option
@with_option
@export_option
@click.option("--comparable-only", is_flag=True,
              help="Rank, on each benchmark, only the largest group of scores that agree in metric, harness, export, "
                   "instance set, MedHELM edition, generation settings and jury; say what was left out.")
@aliases_option
@medhelm_option
def leaderboard(sources, root, release, by, access, fmt, output, force, strict, with_, exports, comparable_only,
                aliases, medhelm):
    """Rank models by HELM's mean win rate, overall or per category or subcategory, with coverage beside each row.
    `clinreg leaderboard diff OLD NEW` explains how each model's mean win rate changed between two boards.

    SOURCES are results files from `clinreg results import`, anything that command reads, or published release
    ids (`clinreg results published`); `--with ID` adds a release beside them. Each row also gives
    the macro average, Macro %: each score rescaled to 0-100 by its metric's declared range (json and csv keep
    the 0-1 fraction), the benchmarks and instances
    behind it, the tasks they cover (and how many of those are drafted), a `thin` flag when one benchmark carries
    the row, and the benchmarks the model is missing.
    """
    import sys

    from clinreg.results import leaderboard_data

    tiers = access_tiers(access)
    sources = [resolved(s) for s in sources] + [resolved(i, "always", "--with") for i in with_]
    reg = results_registry(root)
    intake = collect_sources(reg, sources, "json" if fmt == "json" else "text", strict, exports, aliases)
    view = load(root, release, medhelm=medhelm) if release or medhelm else None
    if view is not None:
        refuse_load_errors(view, "a leaderboard")
    data = leaderboard_data(view or reg, intake.scores, intake.reported, access=tiers, comparable_only=comparable_only,
                            merged=intake.merged, beside=intake.stand_ins)
    if fmt == "json":
        out = {k: v for k, v in data.items() if k != "tables"}
        from clinreg.text import envelope

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


@leaderboard.command("diff")
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
    from clinreg.reports import render_diff_table
    from clinreg.results.board_diff import board_diff

    sides, reg = [], None
    for given, hint in ((old, "OLD"), (new, "NEW")):
        path = resolved(given, hint=hint)
        reg = reg or results_registry(root)
        sides.append(collect_sources(reg, (path,), "json" if fmt == "json" else "text", aliases=aliases))
    from clinreg.results import load_aliases, merge_names

    # one model's names joined across the two boards too (your run of a model a release also has, say)
    merge_names(sides[0].scores + sides[1].scores, [], load_aliases(list(aliases)))
    data = {"old": old, "new": new, **board_diff(reg, sides[0].scores, sides[1].scores,
                                                 reported=(sides[0].reported, sides[1].reported))}
    if fmt == "json":
        from clinreg.text import dumps

        text = dumps("leaderboard_diff", data)
    else:
        text = render_diff_table(data)
    emit(text, output, force=force)
