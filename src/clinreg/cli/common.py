"""What every command module shares: exit codes, common options, one-line failures, loading and writing output.

Command modules import from here and from the library, never from each other.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

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


def load_for_data(root: Path | None, release: str | None = None):
    """Load a registry for a command that reads data (build, check-data, lock, export): a bad root, a bad
    release or an unreadable tree is a one-line usage error (exit 2); nothing is frozen, the data stack runs next."""
    from clinreg.core import RootError, UnknownVersion, load_registry

    try:
        reg = load_registry(root, release=release)
    except (RootError, UnknownVersion) as exc:
        raise fail(str(exc), error=exc) from None
    except OSError as exc:
        raise fail(str(exc)) from None
    refuse_unsafe_records(reg)
    return reg


def refuse_unsafe_records(reg) -> None:
    """A command that reads data writes ids into files, code and paths: it stops (exit 1) on any file that failed
    the schema (ids carry a pattern there) or the identity rules (CLR2xx), whether or not validate ran."""
    from clinreg.rules import identity_problems

    reg.diagnostics.extend(identity_problems(reg))
    refuse_load_errors(reg, "reading data")


def refuse_record_errors(reg, dataset_id: str) -> None:
    """Stop (exit 1) with the located errors when `validate` refuses the record: build what validate accepts."""
    from clinreg.rules import record_errors

    errors = record_errors(reg, dataset_id)
    if not errors:
        return
    from clinreg.core import Report, render_text
    from clinreg.text import json_requested

    first = errors[0]
    if json_requested():
        raise fail(f"{dataset_id}: the record has {len(errors)} error(s), first {first.file}:{first.line}: "
                   f"{first.code} "
                   f"{first.message}; `clinreg validate` lists them", EXIT_FINDINGS)
    click.echo(render_text(Report(errors, len(reg.files))), err=True)
    raise fail(f"{dataset_id}: the record has {len(errors)} error(s) that `clinreg validate` refuses; fix them before "
               "building", EXIT_FINDINGS)


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


def need_build_extra(command: str) -> None:
    """Reading data needs datasets and pyarrow, which only the `build` extra installs: say so in one line."""
    import importlib.util

    missing = [name for name in ("datasets", "pyarrow") if importlib.util.find_spec(name) is None]
    if missing:
        raise fail(f"`clinreg {command}` reads data and needs the build extra ({' and '.join(missing)} not installed): "
                   "pip install 'clinreg[build]'")


@contextmanager
def guard(what: str) -> Iterator[None]:
    """Turn every failure of the build path into one located line on stderr. A clinreg error that is not a build
    failure goes on to the command line's guard; anything else is a bug in clinreg (a library's exception that a
    reader let through): an internal error, exit code 70, with the traceback under CLINREG_DEBUG=1."""
    from clinreg.core import BuildError

    try:
        yield
    except click.exceptions.Exit:
        raise
    except BuildError as err:
        raise fail(str(err), err.exit_code, error=err) from None
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, with the exit code of a process killed by SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise click.exceptions.Exit(141) from None
    except OSError as err:
        raise fail(f"{what}: {err.strerror or err}{f': {err.filename}' if err.filename else ''}",
                   error=err if isinstance(err, ClinregError) else None) from None
    except ClinregError:
        raise
    except Exception as err:
        if os.environ.get("CLINREG_DEBUG"):
            raise
        raise fail(f"internal error: {what}: unexpected {type(err).__name__}: {' '.join(str(err).split())[:300]} "
                   "(set CLINREG_DEBUG=1 for the traceback)", EXIT_INTERNAL) from None


def quiet_datasets(downloads: bool = False) -> None:
    """No `datasets` progress bars or log lines; huggingface_hub's download bars only where `downloads` asks.

    The download bars are the one sign of progress while a large hub dataset arrives, so `clinreg build` keeps
    them unless `-q` is given; commands with machine-read output hide them. A build from a local mirror never
    imports `datasets` (1 s or more), so neither does this: the libraries read these settings from the
    environment when they are first imported, and are told directly only if they already are. A progress-bar
    setting the user made in the environment wins, as it does in the libraries' own calls.
    """
    os.environ["DATASETS_VERBOSITY"] = "error"
    os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    if not downloads:
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    if "datasets" in sys.modules:
        import datasets

        datasets.disable_progress_bars()
        datasets.logging.set_verbosity_error()
    if not downloads and "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
