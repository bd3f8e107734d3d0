"""Build failures: one-line messages, each carrying the exit code the CLI should return and, where the raise site
knows them, what the failure is about as data (its code, record, split, row and place in the record's YAML).

Code that reacts to a failure reads those fields or the class, never the message: the message is for people.
"""

from __future__ import annotations

from typing import Any

from clinreg.errors import ClinregError, KeyPath

YamlPath = KeyPath  # keys and list indices into the record's YAML, as Diagnostic locations take them


class BuildError(ClinregError):
    """A build that cannot go on; the message is one line that names the dataset and, where known, the row.

    The optional fields say the same as data: `code` is the CLR code the failure is an instance of (the class's
    `default_code` unless the raise site names one, which the one line then shows at its end: `clinreg explain`
    tells the fix); `record`, `split` and `row` (counted from 0) where it happened; `key_path` (also `path`) the
    place in the record's YAML that a check should point at.
    """

    default_code = "CLR910"
    exit_code = 1

    def __init__(self, message: str, *, code: str | None = None, record: str | None = None, split: str | None = None,
                 row: int | None = None, path: YamlPath | None = None, **where: Any) -> None:
        super().__init__(message, code=code, key_path=path, **where)
        self.shown_code = code  # only a code the raise site names is part of the message; a class default is data
        self.record, self.split, self.row = record, split, row

    @property
    def path(self) -> YamlPath | None:
        """The place in the record's YAML: the key path, by the name the build code has always used."""
        return self.key_path

    def __str__(self) -> str:
        """The one line the CLI prints, the lock records and check-data quotes."""
        return f"{self.message} [{self.shown_code}]" if self.shown_code else self.message


class SourceUnavailable(BuildError):
    """The data cannot be read: no mirror folder, offline hub, gated or private data, unreadable files."""

    default_code = "CLR901"
    exit_code = 2


class SplitMissing(SourceUnavailable):
    """A split the record names is not in the mirror folder's data (CLR902); `reason` is the reader's own words."""

    default_code = "CLR902"

    def __init__(self, message: str, *, reason: str, **fields: Any) -> None:
        super().__init__(message, **fields)
        self.reason = reason


class JoinFailure(SourceUnavailable):
    """A read step's join does not fit the data: a repeated key its cardinality forbids, a row without a match
    (CLR908)."""

    default_code = "CLR908"
    step: int | None = None  # the join's position in the split's steps, from 0, once known


class RecordProblem(BuildError):
    """The record cannot drive a build: unknown mapping or split, a template that does not compile."""

    default_code = "CLR910"
    exit_code = 2


class ColumnMissing(RecordProblem):
    """A column the record reads (label, choices, filter, template, adapter) is not in the data (CLR903)."""

    default_code = "CLR903"


class TemplateDoesNotCompile(RecordProblem):
    """The input template or a filter is not one the sandbox compiles (CLR906)."""

    default_code = "CLR906"


class SlowPattern(RecordProblem):
    """An extract pattern that can take exponential time, or that ran past its time budget (CLR714)."""

    default_code = "CLR714"


class BadLabel(BuildError):
    """Rows whose gold label is outside the record's label scheme (with `--on-bad-label error`)."""

    default_code = "CLR904"
    exit_code = 1


class TemplateFailure(BuildError):
    """The input template failed on a row: undefined variable, sandbox violation, size or time cap."""

    default_code = "CLR906"
    exit_code = 1


class GoldLeak(BuildError):
    """An open-ended instance whose reference answer is in its own input (CLR907)."""

    default_code = "CLR907"
    exit_code = 1


def one_line(err: BaseException) -> str:
    """An error's text on one line, at most 300 characters (its type's name when it has no text), to quote in a
    build failure's message."""
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 300 else text[:297] + "..."
