"""What the commands that read data (build, check-data, lock, export) share: loading a registry for a build,
refusing records that cannot be built, the build extra's check, quiet data libraries, and the guard that turns
every failure of the build path into one located line."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import click

from clinreg.cli.common import EXIT_FINDINGS, EXIT_INTERNAL, fail, refuse_load_errors
from clinreg.errors import ClinregError

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
