"""MedHELM's own files set against the registry: `files` reads them (a source tree, an unpacked wheel, a `.whl` or
the installed `helm` package) into a `MedhelmView`, and `compare` lists every difference from one of the registry's
MedHELM editions, as data. `clinreg medhelm diff` renders that data with `clinreg.reports.medhelm`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.medhelm.compare import medhelm_diff
    from clinreg.medhelm.files import MedhelmFiles, MedhelmView, SourceError, open_source, read_medhelm

    from clinreg.medhelm.files import env_python
_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "MedhelmFiles": "clinreg.medhelm.files",
    "MedhelmView": "clinreg.medhelm.files",
    "SourceError": "clinreg.medhelm.files",
    "medhelm_diff": "clinreg.medhelm.compare",
    "open_source": "clinreg.medhelm.files",
    "read_medhelm": "clinreg.medhelm.files",
    "env_python": "clinreg.medhelm.files",
}

__all__ = [
    "env_python", "medhelm_diff", "MedhelmFiles", "MedhelmView", "open_source", "read_medhelm", "SourceError",
]

__getattr__, __dir__ = _serve(__name__, _API)
