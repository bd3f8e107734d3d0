"""Rows into instances: the mapping build (`build.RecordBuild`, the one build that `clinreg build`, the export,
the lock and `build_instances` run), which mappings and splits it covers (`mappingselection`), the rows it keeps
(`rowselection`, `sampling`), gold labels, the leak check, canary and provenance stamps, canonical JSON and its
hashes, check-data, the lock file, and the instance files plain `build` writes (`write`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.instances import lock
    from clinreg.instances.build import RecordBuild
    from clinreg.instances.canonical import canonical_chunks
    from clinreg.instances import figures
    from clinreg.instances.checkdata import check_data
    from clinreg.instances.figures import declared_facts
    from clinreg.instances.overlap import OVERLAP_METHOD
    from clinreg.instances.splitoverlap import figures_lines, record_figures
    from clinreg.instances.schema import Instance
    from clinreg.instances.stamp import canary
    from clinreg.instances.write import record_info, replace_folder, write_instances

_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "Instance": "clinreg.instances.schema",
    "OVERLAP_METHOD": "clinreg.instances.overlap",
    "declared_facts": "clinreg.instances.figures",
    "figures": "clinreg.instances.figures",
    "figures_lines": "clinreg.instances.splitoverlap",
    "record_figures": "clinreg.instances.splitoverlap",
    "RecordBuild": "clinreg.instances.build",
    "canary": "clinreg.instances.stamp",
    "canonical_chunks": "clinreg.instances.canonical",
    "check_data": "clinreg.instances.checkdata",
    "lock": "clinreg.instances.lock",
    "record_info": "clinreg.instances.write",
    "replace_folder": "clinreg.instances.write",
    "write_instances": "clinreg.instances.write",
}

__all__ = [
    "Instance", "OVERLAP_METHOD", "RecordBuild", "canary", "canonical_chunks", "check_data", "declared_facts",
    "figures", "figures_lines", "lock", "record_figures", "record_info", "replace_folder", "write_instances",
]

__getattr__, __dir__ = _serve(__name__, _API)
