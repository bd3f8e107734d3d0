"""The strictness policy of the results commands, as a library call: keep what maps and demote what is refused, or
stop on any error when asked to (or when nothing could be read)."""

from __future__ import annotations

import pytest

from clinreg.core.store import load_registry
from clinreg.results.intake import read_results, refused_hint
from results.helpers import BOARD, ROOT, write

BAD_ROW = BOARD + "E,1.7,0.2,3.0\n"  # MedQA 1.7 is outside the metric's range [0, 1]: CLR966


@pytest.fixture(scope="module")
def reg():
    return load_registry(ROOT)


def test_a_refused_score_is_left_out_as_a_warning_that_says_so(tmp_path, reg):
    intake = read_results(reg, [write(tmp_path / "board.csv", BAD_ROW)])
    assert not intake.stop and intake.exit_code == 0
    assert [d.code for d in intake.refused] == ["CLR966"]
    refused = intake.refused[0]
    assert refused.severity == "warning" and refused.hint.endswith("left out of the import (--strict stops instead)")
    assert refused in intake.report.diagnostics
    assert {s.model for s in intake.scores} == set("ABCDE")  # E keeps its two scores that map


def test_strict_stops_on_any_error_with_every_finding(tmp_path, reg):
    intake = read_results(reg, [write(tmp_path / "board.csv", BAD_ROW)], strict=True)
    assert intake.stop and intake.exit_code == 1
    assert [(d.code, d.severity) for d in intake.report.diagnostics] == [("CLR966", "error")]
    assert intake.refused == []


def test_nothing_readable_stops_even_without_strict_and_is_a_usage_error(tmp_path, reg):
    intake = read_results(reg, [tmp_path / "missing.json"])
    assert intake.stop and intake.exit_code == 2 and intake.scores == []
    assert [d.code for d in intake.report.diagnostics] == ["CLR961"]


def test_a_clean_source_reports_nothing(tmp_path, reg):
    intake = read_results(reg, [write(tmp_path / "board.csv", BOARD)], strict=True)
    assert not intake.stop and intake.report.diagnostics == [] and len(intake.scores) == 11


@pytest.mark.parametrize("hint, want", [(None, "left out of the import (--strict stops instead)"),
                                        ("check it", "check it; left out of the import (--strict stops instead)")])
def test_the_refused_hint(hint, want):
    assert refused_hint(hint) == want
