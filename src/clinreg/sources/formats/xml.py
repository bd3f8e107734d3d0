"""XML files: the elements a `rows` path names become rows, and each of `fields` reads text or an attribute
(parsed by defusedxml: no entity declarations, no external references)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow as pa
from defusedxml import ElementTree as SafeET

from clinreg.core.builderrors import RecordProblem, SourceUnavailable
from clinreg.core.model import TableSpec
from clinreg.sources.files import MAX_FILE_BYTES

_ATTRIBUTE = re.compile(r"^[A-Za-z_][\w.:-]*$")


def read_xml(path: Path, spec: TableSpec) -> pa.Table:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise SourceUnavailable(f"{path.name}: larger than {MAX_FILE_BYTES} bytes")
    # defusedxml refuses entity declarations and external references: no billion laughs, no file or network reads.
    root = SafeET.fromstring(path.read_bytes(), forbid_dtd=True)
    if not spec.rows:
        raise RecordProblem(f"{path.name}: `format: xml` needs `rows:` (the elements that become rows)")
    elements = []
    for rows_path in [spec.rows] if isinstance(spec.rows, str) else spec.rows:
        elements.extend([root] if rows_path in (".", "/") else root.findall(rows_path))
    fields = spec.fields or {"text": "."}
    rows = [{name: _xml_value(element, root, expr) for name, expr in fields.items()} for element in elements]
    return pa.table({name: pa.array([r[name] for r in rows], pa.string()) for name in fields})


def _xml_value(element: Any, root: Any, expr: str) -> str | None:
    if expr == "name()":
        return element.tag
    base = element
    if expr.startswith("/"):
        base, expr = root, expr.lstrip("/") or "."
    head, at, tail = expr.rpartition("@")
    # `a/b@attr` reads an attribute; an `@` inside a predicate (`Answer[@ReferenceRank='1']/AnswerText`) does not.
    path, attribute = (head, tail) if at and _ATTRIBUTE.match(tail) else (expr, "")
    path = path.rstrip("/") or "."
    target = base if path == "." else base.find(path)
    if target is None:
        return None
    if attribute:
        return target.get(attribute)
    return "".join(target.itertext())
