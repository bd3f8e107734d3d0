"""The input template engine: a record's `render` templates and `keep:` filters, run on untrusted rows.

`sandbox` (`InputTemplate`: the capped jinja2 sandbox, and the fast paths it picks), `compiled` (the loop-free
subset as Python closures), `vectorized` (that subset over a whole Arrow batch), `rowfilters` (`keep:` filter
expressions) and `columns` (Arrow column helpers the engine and the build share). It knows nothing of records'
files or of instances: `sources` (the read steps) and `instances` (the mapping build) call it. The names below are
served on first use, so importing the package loads neither jinja2 nor pyarrow.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_OUTPUT_CHARS", "ROW_VARIABLE", "FilterExpression", "InputTemplate"]

_SURFACE = {
    "InputTemplate": "clinreg.templating.sandbox",
    "MAX_OUTPUT_CHARS": "clinreg.templating.sandbox",
    "ROW_VARIABLE": "clinreg.templating.sandbox",
    "FilterExpression": "clinreg.templating.rowfilters",
}


def __getattr__(name: str) -> Any:
    if name in _SURFACE:
        import importlib

        return getattr(importlib.import_module(_SURFACE[name]), name)
    raise AttributeError(f"module 'clinreg.templating' has no attribute {name!r}")
