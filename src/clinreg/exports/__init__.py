"""Writing what other tools read: a harness folder per harness (lm-eval, Inspect AI, HELM), built from what the
export holds (`contents`), with the files they ship (`harness_files/`), a Croissant description per record, and
one record as a medhelm configurable benchmark (`medhelm_config`).
The instance files of plain `clinreg build` are written by `clinreg.instances.write`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.exports.croissant import export_croissant
    from clinreg.exports.harness import export
    from clinreg.exports.medhelm_config import export_medhelm

_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "export": "clinreg.exports.harness",
    "export_croissant": "clinreg.exports.croissant",
    "export_medhelm": "clinreg.exports.medhelm_config",
}

__all__ = ["export", "export_croissant", "export_medhelm"]

__getattr__, __dir__ = _serve(__name__, _API)
