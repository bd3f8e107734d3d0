"""`clinreg coverage` and `diff`: coverage per subcategory in every format, and what changed between registries."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import click

from clinreg.cli.common import (
    access_tiers, emit, fail, force_option, load, medhelm_option, output_option, refuse_load_errors, release_option,
    root_option,
)


def _coverage_inputs(root, release, access, medhelm=None):
    tiers = access_tiers(access)
    reg = load(root, release, medhelm=medhelm)
    refuse_load_errors(reg, "a coverage report")
    return reg, tiers


@click.command()
@root_option
@release_option
@click.option("--by", type=click.Choice(["category", "subcategory", "task"]), default="subcategory", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown", "csv", "html"]), default="table",
              show_default=True)
@click.option("--access", default=None, metavar="TIERS",
              help="Count only datasets with these access tiers, e.g. public,gated.")
@click.option("--medhelm-only", is_flag=True,
              help="Count only the records of MedHELM's default edition (the published evaluation's set).")
@medhelm_option
@output_option
@force_option
def coverage(root, release, by, fmt, access, medhelm_only, medhelm, output, force):
    """Coverage per subcategory: tasks, datasets, access tiers, instances and thin spots."""
    from clinreg.reports import coverage_data

    reg, tiers = _coverage_inputs(root, release, access, medhelm)
    data = coverage_data(reg, access=tiers, medhelm_only=medhelm_only)
    if fmt == "json":
        from clinreg.text import dumps

        text = dumps("coverage", data)
    elif fmt == "table":
        from clinreg.reports import render_table

        terminal = output is None and sys.stdout.isatty()
        # A terminal gets its own width; a pipe or a file gets unwrapped lines that grep and cut can read.
        width = shutil.get_terminal_size().columns if terminal else None
        text = render_table(data, by=by, width=width, color=terminal)
    else:
        from clinreg.reports import formats

        text = formats.render(fmt, data, by=by)
    if fmt == "csv" and output is not None:  # the table stays plain CSV; its metadata goes beside it
        from clinreg.reports import render_coverage_csv_metadata

        sidecar = output.with_name(output.name + ".meta.json")
        if sidecar.exists() and not force:
            raise fail(f"{sidecar} exists; refusing to overwrite it (use --force)")
        emit(text, output, force=force)
        emit(render_coverage_csv_metadata(data, by), sidecar, force=True)
        return
    emit(text, output, force=force)


@click.command("diff")
@click.argument("old")
@click.argument("new")
@root_option
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True)
@medhelm_option
@output_option
@force_option
def diff(old, new, root, fmt, medhelm, output, force):
    """What changed from OLD to NEW: datasets and tasks added, removed, renamed, moved or edited, and coverage.

    OLD and NEW are each a registry folder, a release listed in registry/releases.yaml (the current tree as it
    stood then), or a git ref of the repository holding --root; they are tried in that order.
    """
    import tempfile

    from clinreg.core import follow_edition, open_side
    from clinreg.errors import ClinregError
    from clinreg.reports import diff_registries

    with tempfile.TemporaryDirectory(prefix="clinreg-diff-") as tmp:
        sides = []
        for spec in (old, new):
            try:
                reg, side = open_side(spec, root, Path(tmp))
                if medhelm is not None:
                    follow_edition(reg, medhelm, only=True)
            except ClinregError as exc:  # not a side (SideError), or a release or edition it lacks (UnknownVersion)
                raise fail(str(exc), error=exc) from None
            except OSError as exc:
                raise fail(f"{spec}: cannot read it: {exc.strerror or exc}") from None
            errors = [d for d in reg.diagnostics if d.severity == "error"]
            if errors:
                click.echo(f"clinreg: warning: {spec} has {len(errors)} registry error(s); the diff shows what could "
                           "be "
                           f"read (first: {errors[0].file}:{errors[0].line}: {errors[0].message})", err=True)
            sides.append((reg, side))
        data = diff_registries(sides[0][0], sides[1][0], sides[0][1], sides[1][1])
    if fmt == "json":
        from clinreg.text import dumps

        text = dumps("diff", data)
    else:
        from clinreg.reports import render_diff_markdown

        text = render_diff_markdown(data)
    emit(text, output, force=force)


@click.command("site")
@root_option
@release_option
@click.option("-o", "--output", "output", type=click.Path(path_type=Path), required=True,
              help="The folder to write: new, empty, or an earlier build (which is replaced whole).")
@click.option("--previous", default=None, metavar="OLD",
              help="What the changes page compares with: a release, a registry folder or a git ref (default: the "
                   "previous release).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@medhelm_option
def site(root, release, output, previous, fmt, medhelm):
    """A static site of the registry: benchmark cards, categories and subcategories, search and filters.

    It needs no server and no network: open DIR/index.html from the file system.
    """
    import tempfile

    from clinreg.core import open_side
    from clinreg.errors import ClinregError
    from clinreg.reports import SiteError, build_site, default_previous, write_site

    reg = load(root, release, medhelm=medhelm)
    refuse_load_errors(reg, "a site")
    previous = previous or default_previous(reg)
    with tempfile.TemporaryDirectory(prefix="clinreg-site-") as tmp:
        old = side = None
        if previous is not None:
            try:
                old, side = open_side(previous, root if root is not None else reg.root, Path(tmp))
            except ClinregError as exc:  # not a side (SideError), or a release it lacks (UnknownVersion)
                raise fail(f"--previous {previous}: {exc}", error=exc) from None
            except OSError as exc:
                raise fail(f"--previous {previous}: cannot read it: {exc.strerror or exc}") from None
        pages = build_site(reg, old, side)
    try:
        summary = write_site(pages, output)
    except SiteError as exc:
        raise fail(str(exc), error=exc) from None
    summary = {**summary, "release": reg.current_release, "previous": previous,
               "datasets": len(reg.datasets)}
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("site", summary))
    else:
        click.echo(f"wrote {summary['pages']} pages ({summary['bytes']:,} bytes) to {output}; open {output}/index.html")
