"""The root of every error clinreg raises for a user to see, carrying what the problem is about as data.

Every public exception class derives from `ClinregError`; a class that callers also catch as a builtin mixes the
builtin in (`class SiteError(ClinregError, ValueError)`), as HF `datasets` does with `DatasetsError`. This module
imports nothing from clinreg, so any layer may raise these.
"""

from __future__ import annotations

from typing import Any, ClassVar

KeyPath = tuple[Any, ...]  # keys and list indices into a YAML, JSON or CSV document, as pydantic's `loc`


class ClinregError(Exception):
    """A problem a user can meet: a one-line message for people, and the same facts as fields for programs.

    `code` is the catalogue code the problem is an instance of (`clinreg explain CODE`); a class gives its
    default in `default_code`. `file`, `line`, `column` and `key_path` say where, when the raise site knows.
    `exit_code` is what the CLI returns: 1 for findings, 2 for usage or unreadable input.
    """

    default_code: ClassVar[str | None] = None
    exit_code: ClassVar[int] = 2

    def __init__(self, message: str = "", *, code: str | None = None, file: str | None = None,
                 line: int | None = None, column: int | None = None, key_path: KeyPath | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code if code is not None else self.default_code
        self.file, self.line, self.column = file, line, column
        self.key_path = tuple(key_path) if key_path is not None else None

    def location(self) -> str | None:
        """Where the problem is, as `file:line:column` (only the parts known), or None when the file is not known."""
        if self.file is None:
            return None
        return ":".join(str(part) for part in (self.file, self.line, self.column) if part is not None)

    def to_dict(self) -> dict[str, Any]:
        """The error as data: what a `--format json` error carries beside its message and exit code."""
        return {"message": self.message, "code": self.code, "file": self.file, "line": self.line,
                "column": self.column, "key_path": list(self.key_path) if self.key_path is not None else None,
                "exit_code": self.exit_code}
