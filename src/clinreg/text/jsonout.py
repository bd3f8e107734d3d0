"""The one shape of every `--format json` answer, `{"clinreg": VERSION, "kind": KIND, "data": ...}`, and of its
errors."""

from __future__ import annotations

import json
from typing import Any

import click

from clinreg import __version__
from clinreg.text.output import to_json


def envelope(kind: str, data: Any) -> dict[str, Any]:
    return {"clinreg": __version__, "kind": kind, "data": data}


def dumps(kind: str, data: Any) -> str:
    """`data` inside the envelope, indented for people and parseable by programs: strict JSON (no NaN or
    Infinity) with non-printable characters escaped (`clinreg.text.output.to_json`)."""
    return to_json(envelope(kind, data))


def wrap(kind: str, text: str) -> str:
    """A JSON document rendered elsewhere (e.g. the diagnostics renderer), put inside the envelope."""
    return dumps(kind, json.loads(text))


ERROR_FIELDS = ("code", "file", "line", "column", "key_path")  # where the error is, and what, when it is known


def error_line(message: str, exit_code: int, where: dict[str, Any] | None = None,
               extra: dict[str, Any] | None = None) -> str:
    """An error as one line of JSON: kind `error`, with the message, the exit code, and the catalogue code, file,
    line, column and key path (null where unknown), so that a program never parses them out of the message;
    `extra` adds fields (e.g. every located problem behind the error)."""
    data = {"message": message, "exit_code": exit_code, **{k: (where or {}).get(k) for k in ERROR_FIELDS},
            **(extra or {})}
    return to_json(envelope("error", data), indent=None)


def json_requested() -> bool:
    """True inside a command invoked with `--format json` (click has parsed the options by then)."""
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.params.get("fmt") == "json":
            return True
        ctx = ctx.parent
    return False
