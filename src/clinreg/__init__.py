"""clinreg: a versioned registry of clinical evaluation tasks and the datasets that measure them.

The library API (the CLI is a thin layer over it):

- `load_registry(root=None, release=None)`: read a registry tree (default: the working directory if it holds
  taxonomy/ and registry/, else the registry embedded in the package) into typed models.
- `validate(root=None, *, release=None, base=None)`: load a tree and run every rule; a `Report` of diagnostics.
- `coverage_data(registry, access=None)`: the coverage matrix as plain data (what `clinreg coverage` renders).
- `build_instances(record, ...)`: a record's instances, as `clinreg build` writes them (needs the `build` extra).
- `export(registry, harness, output, datasets=None, ...)`: a folder for lm-eval, Inspect AI or HELM (`build` extra).

They are imported on first use, so `import clinreg` stays light. Each package below states its public surface
the same way: `__all__`, and `_API` naming the module behind each name (`clinreg.results.read_results`, ...).
"""

from __future__ import annotations

from typing import Any, Callable

__version__ = "0.1.0"
__all__ = ["__version__", "build_instances", "coverage_data", "export", "load_registry", "validate"]

_API = {
    "load_registry": "clinreg.core.store",
    "validate": "clinreg.rules.engine",
    "coverage_data": "clinreg.reports.coverage",
    "build_instances": "clinreg.instances.build",
    "export": "clinreg.exports.harness",
}


def _serve(package: str, names: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__` that serve `names` (name -> the module defining it) on first use, so
    importing the package imports none of its modules. A name served by the package's submodule of that name is the
    submodule. Every package below clinreg states its public surface this way."""

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        module = importlib.import_module(names[name])
        return module if module.__name__ == f"{package}.{name}" else getattr(module, name)

    def __dir__() -> list[str]:
        import sys

        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__


__getattr__, __dir__ = _serve(__name__, _API)
