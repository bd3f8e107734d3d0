"""Schema rules: unknown keys, wrong types, missing fields, bad enum values, TODO markers and schema headers."""

from __future__ import annotations

from typing import Iterable

from clinreg.core.diagnostics import Diagnostic
from clinreg.rules.base import rule
from clinreg.rules.context import Context


@rule("CLR106")
def todo_markers(ctx: Context) -> Iterable[Diagnostic]:
    yield from ctx.scalar_findings["CLR106"]  # one pass with CLR702 and CLR704 (see core/scalars.py)
