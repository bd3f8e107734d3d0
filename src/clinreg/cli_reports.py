"""The `review` and `diff` commands: the taxonomy as a document for clinicians, and what changed between registries."""

from __future__ import annotations

from clinreg.output import to_json
from pathlib import Path

import click

from clinreg.cli import emit, fail, load, refuse_load_errors, root_option

output_option = click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
                             help="Write to FILE instead of stdout.")
force_option = click.option("--force", is_flag=True, help="Overwrite an existing output file.")


@click.group("review", invoke_without_command=True)
@root_option
@click.option("--category", default=None, metavar="C", help="Only this category id.")
@click.option("--format", "fmt", type=click.Choice(["html", "markdown", "json"]), default="html", show_default=True)
@output_option
@force_option
@click.pass_context
def review(ctx, root, category, fmt, output, force):
    """The taxonomy for clinical review: definitions, examples, provenance, review status and datasets.

    Without a subcommand, render the review document (a printable HTML page by default).
    """
    if ctx.invoked_subcommand is not None:
        return
    from clinreg.reports.review import UnknownCategory, review_document

    reg = load(root)
    refuse_load_errors(reg, "a review document")
    try:
        document = review_document(reg, category=category)
    except UnknownCategory as exc:
        raise fail(str(exc))
    if fmt == "json":
        text = to_json(document)
    elif fmt == "markdown":
        from clinreg.reports.markdown import render_review_markdown

        text = render_review_markdown(document)
    else:
        from clinreg.reports.html import render_review_html

        text = render_review_html(document)
    emit(text, output, force=force)


@click.command("diff")
@click.argument("old")
@click.argument("new")
@root_option
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True)
@output_option
@force_option
def diff(old, new, root, fmt, output, force):
    """What changed from OLD to NEW: datasets and tasks added, removed, renamed, moved or edited, and coverage.

    OLD and NEW are each a registry folder, a release listed in registry/releases.yaml (the current tree as it
    stood then), or a git ref of the repository holding --root; they are tried in that order.
    """
    import tempfile

    from clinreg.diff import SideError, diff_registries, open_side

    with tempfile.TemporaryDirectory(prefix="clinreg-diff-") as tmp:
        sides = []
        for spec in (old, new):
            try:
                reg, side = open_side(spec, root, Path(tmp))
            except (SideError, ValueError) as exc:
                raise fail(str(exc))
            except OSError as exc:
                raise fail(f"{spec}: cannot read it: {exc.strerror or exc}")
            errors = [d for d in reg.diagnostics if d.severity == "error"]
            if errors:
                click.echo(f"clinreg: warning: {spec} has {len(errors)} registry error(s); the diff shows what could be "
                           f"read (first: {errors[0].file}:{errors[0].line}: {errors[0].message})", err=True)
            sides.append((reg, side))
        data = diff_registries(sides[0][0], sides[1][0], sides[0][1], sides[1][1])
    if fmt == "json":
        text = to_json(data)
    else:
        from clinreg.reports.markdown import render_diff_markdown

        text = render_diff_markdown(data)
    emit(text, output, force=force)
