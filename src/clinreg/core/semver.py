"""Semantic versions: parse and compare without a third-party package."""

from __future__ import annotations

import re

from clinreg.core.model import SEMVER_PATTERN

_SEMVER = re.compile(SEMVER_PATTERN)


def parse_semver(text: object) -> tuple | None:
    """A sort key for a semantic version string, or None when it is not one.

    Pre-releases sort before their release, as semver says (1.0.0-rc.1 < 1.0.0).
    """
    if not isinstance(text, str):
        return None
    match = _SEMVER.match(text)
    if not match:
        return None
    try:
        major, minor, patch = int(match[1]), int(match[2]), int(match[3])
    except ValueError:  # a component past int()'s digit limit (4300) is not a version anyone means
        return None
    pre = match[4]
    if pre is None:
        return (major, minor, patch, 1, ())
    try:
        parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    except ValueError:
        return None
    return (major, minor, patch, 0, parts)
