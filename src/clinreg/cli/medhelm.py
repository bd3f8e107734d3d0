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
@click.option("--env", "env", default=None, metavar="DIR",
              help="Read the `helm` package of this virtual environment (e.g. the venv HELM was installed in).")
@click.option("--python", "python", default=None, metavar="PATH",
              help="Read the `helm` package that this Python interpreter would import (e.g. ~/helm-venv/bin/python).")
@click.option("--installed", is_flag=True,
              help="Read the `helm` package installed in clinreg's own Python (rarely what you want under `uv run`).")
@click.option("--edition", default=None, metavar="ID",
              help="The registry's edition to compare with (default: the newest released one).")
@root_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@output_option
@force_option
def diff(source, env, python, installed, edition, root, fmt, output, force):
    """Every difference between MedHELM's files in SOURCE and the registry's edition: benchmarks missing on either
    side, category and subcategory placement, main metric names and judges.

    SOURCE is a HELM or MedHELM source tree, an unpacked wheel or a .whl file (`pip download medhelm --no-deps`);
    --env VENV (or --python VENV/bin/python) reads the `helm` package installed in HELM's own venv, asking that
    interpreter where it is without importing it; --installed reads clinreg's own Python's. Exit 0: no difference;
    1: differences; 2: SOURCE unreadable.
    """
    from clinreg.medhelm import SourceError, medhelm_diff, open_source, read_medhelm
    from clinreg.reports.medhelm import render_text

    if sum(x is not None and x is not False for x in (source, env, python, installed or None)) > 1:
        raise fail("give one of SOURCE, --env, --python or --installed")
    reg = load(root)
    if reg.editions is None:
        raise fail("this registry tree has no registry/medhelm_editions.yaml")
    chosen = reg.editions.get(edition) if edition else (reg.editions.newest_released or reg.editions.editions[-1])
    if chosen is None:
        raise fail(f"--edition {edition!r} is not an edition in registry/medhelm_editions.yaml "
                   f"(known: {', '.join(e.id for e in reg.editions.editions)})")
    try:
        if env is not None:
            from clinreg.medhelm import env_python

            python = env_python(env)
        view = read_medhelm(open_source(source, installed, python=python))
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
