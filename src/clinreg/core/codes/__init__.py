"""The catalogue of every code clinreg reports (CLR...): name, default severity, title, family and explanation.

One module per family holds its entries as plain data (`ENTRIES`), so this package imports nothing from the rest
of clinreg: creating a diagnostic needs only the catalogue, never the rules or their engine. The checks that
raise the codes live in clinreg.rules; codes raised while reading files (parse, schema), by `check-data` (data)
and by `results import` (results) have no check function, except CLR010 (parse), which reports what the
reader noted beside the values.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Literal

from clinreg.core.codes import (
    coverage, data, identity, labels, parse, reads, refs, results, review, schema, sources, usage, versions,
)

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: Severity
    title: str
    doc: str  # the explanation as written in the family's module (indented)
    family: str
    # The severity where a command runs strictly, when it differs (`validate --strict`, `results import --strict`),
    # and when that is, in words. A code has one severity per mode, printed and explained alike.
    strict: Severity | None = None
    strict_when: str = ""

    def severity_in(self, strict: bool) -> Severity:
        return self.strict if strict and self.strict else self.severity

    @property
    def severities(self) -> str:
        """The severities in words, as `explain` and `rules` show them: "warning; error under validate --strict"."""
        return self.severity if not self.strict else f"{self.severity}; {self.strict} {self.strict_when}"

    @property
    def explanation(self) -> str:
        """Why the code exists, with a bad and a good example: the entry's text, dedented when it is read (a
        validate run reads the catalogue for severities only)."""
        return inspect.cleandoc(self.doc)


CODES: dict[str, Code] = {}

# The order in which the families used to register (check-data's codes first); `clinreg rules` sorts by code.
for _family in (data, coverage, identity, labels, parse, reads, refs, review, schema, sources, versions, results,
                usage):
    _name = _family.__name__.rsplit(".", 1)[-1]
    for _code, (_rule_name, _severity, _title, _doc) in _family.ENTRIES.items():
        if _code in CODES:
            raise RuntimeError(f"code {_code} is in the catalogue twice")
        if "Bad:" not in _doc or "Good:" not in _doc:
            raise RuntimeError(f"code {_code} needs an explanation with a Bad: and a Good: example")
        _strict, _when = getattr(_family, "STRICT", {}).get(_code, (None, ""))
        CODES[_code] = Code(_code, _rule_name, _severity, _title, _doc, _name, _strict, _when)
