"""The tests' command runner: a crash is never hidden behind an exit code."""

from __future__ import annotations

import click
import pytest
from clirunner import CommandCrashed, clinreg, run


@click.command()
@click.argument("what")
def fails(what):
    if what == "bug":
        raise KeyError("a bug")
    if what == "usage":
        raise click.UsageError("bad usage")
    raise SystemExit(3)


def test_an_exception_fails_the_test_with_its_traceback_and_output():
    with pytest.raises(CommandCrashed) as crash:
        run(fails, "bug")
    assert "KeyError" in str(crash.value) and "Traceback" in str(crash.value) and "raise KeyError" in str(crash.value)


def test_an_expected_exception_and_clicks_exits_are_returned():
    assert isinstance(run(fails, "bug", raises=KeyError).exception, KeyError)
    assert run(fails, "usage").exit_code == 2
    assert run(fails, "exit").exit_code == 3
    assert clinreg("explain", "CLR001").exit_code == 0
