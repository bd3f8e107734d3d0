"""What every command module shares: exit codes, common options, one-line failures, loading and writing output.

Command modules import from here and from the library, never from each other.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from clinreg.errors import ClinregError
from clinreg.text import shown

# pydantic scans every installed distribution for plugins the first time a model is built. clinreg's
# models use no plugins, and the scan is a large share of a short command's start-up time. Set here, so
# that importing any command module (as the tests do) sets it too.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_INTERNAL = 70  # a bug in clinreg, not in the input (sysexits' EX_SOFTWARE)

root_option = click.option(
    "--root", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Registry tree to use (default: the working directory if it holds taxonomy/ and registry/, else the embedded "
         "registry).",
)
release_option = click.option("--release", default=None, metavar="X",
                              help="Show the registry as it stood at release X.")
medhelm_option = click.option(
    "--medhelm", "medhelm", default=None, metavar="EDITION",
    help="Only the benchmarks of this MedHELM edition (registry/medhelm_editions.yaml), e.g. medhelm-0.8.0; "
         "\"in MedHELM\" then means in it. Default: every record, marked by the file's default edition.",
)


data_dir_option = click.option(
    "--data-dir", type=click.Path(path_type=Path), default=None,
    help="Local mirror: one folder per source, named <owner>__<name> after its hub or GitHub repo.",
)
bad_label_option = click.option(
    "--on-bad-label", type=click.Choice(["error", "skip"]), default="error", show_default=True,
    help="A row whose label is outside the scheme stops the build (error) or is skipped and counted (skip).",
)


format_option = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
output_option = click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
                             help="Write to FILE instead of stdout.")
force_option = click.option("--force", is_flag=True, help="Overwrite an existing output file.")


def fail(message: str, code: int = EXIT_USAGE, *, error: ClinregError | None = None,
         diagnostics: list | None = None) -> "click.exceptions.Exit":
    """Print a one-line failure on stderr (one JSON line under `--format json`) and return the exit to raise.

    `error`: the clinreg error behind it, whose catalogue code, file, line, column and key path the JSON carries;
    `diagnostics`: every problem behind it, located, which the JSON carries too.
    """
    from clinreg.text import error_line, json_requested

    message = shown(message)  # paths and values in a message may hold control characters
    if json_requested():
        extra = {"diagnostics": [d.to_dict() for d in diagnostics]} if diagnostics is not None else None
        click.echo(error_line(message, code, error.to_dict() if error is not None else None, extra), err=True)
    else:
        click.echo(f"clinreg: error: {message}", err=True)
    return click.exceptions.Exit(code)


def show_error(err: ClinregError, fmt: str | None) -> "click.exceptions.Exit":
    """A clinreg error that reached the command line, on stderr in the command's `--format`: its one line as text,
    one JSON line with its code, file, line, column and key path, or a GitHub annotation; the exit to raise."""
    from clinreg.core import from_error, github_line
    from clinreg.text import error_line

    message = shown(str(err))
    if fmt == "json":
        line = error_line(message, err.exit_code, err.to_dict())
    elif fmt == "github":
        line = github_line(from_error(err))
    else:
        line = f"clinreg: error: {message}"
    click.echo(line, err=True)
    return click.exceptions.Exit(err.exit_code)


def load(root: Path | None, release: str | None = None, *, for_writing: bool = False, medhelm: str | None = None):
    """Load a registry, turning a bad root, release or MedHELM edition into a one-line usage error (exit 2).

    `for_writing`: the command writes into the tree, so the registry shipped inside the package is refused.
    `medhelm`: keep only that edition's benchmarks (`--medhelm EDITION`).
    """
    from clinreg.core import RootError, UnknownVersion, follow_edition, load_registry

    try:
        reg = load_registry(root, release=release)
        if medhelm is not None:
            follow_edition(reg, medhelm, only=True)
    except (RootError, UnknownVersion) as exc:
        raise fail(str(exc), error=exc) from None
    if for_writing:
        refuse_packaged(reg)
    freeze_registry()
    return reg


def access_tiers(access: str | None) -> list[str] | None:
    """An `--access` option as a list of tiers (None when not given), or a usage error (exit 2)."""
    if not access:
        return None
    from clinreg.core import ACCESS_TIERS as TIERS

    tiers = [a.strip() for a in access.split(",") if a.strip()]
    if not tiers or any(t not in TIERS for t in tiers):
        raise fail(f"--access {access}: expected a comma-separated list of {', '.join(TIERS)}")
    return tiers


def freeze_registry() -> None:
    """The loaded registry lives until the command ends: the collector need not scan it again until then.
    Unfrozen when the command's context closes, so an in-process caller (CliRunner) keeps nothing frozen."""
    import gc

    if gc.get_freeze_count() == 0:
        gc.freeze()
        click.get_current_context().call_on_close(gc.unfreeze)


def refuse_packaged(reg) -> None:
    """Stop (exit 2) before a command writes into the registry shipped inside an installed wheel."""
    if reg.root.resolve() == (Path(__file__).resolve().parents[1] / "_registry").resolve():
        raise fail("the registry shipped inside the installed package is read-only; run this in a checkout of a "
                   "registry tree, or pass --root DIR")


def parse_date(value: str | None):
    """A `--date` option as a date (None when not given), or a usage error (exit 2)."""
    if value is None:
        return None
    import datetime as dt
    import re

    # Checked before parsing (the form, then a day the month has), so that no ValueError needs catching here.
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) and _real_date(int(value[:4]), int(value[5:7]), int(value[8:])):
        return dt.date.fromisoformat(value)
    raise fail(f"--date {value!r} is not a date such as 2025-06-01")


def _real_date(year: int, month: int, day: int) -> bool:
    import calendar

    return 1 <= year and 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]


def refuse_load_errors(reg, what: str) -> None:
    """Stop (exit 1) with the located errors when files failed to load: a partial report would mislead."""
    errors = [d for d in reg.diagnostics if d.severity == "error"]
    if errors:
        from clinreg.core import Report, render_text
        from clinreg.text import json_requested

        if json_requested():  # stderr stays one JSON line: name the first error in it
            first = errors[0]
            raise fail(f"the registry has {len(errors)} error(s) that prevent {what}, first {first.file}:{first.line}: "
                       f"{first.code} {first.message}; run `clinreg validate`", EXIT_FINDINGS)
        click.echo(render_text(Report(errors, len(reg.files))), err=True)
        raise fail(f"the registry has errors that prevent {what}; run `clinreg validate`", EXIT_FINDINGS)


def emit(text: str, output: Path | None = None, force: bool = True) -> None:
    if output is None:
        click.echo(text)
        return
    from clinreg.text import RefusedOverwrite, atomic_write_text

    try:
        atomic_write_text(output, text if text.endswith("\n") else text + "\n", overwrite=force)
    except RefusedOverwrite as exc:
        raise fail(str(exc), error=exc) from None
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}") from None
    click.echo(f"wrote {output}", err=True)
