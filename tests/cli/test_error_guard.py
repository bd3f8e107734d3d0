"""The one guard at the command line's edge: a clinreg error is shown in the command's --format (a text line,
one JSON line with its code and location, a GitHub annotation) with its exit code; anything else is a bug and
surfaces as one, never as a usage error (exit 2)."""

from __future__ import annotations

import json

import click
import pytest
from clirunner import run as _run, invoke

from clinreg.cli.main import ClinregGroup, main
from clinreg.errors import ClinregError


class Refused(ClinregError):
    default_code = "CLR985"


def _group(raised: BaseException) -> click.Group:
    """A group shaped like clinreg's: a command and a subgroup's command, each with --format, raising RAISED."""
    group = ClinregGroup("clinreg")

    @group.command("fails")
    @click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text")
    def fails(fmt):
        raise raised

    @group.group("sub")
    def sub():
        pass

    @sub.command("fails")
    @click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text")
    @click.argument("name", required=False)
    def sub_fails(fmt, name):
        raise raised

    return group


ERROR = Refused("aliases.yaml: not a table of aliases", file="aliases.yaml", line=3, column=7,
                key_path=("aliases", 0, "model"))


@pytest.mark.parametrize("where", [("fails",), ("sub", "fails", "x")])
def test_text_is_the_one_line_it_always_was(where):
    result = _run(_group(ERROR), *where)
    assert (result.exit_code, result.stderr) == (2, "clinreg: error: aliases.yaml: not a table of aliases\n")
    assert result.stdout == ""


@pytest.mark.parametrize("where", [("fails",), ("sub", "fails", "x"), ("sub", "fails")])
def test_json_carries_the_code_file_line_column_and_key_path(where):
    result = _run(_group(ERROR), *where, "--format", "json")
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    payload = json.loads(line)
    assert payload["kind"] == "error"
    assert payload["data"] == {"message": "aliases.yaml: not a table of aliases", "exit_code": 2, "code": "CLR985",
                               "file": "aliases.yaml", "line": 3, "column": 7, "key_path": ["aliases", 0, "model"]}


def test_github_is_an_annotation_at_the_place():
    result = _run(_group(ERROR), "fails", "--format=github")
    assert result.exit_code == 2
    assert result.stderr == ("::error file=aliases.yaml,line=3,col=7,title=CLR985::CLR985 aliases.yaml: not a table "
                             "of aliases\n")
    unplaced = _run(_group(Refused("no such thing")), "fails", "--format", "github")
    assert unplaced.stderr == "::error title=CLR985::CLR985 no such thing\n"


def test_an_error_keeps_its_own_exit_code():
    class Finding(ClinregError):
        default_code = "CLR907"
        exit_code = 1

    result = _run(_group(Finding("leak")), "fails", "--format", "json")
    assert result.exit_code == 1 and json.loads(result.stderr)["data"]["exit_code"] == 1


def test_an_unexpected_value_error_is_a_bug_not_a_usage_error():
    result = _run(_group(ValueError("a bug")), "fails", "--format", "json", raises=ValueError)
    assert result.exit_code != 2 and isinstance(result.exception, ValueError)
    assert "clinreg: error" not in result.output


def test_a_bug_inside_a_real_command_shows_as_a_bug(monkeypatch):
    # `load` once caught every ValueError around loading the registry and printed it as a usage error (exit 2)
    import clinreg.core.store

    def broken(*args, **kwargs):
        raise ValueError("a bug in following an edition")

    monkeypatch.setattr(clinreg.core.store, "follow_edition", broken)
    result = invoke(main, ["coverage", "--medhelm", "medhelm-0.8.0", "--format", "json"], raises=ValueError)
    assert result.exit_code != 2 and isinstance(result.exception, ValueError), result.output


def test_a_real_clinreg_error_carries_its_code_in_json():
    result = invoke(main, ["coverage", "--release", "9.9.9", "--format", "json"])
    assert result.exit_code == 2
    data = json.loads(result.stderr)["data"]
    assert data["code"] == "CLR982" and "9.9.9" in data["message"] and data["file"] is None
    result = invoke(main, ["validate", "--root", "/nonexistent/registry", "--format", "github"])
    assert result.exit_code == 2 and "/nonexistent/registry" in result.stderr


def test_no_command_catches_a_bare_value_error():
    import ast
    from pathlib import Path

    import clinreg.cli

    def names(node):
        if isinstance(node, ast.Tuple):
            return [n for elt in node.elts for n in names(elt)]
        return [node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")]

    found = []
    for path in sorted(Path(clinreg.cli.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ExceptHandler) and node.type is not None and "ValueError" in names(node.type):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []


def test_a_library_exception_in_the_build_path_is_an_internal_error(monkeypatch):
    from clinreg.cli.common import EXIT_INTERNAL
    from clinreg.cli.common_build import guard

    group = ClinregGroup("clinreg")

    @group.command("build")
    def build():
        with guard("build x"):
            raise KeyError("column")

    monkeypatch.delenv("CLINREG_DEBUG", raising=False)
    result = invoke(group, ["build"])
    assert result.exit_code == EXIT_INTERNAL == 70
    assert result.stderr.startswith("clinreg: error: internal error: build x: unexpected KeyError")
