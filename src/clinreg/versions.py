"""Semantic versions: parse and compare without a third-party package."""

from __future__ import annotations

import re

from clinreg.model import SEMVER_PATTERN

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
    major, minor, patch, pre = int(match[1]), int(match[2]), int(match[3]), match[4]
    if pre is None:
        return (major, minor, patch, 1, ())
    parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (major, minor, patch, 0, parts)
