"""MedHELM's own files set against the registry: `files` reads them (a source tree, an unpacked wheel, a `.whl` or
the installed `helm` package) into a `MedhelmView`, and `compare` lists every difference from one of the registry's
MedHELM editions, as data. `clinreg medhelm diff` renders that data with `clinreg.reports.medhelm`."""

from clinreg.medhelm.compare import medhelm_diff
from clinreg.medhelm.files import MedhelmFiles, MedhelmView, SourceError, open_source, read_medhelm

__all__ = ["MedhelmFiles", "MedhelmView", "SourceError", "medhelm_diff", "open_source", "read_medhelm"]
