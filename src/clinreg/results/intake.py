"""What a results command reads, and the strictness policy: every score that maps is kept and each refused source
or score becomes a warning, unless `strict` (or nothing at all could be read) makes any error stop the command."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from clinreg.core.diagnostics import Diagnostic, Report
from clinreg.core.store import Registry
from clinreg.results.score import ReportedWinRate, Score

EXIT_FINDINGS, EXIT_USAGE = 1, 2


@dataclass
class Intake:
    """The scores read from a command's sources, and what the strictness policy made of the findings.

    `stop`: the command stops with `report` (every located finding, as a validation report) and `exit_code` (2
    when a source could not be read, else 1), and writes nothing. Otherwise `report` holds the refused findings,
    demoted to their default severity with a hint that they were left out, and the warnings, to show beside."""

    scores: list[Score]
    reported: list[ReportedWinRate]
    report: Report
    stop: bool = False
    exit_code: int = 0
    refused: list[Diagnostic] = field(default_factory=list)
    stand_ins: list[dict[str, Any]] = field(default_factory=list)
    merged: list[dict[str, Any]] = field(default_factory=list)


def refused_hint(hint: str | None) -> str:
    left = "left out of the import (--strict stops instead)"
    return f"{hint}; {left}" if hint else left


def read_results(reg: Registry, sources: list[Path], exports: list[Path] | None = None,
                 aliases: dict[tuple[str, str], str] | None = None, strict: bool = False) -> Intake:
    """Read every source against `reg` and apply the strictness policy (see the module's docstring)."""
    from clinreg.core.codes import CODES
    from clinreg.results.importing import collect

    scores, reported, findings = collect(reg, list(sources), list(exports or []), aliases)
    if findings.errors and (strict or not scores):
        return Intake(scores, reported, Report(findings.diagnostics, len(sources)), stop=True,
                      exit_code=EXIT_USAGE if findings.unreadable else EXIT_FINDINGS)
    refused = [replace(d, severity=CODES[d.code].severity_in(strict=False), hint=refused_hint(d.hint))
               for d in findings.errors]
    return Intake(scores, reported, Report(refused + findings.warnings, len(sources)), refused=refused,
                  stand_ins=findings.stand_ins, merged=findings.merged)
