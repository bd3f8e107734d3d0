"""The `clinreg` command group: registers every command family's commands, and ends any output failure in one line."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from typing import NoReturn

import click

from clinreg import __version__
from clinreg.cli import build, contrib, export, jury, leaderboard, medhelm, reports, results, review, validate
from clinreg.cli.common import EXIT_USAGE, show_error
from clinreg.errors import ClinregError
from clinreg.text import shown


class ClinregGroup(click.Group):
    """The top-level group: the one guard at the command line's edge.

    A clinreg error (`ClinregError`) that a command lets through is shown in the command's `--format` (one text
    line, one JSON line with its code and location, or a GitHub annotation) and ends with its exit code. Anything
    else is a bug and ends as one, with a traceback. An output that cannot be written ends in one line and exit
    code 2.
    """

    def resolve_command(self, ctx: click.Context, args: list[str]):
        ctx.meta[_ARGS] = list(args)  # the command line after `clinreg`, to find the --format asked for on an error
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ClinregError as err:
            raise show_error(err, _asked_format(self, ctx, ctx.meta.get(_ARGS, []))) from None

    def main(self, *args, **kwargs):
        from clinreg.text import NotStrictJSON

        if sys.stdout is None:  # started with stdout closed (`>&-`): writing must fail loudly, not vanish
            sys.stdout = _ClosedStream()
        try:
            return super().main(*args, **kwargs)  # click itself ends quietly (exit 1) when the reader of a pipe left
        except OSError as exc:  # writing stdout failed (disk full, a closed descriptor), or an unexpected I/O error
            where = exc.filename if exc.filename else "standard output"
            _output_failed(f"{where}: {exc.strerror or exc}")
        except NotStrictJSON as exc:
            _output_failed(str(exc))


_ARGS = "clinreg.args"


def _asked_format(group: click.Group, ctx: click.Context, args: list[str]) -> str | None:
    """The `--format` of the command that ARGS invoke, read by parsing them again without running anything (the
    command's own context is closed by the time its error reaches the group)."""
    command: click.Command = group
    while isinstance(command, click.Group) and args:
        name, sub, rest = command.resolve_command(ctx, args)
        if sub is None:
            break
        ctx = click.Context(sub, info_name=name, parent=ctx, resilient_parsing=True)
        # The options parsed into ctx.params; for a group, every argument left (its command's name first)
        args, command = click.Command.parse_args(sub, ctx, list(rest)), sub
    return ctx.params.get("fmt")


class _ClosedStream(io.TextIOBase):
    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "it is closed")

    def isatty(self) -> bool:
        return False


def _output_failed(message: str) -> "NoReturn":
    # Whatever is still buffered for stdout can never be written: point stdout at /dev/null so that the
    # interpreter's own flush at exit does not print a second error.
    # A test runner's stdout has no file descriptor (AttributeError, io.UnsupportedOperation); a closed one raises
    # ValueError: the one line is still written where it can be.
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if sys.stdout is not None and sys.stdout.fileno() == 1:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.close(devnull)
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"clinreg: error: {shown(message)}\n")
        sys.stderr.flush()
    sys.exit(EXIT_USAGE)


@click.group(cls=ClinregGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="clinreg")
def main() -> None:
    """A registry of clinical evaluation tasks (MedHELM's taxonomy) and the datasets that measure them."""


for _command in (validate.validate, reports.coverage, validate.list_rules, validate.explain, contrib.schema,
                 build.build,
                 build.check_data, build.lock, export.export, review.review, reports.diff, contrib.new,
                 contrib.issue_form,
                 results.results, leaderboard.leaderboard, reports.site, medhelm.medhelm, jury.jury):
    main.add_command(_command)
main.add_command(__import__("clinreg.cli.show", fromlist=["show"]).show)
for _name in ("overlap", "contamination"):
    main.add_command(getattr(__import__("clinreg.cli.contamination", fromlist=[_name]), _name))
