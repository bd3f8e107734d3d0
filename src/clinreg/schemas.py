"""Generate the JSON Schemas in schemas/ from the pydantic models, and check that the committed ones match."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from clinreg.model import Category, Dataset, ReleaseHistory, Taxonomy
from clinreg.safeio import atomic_write_text

FIX_COMMAND = "uv run clinreg schema export"


def _models() -> dict[str, type[BaseModel]]:
    models: dict[str, type[BaseModel]] = {
        "taxonomy": Taxonomy,
        "category": Category,
        "dataset": Dataset,
        "releases": ReleaseHistory,
    }
    try:  # the Instance model lives in the build package, which must not pull in `datasets` to be imported
        from clinreg.build.instance import Instance

        models["instance"] = Instance
    except ImportError:  # pragma: no cover - only while the build package is absent
        pass
    return models


def render_schemas() -> dict[str, str]:
    """File name -> JSON text, deterministic so that drift is a plain string comparison."""
    out = {}
    for name, model in _models().items():
        schema = model.model_json_schema(by_alias=True)
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"{name}.schema.json", **schema}
        out[f"{name}.schema.json"] = json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    return out


def export_schemas(out_dir: Path) -> list[Path]:
    written = []
    for name, text in render_schemas().items():
        target = out_dir / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            atomic_write_text(target, text)
            written.append(target)
    return written


def schema_drift(out_dir: Path) -> list[str]:
    """Names of schema files that are missing or differ from what the models generate."""
    drift = []
    for name, text in render_schemas().items():
        target = out_dir / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            drift.append(name)
    return drift
