"""What both readers share: libyaml's loader, the plain YAML tags, YAML 1.1's implicit types and their traps."""

from __future__ import annotations

import re
from typing import Any

import yaml

try:  # The C parser is a fixed choice; the pure-Python one is only a fallback for odd platforms.
    from yaml import CSafeLoader as Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as Loader  # type: ignore[assignment]  # noqa: F401


SAFE_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
}
STR = "tag:yaml.org,2002:str"
COLLECTION_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}
MERGE = "tag:yaml.org,2002:merge"
resolver = yaml.resolver.Resolver()
constructor = yaml.constructor.SafeConstructor()
_TRUE_FALSE = {"true", "false"}
# Every alternative is anchored and unambiguous, so matching stays linear on hostile input. (An earlier
# `\d[\d_]*_[\d_]*$` backtracked quadratically on `1_1_1_..._1.5`.)
_AMBIGUOUS_INT = re.compile(r"^[-+]?(0[0-7_]+|0x[0-9a-fA-F_]+|0b[01_]+|[0-9][0-9_]*(:[0-5]?[0-9])+)$")
_UNDERSCORED_INT = re.compile(r"^[-+]?[0-9][0-9_]*$")


IMPLICIT_FIRST_CHARS = frozenset(k for k in resolver.yaml_implicit_resolvers if k is not None)


def mark_at(mark) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def is_yaml11_trap(text: str, value: Any) -> bool:
    """True for plain scalars that YAML 1.1 silently converts: yes/no/on/off/y/n, 012, 0x1F, 1:30."""
    if isinstance(value, bool):
        return text.lower() not in _TRUE_FALSE
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return bool(_AMBIGUOUS_INT.match(text)) or ("_" in text and bool(_UNDERSCORED_INT.match(text))) or ":" in text
    return False


class NoKey:
    def __repr__(self) -> str:  # pragma: no cover
        return "<no key>"


NO_KEY = NoKey()
