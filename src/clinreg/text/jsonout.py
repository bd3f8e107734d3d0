"""The one shape of every `--format json` answer, `{"clinreg": VERSION, "kind": KIND, "data": ...}`, and of its errors."""

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


def error_line(message: str, exit_code: int) -> str:
    """An error as one line of JSON: kind `error`, with the message and the exit code."""
    return to_json(envelope("error", {"message": message, "exit_code": exit_code}), indent=None)


def json_requested() -> bool:
    """True inside a command invoked with `--format json` (click has parsed the options by then)."""
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.params.get("fmt") == "json":
            return True
        ctx = ctx.parent
    return False
