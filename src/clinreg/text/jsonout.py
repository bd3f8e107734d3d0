"""The one shape of every `--format json` answer, `{"clinreg": VERSION, "kind": KIND, "data": ...}`, and of its
errors; and the reading of the JSON files clinreg generates (the lock, the overlap figures)."""

from __future__ import annotations

import json
from pathlib import Path
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


def read_json_object(path: Path, what: str, key: str, error: type[Exception],
                     limit: int = 64 * 1024 * 1024) -> dict[str, Any]:
    """A generated JSON file (the lock, the overlap figures) holding an object under `key`; else `error`, whose
    message says it is not a readable, or not a clinreg, `what`. Only a regular file of at most `limit` bytes is
    read (a FIFO or a device is refused before it is read)."""
    from clinreg.text.safeio import read_regular_file

    try:
        data = json.loads(read_regular_file(path, limit).decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise error(f"{path}: not a readable {what} ({' '.join(str(err).split())})") from None
    if not isinstance(data, dict) or not isinstance(data.get(key), dict):
        raise error(f"{path}: not a clinreg {what} (no `{key}` object)")
    return data
