"""A record's data, up to rows: locating and fetching its files (hub, GitHub, PhysioNet, URL, local mirror),
reading them (one reader per format, for the whole-file and the streamed read) and the read steps, whose
templates and filters the engine in `clinreg.templating` runs. Imports point down only:
`exports -> instances -> sources -> templating -> core`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.sources.files import infer_format
    from clinreg.sources.location import DataLocation
    from clinreg.sources.mirror import folder_name
    from clinreg.sources.origin import locate, open_reader
    from clinreg.sources.splits import FileSplitReader, SplitReader

_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "DataLocation": "clinreg.sources.location",
    "FileSplitReader": "clinreg.sources.splits",
    "SplitReader": "clinreg.sources.splits",
    "folder_name": "clinreg.sources.mirror",
    "infer_format": "clinreg.sources.files",
    "locate": "clinreg.sources.origin",
    "open_reader": "clinreg.sources.origin",
}

__all__ = ["DataLocation", "FileSplitReader", "SplitReader", "folder_name", "infer_format", "locate", "open_reader"]

__getattr__, __dir__ = _serve(__name__, _API)
