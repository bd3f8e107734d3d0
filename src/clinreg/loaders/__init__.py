"""Turn registry records into model-ready instances: sources, templates, labels, export and lock."""

from __future__ import annotations

from typing import Any

__all__ = ["build_instances"]


def __getattr__(name: str) -> Any:
    # Lazy, so that importing clinreg.loaders (or its pydantic Instance) never pulls in datasets or pyarrow.
    if name == "build_instances":
        from clinreg.loaders.instances import build_instances

        return build_instances
    raise AttributeError(name)
