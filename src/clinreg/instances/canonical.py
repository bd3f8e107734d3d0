"""Canonical JSON: sorted keys, no whitespace, UTF-8; each instance one line. The lock file and the export
manifests hash these bytes, so any change here changes every instance hash."""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import hashlib
import json
from typing import Any, Iterable, Iterator

from clinreg.instances.batch import InstanceBatch


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


_quote = json.encoder.encode_basestring  # the C quoting json.dumps uses with ensure_ascii=False
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_json_default)


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 text: the form the lock file hashes."""
    return _CANONICAL.encode(value)


def _text(value: str | None) -> str:
    return "null" if value is None else _quote(value)


def _texts(values: list[str]) -> str:
    return "[" + ",".join(map(_quote, values)) + "]"


def _gold(gold: dict[str, Any]) -> str:
    index = gold["index"]
    return (
        f'{{"index":{"null" if index is None else index},"kind":{_quote(gold["kind"])},"letter":{_text(gold["letter"])},'
        f'"lower":{_text(gold["lower"])},"upper":{_text(gold["upper"])},"value":{_text(gold["value"])}}}'
    )


def canonical_lines(batches: Iterable[InstanceBatch]) -> Iterator[str]:
    """Each instance as `canonical_json(row) + "\\n"`, assembled field by field (keys already in sorted order).

    The per-batch constants are encoded once; this is the hot loop of every JSON-lines build and lock.
    """
    for batch in batches:
        stem = f"{batch.dataset}/{batch.mapping}/{batch.split}/"
        dataset, mapping = _quote(batch.dataset), _quote(batch.mapping)
        split, tasks = _quote(batch.split), _texts(batch.tasks)
        provenance = _CANONICAL.encode(batch.provenance)
        for variant, index, prompt, text, choices, gold, refs, context in zip(
            batch.variant, batch.source_index, batch.prompt, batch.input, batch.choices, batch.gold, batch.references,
            batch.context,
        ):
            instance_id = f"{stem}{index}" if variant is None else f"{stem}{index}/{variant}"
            yield (
                f'{{"answer":{_text(gold["letter"])},"choices":{_texts(choices)},'
                f'"context":{_CANONICAL.encode(context) if context else "{}"},"dataset":{dataset},"gold":{_gold(gold)},'
                f'"id":{_quote(instance_id)},"input":{_quote(text)},"mapping":{mapping},"prompt":{_quote(prompt)},'
                f'"provenance":{provenance},"references":{_texts(refs)},"source_index":{index},"split":{split},'
                f'"tasks":{tasks},"variant":{_text(variant)}}}\n'
            )


def hash_instances(batches: Iterable[InstanceBatch]) -> tuple[str, int]:
    """sha256 of the canonical JSON lines (each ending in a newline), and how many there were."""
    digest, count = hashlib.sha256(), 0
    for line in canonical_lines(batches):
        digest.update(line.encode("utf-8"))
        count += 1
    return digest.hexdigest(), count
