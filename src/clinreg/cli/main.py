"""The `clinreg` command group: registers every command family's commands, and ends any output failure in one line."""

from __future__ import annotations

import errno
import io
import os
import sys
from typing import NoReturn

import click

from clinreg import __version__
from clinreg.cli import build, contrib, export, jury, leaderboard, medhelm, reports, results, review, validate
from clinreg.cli.common import EXIT_USAGE
from clinreg.text.output import shown


class ClinregGroup(click.Group):
    """The top-level group: an output that cannot be written ends in one line and exit code 2, never a traceback."""

    def main(self, *args, **kwargs):
        from clinreg.text.output import NotStrictJSON

        if sys.stdout is None:  # started with stdout closed (`>&-`): writing must fail loudly, not vanish
            sys.stdout = _ClosedStream()
        try:
            return super().main(*args, **kwargs)  # click itself ends quietly (exit 1) when the reader of a pipe left
        except OSError as exc:  # writing stdout failed (disk full, a closed descriptor), or an unexpected I/O error
            where = exc.filename if exc.filename else "standard output"
            _output_failed(f"{where}: {exc.strerror or exc}")
        except NotStrictJSON as exc:
            _output_failed(str(exc))


class _ClosedStream(io.TextIOBase):
    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "it is closed")

    def isatty(self) -> bool:
        return False


def _output_failed(message: str) -> "NoReturn":
    # Whatever is still buffered for stdout can never be written: point stdout at /dev/null so that the
    # interpreter's own flush at exit does not print a second error.
    try:
        if sys.stdout is not None and sys.stdout.fileno() == 1:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.close(devnull)
    except (OSError, ValueError, AttributeError):  # a test runner's stdout has no file descriptor
        pass
    try:
        sys.stderr.write(f"clinreg: error: {shown(message)}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    sys.exit(EXIT_USAGE)


@click.group(cls=ClinregGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="clinreg")
def main() -> None:
    """A registry of clinical evaluation tasks (MedHELM's taxonomy) and the datasets that measure them."""


for _command in (validate.validate, reports.coverage, validate.list_rules, validate.explain, contrib.schema, build.build,
                 build.check_data, build.lock, export.export, review.review, reports.diff, contrib.new, contrib.issue_form,
                 results.results, leaderboard.leaderboard, reports.site, medhelm.medhelm, jury.jury):
    main.add_command(_command)
