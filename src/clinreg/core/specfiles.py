"""The files a read step's table names, whichever of its three forms `files` takes."""

from __future__ import annotations


def file_patterns(files: str | list[str] | dict[str, str]) -> list[str]:
    """A table spec's `files` as a list of patterns: one pattern, a list of them, or (for `format: lines`) a
    mapping of column to file, whose files are its values."""
    if isinstance(files, list):
        return list(files)
    if isinstance(files, dict):
        return list(files.values())
    return [files]
