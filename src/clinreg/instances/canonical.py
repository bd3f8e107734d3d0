"""Canonical JSON: sorted keys, no whitespace, UTF-8; each instance one line. The lock file and the export
manifests hash these bytes, so any change here changes every instance hash.

A batch is written at once, column by column. Two writers give the same bytes: orjson's (the `build` extra
brings it) for every field whose type it writes exactly as `json.dumps` does (text, lists of text, `null`, the
integer indices, the fixed gold object), with each instance's `context` encoded by `json`'s C encoder and handed
over as an `orjson.Fragment`, since context values may be floats, dates or large integers; and the standard
library's, used without orjson and for any instance orjson refuses (an integer past 64 bits, a lone surrogate).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import hashlib
import json
from json.encoder import c_make_encoder  # type: ignore[attr-defined]
from typing import Any, Callable, Iterable, Iterator

from clinreg.instances.batch import InstanceBatch

try:  # the fast writer: optional, and only a version with Fragment (3.9) will do
    import orjson
except ImportError:  # pragma: no cover - the build extra installs it
    orjson = None  # type: ignore[assignment]
if orjson is not None and not hasattr(orjson, "Fragment"):  # pragma: no cover
    orjson = None  # type: ignore[assignment]


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
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False,
                              default=_json_default)


def _c_encoder() -> Callable[[Any], str] | None:
    """`_CANONICAL.encode` for a dict, without its per-call set-up: the same C encoder, made once.

    It keeps no table of the containers it is inside (a shared one would be left dirty by a failed call): a
    context is built from a row's values and cannot contain itself; one that did would raise RecursionError.
    """
    if c_make_encoder is None:  # pragma: no cover - CPython always has the C accelerator
        return None
    make = c_make_encoder(None, _json_default, _quote, None, ":", ",", True, False, False)
    return lambda value: "".join(make(value, 0))


_encode_object = _c_encoder() or _CANONICAL.encode


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 text: the form the lock file hashes."""
    return _CANONICAL.encode(value)


def _texts(values: list[str]) -> str:
    return "[" + ",".join(map(_quote, values)) + "]" if values else "[]"


def _text_lines(batch: InstanceBatch) -> list[str]:
    """The batch's lines with the standard library's encoder: each column quoted in one pass, each line one format."""
    q = _quote
    stem = q(f"{batch.dataset}/{batch.mapping}/{batch.split}/")[:-1]  # the id's opening quote and stem
    gold_head = f',"dataset":{q(batch.dataset)},"gold":'
    prompt_head = f',"mapping":{q(batch.mapping)},"prompt":'
    provenance = f',"provenance":{_CANONICAL.encode(batch.provenance)},"references":'
    tail = f',"split":{q(batch.split)},"tasks":{_texts(batch.tasks)},"variant":'
    choices = list(map(_texts, batch.choices))
    references = list(map(_texts, batch.references))
    contexts = [_encode_object(c) if c else "{}" for c in batch.context]
    lines = []
    for variant, index, prompt, text, options, gold, refs, context in zip(
        batch.variant, batch.source_index, map(q, batch.prompt), map(q, batch.input), choices, batch.gold, references,
        contexts,
    ):
        letter, at, lower, upper, value = gold["letter"], gold["index"], gold["lower"], gold["upper"], gold["value"]
        letter = "null" if letter is None else q(letter)
        if variant is None:
            instance_id, variant = f'{stem}{index}"', "null"
        else:
            variant = q(variant)
            instance_id = f"{stem}{index}/{variant[1:]}"
        lines.append(
            f'{{"answer":{letter},"choices":{options},"context":{context}{gold_head}'
            f'{{"index":{"null" if at is None else at},"kind":{q(gold["kind"])},"letter":{letter},'
            f'"lower":{"null" if lower is None else q(lower)},"upper":{"null" if upper is None else q(upper)},'
            f'"value":{"null" if value is None else q(value)}}},"id":{instance_id},"input":{text}{prompt_head}{prompt}'
            f'{provenance}{refs},"source_index":{index}{tail}{variant}}}\n'
        )
    return lines


