"""The README's results example: its input is the hand-checked board, and its shown output is what runs."""

from __future__ import annotations

import json
from pathlib import Path

from results.helpers import BOARD, invoke

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "docs" / "examples"


def test_the_example_csv_is_the_hand_checked_board():
    assert (EXAMPLES / "leaderboard.csv").read_text(encoding="utf-8") == BOARD


def test_the_example_results_file_is_what_import_writes(monkeypatch):
    monkeypatch.chdir(REPO)
    result = invoke("results", "import", "docs/examples/leaderboard.csv")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == json.loads((EXAMPLES / "results.json").read_text(encoding="utf-8"))


def test_the_readme_shows_the_commands_real_output(monkeypatch):
    monkeypatch.chdir(REPO)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = "$ clinreg leaderboard docs/examples/results.json\n"
    shown = readme.split(command, 1)[1].split("\n```", 1)[0]
    result = invoke("leaderboard", "docs/examples/results.json")
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip("\n") == shown


def test_the_readme_shows_the_real_diff_of_the_two_releases():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = "$ clinreg leaderboard diff medhelm-2025-05-04 medhelm-2025-07-31\n"
    shown = readme.split(command, 1)[1].split("\n```", 1)[0]
    result = invoke("leaderboard", "diff", "medhelm-2025-05-04", "medhelm-2025-07-31")
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip("\n") == shown
