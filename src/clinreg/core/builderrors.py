"""Build failures: one-line messages, each carrying the exit code the CLI should return and, where the raise site
knows them, what the failure is about as data (its code, record, split, row and place in the record's YAML).

Code that reacts to a failure reads those fields or the class, never the message: the message is for people.
"""

from __future__ import annotations

from typing import Any

YamlPath = tuple[Any, ...]  # keys and list indices into the record's YAML, as Diagnostic locations take them


class BuildError(Exception):
    """A build that cannot go on; the message is one line that names the dataset and, where known, the row.

    The optional fields say the same as data: `code` is the CLR code the failure is an instance of, which the
    one line names at its end (`clinreg explain` tells the fix); `record`, `split` and `row` (counted from 0)
    where it happened; `path` the place in the record's YAML that a check should point at.
    """

    exit_code = 1

    def __init__(self, message: str, *, code: str | None = None, record: str | None = None, split: str | None = None,
                 row: int | None = None, path: YamlPath | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code, self.record, self.split, self.row, self.path = code, record, split, row, path

    def __str__(self) -> str:
        """The one line the CLI prints, the lock records and check-data quotes."""
        return f"{self.message} [{self.code}]" if self.code else self.message


class SourceUnavailable(BuildError):
    """The data cannot be read: no mirror folder, offline hub, gated or private data, unreadable files."""

    exit_code = 2


class SplitMissing(SourceUnavailable):
    """A split the record names is not in the mirror folder's data (CLR902); `reason` is the reader's own words."""

    def __init__(self, message: str, *, reason: str, **fields: Any) -> None:
        super().__init__(message, **fields)
        self.reason = reason


class JoinFailure(SourceUnavailable):
    """A read step's join does not fit the data: a repeated key its cardinality forbids, a row without a match (CLR908)."""

    step: int | None = None  # the join's position in the split's steps, from 0, once known


class RecordProblem(BuildError):
    """The record cannot drive a build: unknown mapping or split, a template that does not compile."""

    exit_code = 2


class BadLabel(BuildError):
    """Rows whose gold label is outside the record's label scheme (with `--on-bad-label error`)."""

    exit_code = 1


class TemplateFailure(BuildError):
    """The input template failed on a row: undefined variable, sandbox violation, size or time cap."""

    exit_code = 1


class GoldLeak(BuildError):
    """An open-ended instance whose reference answer is in its own input (CLR907)."""

    exit_code = 1


def one_line(err: BaseException) -> str:
    """An error's text on one line, at most 300 characters (its type's name when it has no text), to quote in a
    build failure's message."""
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 300 else text[:297] + "..."
