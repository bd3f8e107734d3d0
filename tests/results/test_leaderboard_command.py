"""`clinreg leaderboard` is a click group: `leaderboard SOURCES...` ranks as a plain command would, and
`leaderboard diff OLD NEW` is a registered subcommand with its own help."""

from __future__ import annotations

import json

import click

from clinreg.cli.main import main
from results.helpers import BOARD, ROOT, invoke, write


def test_diff_is_a_registered_subcommand():
    group = main.commands["leaderboard"]
    assert isinstance(group, click.Group) and list(group.commands) == ["diff"]
    with click.Context(group) as ctx:
        assert group.get_command(ctx, "diff").name == "diff"


def test_diff_help_is_the_subcommands_own():
    result = invoke("leaderboard", "diff", "--help")
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: main leaderboard diff [OPTIONS] OLD NEW\n")  # CliRunner names it main
    assert "Why each model's mean win rate changed from OLD to NEW" in result.stdout
    assert "--comparable-only" not in result.stdout and "--with" not in result.stdout


def test_the_groups_help_keeps_its_usage_and_names_diff():
    result = invoke("leaderboard", "--help")
    assert result.stdout.startswith("Usage: main leaderboard [OPTIONS] SOURCES...\n")
    assert "--comparable-only" in result.stdout and "\nCommands:\n  diff " in result.stdout


def test_a_missing_argument_is_named_by_the_command_that_needs_it():
    for args, usage, missing in ((["leaderboard"], "main leaderboard [OPTIONS] SOURCES...", "SOURCES..."),
                                 (["leaderboard", "diff", "a"], "main leaderboard diff [OPTIONS] OLD NEW", "NEW")):
        result = invoke(*args)
        assert result.exit_code == 2 and f"Usage: {usage}\n" in result.stderr
        assert f"Missing argument '{missing}'" in result.stderr


def test_sources_rank_with_options_before_and_after_them(tmp_path):
    board = write(tmp_path / "board.csv", BOARD)
    before = invoke("leaderboard", "--root", ROOT, "--format", "json", board)
    after = invoke("leaderboard", board, "--format", "json", "--root", ROOT)
    assert before.exit_code == after.exit_code == 0, before.output + after.output
    assert json.loads(before.stdout)["data"]["rows"] == json.loads(after.stdout)["data"]["rows"]
    assert [r["model"] for r in json.loads(before.stdout)["data"]["rows"]] == ["A", "B", "C", "D"]


def test_a_results_file_named_diff_is_ranked_when_given_as_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    board = write(tmp_path / "board.csv", BOARD)
    (tmp_path / "diff").mkdir()  # a folder of results files, as `results import -o` writes them
    assert invoke("results", "import", "--root", ROOT, board, "-o", tmp_path / "diff" / "results.json").exit_code == 0
    ranked = invoke("leaderboard", "--root", ROOT, "./diff", "--format", "json")
    assert ranked.exit_code == 0 and len(json.loads(ranked.stdout)["data"]["rows"]) == 4
    as_subcommand = invoke("leaderboard", "diff", "--root", ROOT)
    assert as_subcommand.exit_code == 2 and "Missing argument 'OLD'" in as_subcommand.stderr
