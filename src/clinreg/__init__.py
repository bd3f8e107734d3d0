"""clinreg: a versioned registry of clinical evaluation tasks and the datasets that measure them.

The library API (the CLI is a thin layer over it):

- `load_registry(root=None, release=None)`: read a registry tree (default: the working directory if it holds
  taxonomy/ and registry/, else the registry embedded in the package) into typed models.
- `validate(root=None, *, release=None, base=None)`: load a tree and run every rule; a `Report` of diagnostics.
- `coverage_data(registry, access=None)`: the coverage matrix as plain data (what `clinreg coverage` renders).
- `build_instances(record, ...)`: a record's instances, as `clinreg build` writes them (needs the `build` extra).
- `export(registry, harness, output, datasets=None, ...)`: a folder for lm-eval, Inspect AI or HELM (`build` extra).

They are imported on first use, so `import clinreg` stays light.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "build_instances", "coverage_data", "export", "load_registry", "validate"]

_API = {
    "load_registry": "clinreg.core.store",
    "validate": "clinreg.rules.engine",
    "coverage_data": "clinreg.reports.coverage",
    "build_instances": "clinreg.instances.build",
    "export": "clinreg.exports.harness",
}


def __getattr__(name: str) -> Any:
    if name in _API:
        import importlib

        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'clinreg' has no attribute {name!r}")