def _fast_lines(batch: InstanceBatch) -> list[bytes]:
    """The batch's lines with orjson (keys sorted); an instance it refuses is written by the standard library."""
    dumps, fragment = orjson.dumps, orjson.Fragment
    stem = f"{batch.dataset}/{batch.mapping}/{batch.split}/"
    dataset, mapping, split, tasks = batch.dataset, batch.mapping, batch.split, batch.tasks
    provenance = fragment(_CANONICAL.encode(batch.provenance).encode("utf-8"))
    empty = fragment(b"{}")
    plain = batch.plain_context  # then orjson writes each context as json.dumps would, sorted keys included
    # The instance and gold objects below are written with their keys in sorted order, and a context that is not
    # plain is a fragment the C encoder sorted: orjson sorts keys (about half of each call's cost) only for plain
    # contexts whose builder did not sort their keys.
    option = orjson.OPT_APPEND_NEWLINE
    if plain and not batch.context_keys_sorted:
        option |= orjson.OPT_SORT_KEYS
    lines = []
    for row, (variant, index, prompt, text, options, gold, refs, context) in enumerate(zip(
        batch.variant, batch.source_index, batch.prompt, batch.input, batch.choices, batch.gold, batch.references,
        batch.context,
    )):
        try:
            if prompt is text:  # an open task without an instruction: the prompt is the input, escaped once
                prompt = text = fragment(dumps(text))
            lines.append(dumps({
                "answer": gold["letter"], "choices": options,
                "context": context if plain else fragment(_encode_object(context).encode("utf-8")) if context
                else empty, "dataset": dataset,
                # The gold object's six fields, as the standard writer names them (anything else it holds is not
                # written).
                "gold": {"index": gold["index"], "kind": gold["kind"], "letter": gold["letter"], "lower": gold["lower"],
                         "upper": gold["upper"], "value": gold["value"]},
                "id": f"{stem}{index}" if variant is None else f"{stem}{index}/{variant}", "input": text,
                "mapping": mapping, "prompt": prompt, "provenance": provenance, "references": refs,
                "source_index": index, "split": split, "tasks": tasks, "variant": variant,
            }, option=option))
        except TypeError:  # orjson.JSONEncodeError: past 64 bits, a surrogate, or not a type it writes
            lines.append(_text_lines(_one(batch, row))[0].encode("utf-8"))
    return lines


def _one(batch: InstanceBatch, row: int) -> InstanceBatch:
    """Instance `row` of a batch, as a batch of one."""
    one = InstanceBatch(batch.dataset, batch.mapping, batch.tasks, batch.split, provenance=batch.provenance)
    for name in ("variant", "source_index", "prompt", "input", "choices", "gold", "references", "context"):
        setattr(one, name, [getattr(batch, name)[row]])
    return one


def canonical_chunks(batches: Iterable[InstanceBatch]) -> Iterator[tuple[bytes, int]]:
    """Each batch's canonical JSON lines as one UTF-8 chunk, and how many lines it holds: what writers write."""
    for batch in batches:
        if orjson is not None:
            lines = _fast_lines(batch)
            yield b"".join(lines), len(lines)
        else:
            text = _text_lines(batch)
            yield "".join(text).encode("utf-8"), len(text)


def canonical_lines(batches: Iterable[InstanceBatch]) -> Iterator[str]:
    """Each instance as `canonical_json(row) + "\\n"`."""
    for batch in batches:
        if orjson is not None:
            for line in _fast_lines(batch):
                yield line.decode("utf-8")
        else:
            yield from _text_lines(batch)


def hash_instances(batches: Iterable[InstanceBatch]) -> tuple[str, int]:
    """sha256 of the canonical JSON lines (each ending in a newline), and how many there were."""
    digest, count = hashlib.sha256(), 0
    for chunk, lines in canonical_chunks(batches):
        digest.update(chunk)
        count += lines
    return digest.hexdigest(), count
