"""YAML text written by hand: scalars that read back as the same value, and flow lists and maps of them."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import yaml


def yaml_scalar(value: Any) -> str:
    """One scalar as YAML text: plain where YAML reads it back as the same string, else double-quoted."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value)
    return (text if _plain_ok(text)
            else _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False)))


# Characters YAML does not allow raw in a file, or reads as line breaks inside a quoted scalar: escape them.
_NOT_PRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _plain_ok(text: str) -> bool:
    if not text or text != text.strip() or any(c in text for c in "\n\r\t,[]{}#:?\"'\\"):
        return False
    if any(c in text for c in "\x85\u2028\u2029"):  # line breaks to YAML: a plain scalar would fold them
        return False
    if text[0] in "-?&*!|>%@`":
        return False
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    # YAML 1.1 reads yes/no/on/off, 012 and dates as non-strings (CLR005): those are quoted.
    return isinstance(loaded, str) and loaded == text


def yaml_flow_list(values: list[Any]) -> str:
    return "[" + ", ".join(yaml_scalar(v) for v in values) + "]"


def yaml_flow_map(mapping: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{yaml_scalar(k)}: {yaml_scalar(v)}" for k, v in mapping.items()) + "}"


class _Dumper(yaml.SafeDumper):
    """The safe dumper, writing any string that holds a character YAML versions read differently (CR, NEL, U+2028,
    U+2029, which YAML 1.1 takes as line breaks and YAML 1.2 does not) or a non-printable one double-quoted, where
    each is an escape; left to itself, PyYAML writes U+2028 raw inside a folded single-quoted scalar."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if _NOT_PRINTABLE.search(value) or any(c in value for c in "\r\x85") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def yaml_dump(data: Any) -> str:
    """YAML text of plain data (from any source) that every YAML reader reads back as the same data."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
