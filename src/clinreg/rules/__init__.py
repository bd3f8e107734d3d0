"""Validation rules, one module per concern; `clinreg.rules.engine` imports them all and runs them.

A check is a function decorated `@rule("CLR...")`. Its code's name, default severity, title and explanation
(with a bad and a good example) are in the catalogue, `clinreg.core.codes.<family>`, where `clinreg explain`
reads them; the family is the name of the check's module here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.rules.cache import validate_cached
    from clinreg.rules.engine import identity_problems, record_errors, run_rules, validate

_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "identity_problems": "clinreg.rules.engine",
    "record_errors": "clinreg.rules.engine",
    "run_rules": "clinreg.rules.engine",
    "validate": "clinreg.rules.engine",
    "validate_cached": "clinreg.rules.cache",
}

__all__ = ["identity_problems", "record_errors", "run_rules", "validate", "validate_cached"]

__getattr__, __dir__ = _serve(__name__, _API)
