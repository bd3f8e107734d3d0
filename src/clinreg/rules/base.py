"""Check functions, registered against the codes of the catalogue (clinreg.core.codes) that they report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable

from clinreg.core.codes import CODES
from clinreg.core.diagnostics import Diagnostic

if TYPE_CHECKING:  # pragma: no cover
    from clinreg.rules.context import Context

Check = Callable[["Context"], Iterable[Diagnostic]]

# code -> the check that reports it, in the order the rule modules register them (the engine's order).
CHECKS: dict[str, Check] = {}


def rule(code: str) -> Callable[[Check], Check]:
    """Register a check function for `code`, whose name, severity and explanation are in the catalogue."""

    def wrap(fn: Check) -> Check:
        if code not in CODES:
            raise RuntimeError(f"rule {code} has no entry in clinreg.core.codes")
        if code in CHECKS:
            raise RuntimeError(f"rule code {code} registered twice")
        family = fn.__module__.rsplit(".", 1)[-1]
        if CODES[code].family != family:
            raise RuntimeError(f"rule {code} is checked in rules/{family}.py but catalogued in "
                               f"core/codes/{CODES[code].family}.py")
        CHECKS[code] = fn
        return fn

    return wrap
