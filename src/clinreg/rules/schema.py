"""Schema rules: unknown keys, wrong types, missing fields, bad enum values, TODO markers and schema headers."""

from __future__ import annotations

from typing import Iterable

from clinreg.core.diagnostics import Diagnostic
from clinreg.rules.base import rule
from clinreg.rules.context import Context


@rule("CLR106")
def todo_markers(ctx: Context) -> Iterable[Diagnostic]:
    yield from ctx.scalar_findings["CLR106"]  # one pass with CLR702 and CLR704 (see core/scalars.py)


# The card fields every record needs for a complete card; `compare_with` may stay empty.
CARD_FIELDS = ("measures", "use_when", "not_for", "languages", "first_released", "status", "maintainer", "independence")


@rule("CLR108")
def incomplete_card(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        missing = [f for f in CARD_FIELDS if getattr(ds, f) is None]
        if missing:
            yield ctx.at("CLR108", ctx.reg.dataset_files[ds_id], ("description",),
                         f"dataset {ds_id!r} lacks card field(s): {', '.join(missing)}",
                         "add them after `description`; where no source says, write `value: unknown` with a `reason`",
                         key=True)
