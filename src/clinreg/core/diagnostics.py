"""Diagnostics as plain data, and their renderers: compiler-style text, JSON and GitHub workflow annotations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from clinreg.core.codes import CODES, Severity
from clinreg.errors import ClinregError
from clinreg.text.output import defuse, printable, to_json

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True, order=False)
class Diagnostic:
    code: str
    severity: Severity
    file: str
    line: int
    column: int
    message: str
    hint: str | None = None
    # Keys and list indices into the file's document (as pydantic's `loc`): where a program finds the field, so that
    # no code reads a field name out of the message. In JSON only, when known; text and GitHub output omit it.
    key_path: tuple | None = None

    def __post_init__(self) -> None:
        if self.key_path is not None and not isinstance(self.key_path, tuple):  # a list, read back from JSON
            object.__setattr__(self, "key_path", tuple(self.key_path))

    def sort_key(self) -> tuple:
        return (self.file, self.line, self.column, SEVERITY_ORDER[self.severity], self.code, self.message)

    def to_dict(self) -> dict:
        # What dataclasses.asdict gives, without its deep copy (the fields are all immutable scalars): 25x faster.
        data = {"code": self.code, "severity": self.severity, "file": self.file, "line": self.line,
                "column": self.column, "message": self.message, "hint": self.hint}
        if self.key_path is not None:
            data["key_path"] = list(self.key_path)
        return data


def make(code: str, file: str, line: int, column: int, message: str, hint: str | None = None,
         severity: Severity | None = None, key_path: tuple | None = None) -> Diagnostic:
    """A diagnostic for `code` (its default severity from the catalogue), with every text made printable."""
    sev = severity or CODES[code].severity
    return Diagnostic(code, sev, printable(file, 1000), max(int(line), 1), max(int(column), 1), printable(message),
                      printable(hint) if hint is not None else None, tuple(key_path) if key_path is not None else None)


def from_error(err: ClinregError, severity: Severity = "error") -> Diagnostic:
    """A raised clinreg error as a diagnostic, so that the diagnostics' renderers show it (its one line as the
    message); a problem with no file has an empty one, which the GitHub renderer leaves out."""
    return make(err.code or "error", err.file or "", err.line or 1, err.column or 1, str(err), severity=severity,
                key_path=err.key_path)


@dataclass
class Summary:
    errors: int = 0
    warnings: int = 0
    infos: int = 0
    files: int = 0

    @classmethod
    def of(cls, diagnostics: Iterable[Diagnostic], files: int) -> "Summary":
        s = cls(files=files)
        for d in diagnostics:
            if d.severity == "error":
                s.errors += 1
            elif d.severity == "warning":
                s.warnings += 1
            else:
                s.infos += 1
        return s


@dataclass
class Report:
    """The outcome of a validation run: every diagnostic, sorted by location."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0

    @property
    def summary(self) -> Summary:
        return Summary.of(self.diagnostics, self.files)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def sorted(self) -> list[Diagnostic]:
        return sorted(set(self.diagnostics), key=Diagnostic.sort_key)


def render_text(report: Report, show_info: bool = False) -> str:
    lines = []
    infos_hidden = 0
    for d in report.sorted():
        if d.severity == "info" and not show_info:
            infos_hidden += 1
            continue
        lines.append(f"{d.file}:{d.line}:{d.column}: {d.code} [{d.severity}] {d.message}")
        if d.hint:
            lines.append(f"    hint: {d.hint}")
    s = report.summary
    tail = f"{s.errors} error(s), {s.warnings} warning(s), {s.infos} info(s) in {s.files} file(s)"
    if infos_hidden:
        tail += f" ({infos_hidden} info(s) hidden; use --show-info)"
    lines.append(tail)
    return defuse("\n".join(lines))


def render_json(report: Report) -> str:
    s = report.summary
    payload = {
        "diagnostics": [d.to_dict() for d in report.sorted()],
        "summary": {"errors": s.errors, "warnings": s.warnings, "infos": s.infos, "files": s.files},
    }
    return to_json(payload)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(d: Diagnostic) -> str:
    """One diagnostic as a GitHub workflow command; one without a file (a command-line problem) has no location."""
    kinds = {"error": "error", "warning": "warning", "info": "notice"}
    message = d.message + (f" (hint: {d.hint})" if d.hint else "")
    where = f"file={_escape_property(d.file)},line={d.line},col={d.column}," if d.file else ""
    return f"::{kinds[d.severity]} {where}title={_escape_property(d.code)}::{_escape_data(d.code + ' ' + message)}"


def render_github(report: Report) -> str:
    """GitHub workflow commands, so that each problem shows on its line of the pull request."""
    lines = [github_line(d) for d in report.sorted()]
    s = report.summary
    lines.append(f"{s.errors} error(s), {s.warnings} warning(s), {s.infos} info(s) in {s.files} file(s)")
    return "\n".join(lines)


RENDERERS = {"text": render_text, "json": render_json, "github": render_github}
