"""The input template engine: a record's `render` templates and `keep:` filters, run on untrusted rows.

`sandbox` (`InputTemplate`: the capped jinja2 sandbox, and the fast paths it picks), `compiled` (the loop-free
subset as Python closures), `vectorized` (that subset over a whole Arrow batch), `rowfilters` (`FilterExpression`,
the `keep:` filters) and `columns` (Arrow column helpers the engine and the build share). It knows nothing of
records' files or of instances: `sources` (the read steps) and `instances` (the mapping build) call it. The
package imports none of its modules itself, so importing one loads jinja2 or pyarrow only where that one needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.templating.columns import (
        as_strings, constant_lists, find_column, has_column, list_lengths, one_array, python_values, rebuild_lists,
        text_column,
    )
    from clinreg.templating.rowfilters import FilterExpression
    from clinreg.templating.sandbox import ROW_VARIABLE, InputTemplate

_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "ROW_VARIABLE": "clinreg.templating.sandbox",
    "FilterExpression": "clinreg.templating.rowfilters",
    "InputTemplate": "clinreg.templating.sandbox",
    "as_strings": "clinreg.templating.columns",
    "constant_lists": "clinreg.templating.columns",
    "find_column": "clinreg.templating.columns",
    "has_column": "clinreg.templating.columns",
    "list_lengths": "clinreg.templating.columns",
    "one_array": "clinreg.templating.columns",
    "python_values": "clinreg.templating.columns",
    "rebuild_lists": "clinreg.templating.columns",
    "text_column": "clinreg.templating.columns",
}

__all__ = [
    "ROW_VARIABLE", "FilterExpression", "InputTemplate", "as_strings", "constant_lists", "find_column", "has_column",
    "list_lengths", "one_array", "python_values", "rebuild_lists", "text_column",
]

__getattr__, __dir__ = _serve(__name__, _API)
