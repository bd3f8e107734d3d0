"""JSON documents: the records a `records` path names, as a table (a column whose values mix types is text)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.model import TableSpec
from clinreg.sources.files import read_text


def read_json(path: Path, spec: TableSpec) -> pa.Table:
    data = json.loads(read_text(path, spec.encoding))
    return from_rows(json_records(data, spec.records, spec.key_column, path.name))


def json_records(data: Any, records: str | None, key_column: str | None, name: str) -> list[dict[str, Any]]:
    """The records a `records` path names: dotted keys, with `*` for every value of an object (or item of a list).

    At each `*` the object's key goes into `key_column` (when given), and the plain fields of the parent
    objects are carried into each record that lacks them (HEAD-QA's exam name and year; PubMedQA's id).
    """
    parts = records.split(".") if records else []
    found: list[dict[str, Any]] = []

    def walk(node: Any, rest: list[str], inherited: dict[str, Any]) -> None:
        if not rest:
            items = node if isinstance(node, list) else None
            if items is None or not all(isinstance(r, dict) for r in items):
                if isinstance(node, dict) and parts and parts[-1] == "*":
                    items = [node]
                else:
                    where = f" at {records!r}" if records else ""
                    raise SourceUnavailable(f"{name}: expected a list of objects{where}; give `records:`")
            for item in items:
                found.append({**inherited, **item})
            return
        head, tail = rest[0], rest[1:]
        if head == "*":
            if isinstance(node, dict):
                entries = list(node.items())
            elif isinstance(node, list):
                entries = list(enumerate(node))
            else:
                raise SourceUnavailable(f"{name}: `*` in records {records!r} meets a {type(node).__name__}, not an "
                                        "object")
            for key, value in entries:
                carried = dict(inherited)
                if key_column:
                    carried[key_column] = key
                if isinstance(value, dict):
                    carried.update({k: v for k, v in value.items() if not isinstance(v, (dict, list))} if tail else {})
                walk(value, tail, carried)
            return
        if not isinstance(node, dict) or head not in node:
            raise SourceUnavailable(f"{name}: no {head!r} in the file (records path {records!r})")
        walk(node[head], tail, inherited)

    walk(data, parts, {})
    return found


def from_rows(rows: list[dict[str, Any]]) -> pa.Table:
    """Rows of Python values as a table; columns whose values mix types are kept as text."""
    names: dict[str, None] = {}
    for row in rows:
        for key in row:
            names.setdefault(str(key), None)
    columns = {}
    for name in names:
        values = [row.get(name) for row in rows]
        try:
            columns[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            columns[name] = pa.array([None if v is None else (v if isinstance(v, str) else json.dumps(v))
                                      for v in values], pa.string())
    return pa.table(columns) if columns else pa.table({})
