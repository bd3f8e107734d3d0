"""Parse rules: what the YAML reader reads without complaint but differently from what the author wrote."""

from __future__ import annotations

from typing import Iterable

from clinreg.core.diagnostics import Diagnostic, make
from clinreg.rules.base import rule
from clinreg.rules.context import Context


@rule("CLR010")
def comment_cuts_value(ctx: Context) -> Iterable[Diagnostic]:
    for sf in ctx.reg.files:
        for cut in sf.doc.cut_comments:
            field = ".".join(str(p) for p in cut.path) or "the value"
            dropped = cut.comment if len(cut.comment) <= 24 else cut.comment[:23] + "…"
            kept = cut.kept if len(cut.kept) <= 24 else "…" + cut.kept[-23:]
            yield make("CLR010", sf.rel, cut.line, cut.column,
                       f"`{field}` ends at {kept!r}: YAML reads `{dropped}` as a comment ({cut.why})",
                       "quote the whole value to keep the text; for a comment, put two spaces before the `#`")
