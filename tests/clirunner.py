"""The one way tests run a clinreg command in-process: click's CliRunner, never hiding a traceback.

CliRunner catches every exception a command raises and keeps it on the result, so a test that only looks at the
exit code or the output can pass while the command crashed. `invoke` re-raises any exception other than click's
own exit (SystemExit), with the command's output and the full traceback, unless the test names the exception
it expects with `raises=`.
"""

from __future__ import annotations

import shlex
import traceback
from collections.abc import Iterable, Mapping

import click
from click.testing import CliRunner, Result


class CommandCrashed(AssertionError):
    """A command run by a test raised an exception that was not click's exit."""


def invoke(command: click.Command, args: Iterable[object] = (), *, input: str | bytes | None = None,
           env: Mapping[str, str | None] | None = None, raises: type[BaseException] | tuple | None = None,
           **kwargs) -> Result:
    """Run `command` with `args` (each turned into a string) and return click's Result.

    Any exception the command raised, other than SystemExit and the `raises` the test expects, fails the test
    with the output and the traceback."""
    argv = [str(a) for a in args]
    result = CliRunner().invoke(command, argv, input=input, env=env, catch_exceptions=True, **kwargs)
    exc = result.exception
    if exc is None or isinstance(exc, SystemExit) or (raises is not None and isinstance(exc, raises)):
        return result
    trace = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else repr(exc)
    raise CommandCrashed(f"`{command.name} {shlex.join(argv)}` raised {type(exc).__name__}: {exc}\n"
                         f"--- output ---\n{result.output}--- traceback ---\n{trace}") from exc


def run(command: click.Command, *args: object, input: str | bytes | None = None,
        env: Mapping[str, str | None] | None = None, raises: type[BaseException] | tuple | None = None) -> Result:
    """Run one click command (a group such as `main`, or a single command such as `build`) with ARGS."""
    return invoke(command, args, input=input, env=env, raises=raises)


def clinreg(*args: object, input: str | bytes | None = None, env: Mapping[str, str | None] | None = None,
            raises: type[BaseException] | tuple | None = None) -> Result:
    """Run `clinreg ARGS...` (the main group) through `invoke`."""
    from clinreg.cli.main import main

    return invoke(main, args, input=input, env=env, raises=raises)
