"""`clinreg medhelm diff`: MedHELM's own files beside one of the registry's MedHELM editions."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli.common import EXIT_FINDINGS, EXIT_OK, emit, fail, force_option, load, output_option, root_option


@click.group("medhelm")
def medhelm() -> None:
    """MedHELM as it moves: compare its own files with the registry's editions (registry/medhelm_editions.yaml)."""


@medhelm.command("diff")
@click.argument("source", required=False, type=click.Path(path_type=Path))
@click.option("--installed", is_flag=True,
              help="Read the `helm` package installed in this Python (medhelm or crfm-helm).")
@click.option("--edition", default=None, metavar="ID",
              help="The registry's edition to compare with (default: the newest).")
@root_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@output_option
@force_option
def diff(source, installed, edition, root, fmt, output, force):
    """Every difference between MedHELM's files in SOURCE and the registry's edition: benchmarks missing on either
    side, category and subcategory placement, main metric names and judges.

    SOURCE is a HELM or MedHELM source tree, an unpacked wheel or a .whl file (`pip download medhelm --no-deps`);
    --installed reads the installed package instead. Exit 0: no difference; 1: differences; 2: SOURCE unreadable.
    """
    from clinreg.medhelm import SourceError, medhelm_diff, open_source, read_medhelm
    from clinreg.reports.medhelm import render_text

    if installed and source is not None:
        raise fail("give SOURCE or --installed, not both")
    reg = load(root)
    if reg.editions is None:
        raise fail("this registry tree has no registry/medhelm_editions.yaml")
    chosen = reg.editions.get(edition) if edition else reg.editions.editions[-1]
    if chosen is None:
        raise fail(f"--edition {edition!r} is not an edition in registry/medhelm_editions.yaml "
                   f"(known: {', '.join(e.id for e in reg.editions.editions)})")
    try:
        view = read_medhelm(open_source(source, installed))
    except SourceError as exc:
        raise fail(str(exc), error=exc) from None
    data = medhelm_diff(reg, view, chosen)
    if fmt == "json":
        from clinreg.text import dumps

        text = dumps("medhelm_diff", data)
    else:
        text = render_text(data)
    emit(text, output, force=force)
    raise click.exceptions.Exit(EXIT_FINDINGS if data["differences"] else EXIT_OK)
