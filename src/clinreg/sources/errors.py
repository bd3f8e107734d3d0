"""Build failures as one-line messages, each carrying the exit code the CLI should return."""

from __future__ import annotations


class BuildError(Exception):
    """A build that cannot go on; the message is one line that names the dataset and, where known, the row."""

    exit_code = 1


class SourceUnavailable(BuildError):
    """The data cannot be read: no mirror folder, offline hub, gated or private data, unreadable files."""

    exit_code = 2


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
