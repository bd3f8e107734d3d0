"""Generate the JSON Schemas in schemas/ from the pydantic models, and check that the committed ones match."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from clinreg.core.model import Category, Dataset, MedhelmEditions, ReleaseHistory, Taxonomy
from clinreg.text.safeio import atomic_write_text

FIX_COMMAND = "uv run clinreg schema export"


def _models() -> dict[str, type[BaseModel]]:
    models: dict[str, type[BaseModel]] = {
        "taxonomy": Taxonomy,
        "category": Category,
        "dataset": Dataset,
        "releases": ReleaseHistory,
        "medhelm_editions": MedhelmEditions,
    }
    try:  # the Instance model lives in the build package, which must not pull in `datasets` to be imported
        from clinreg.instances.schema import Instance

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
        out[f"{name}.schema.json"] = json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=False,
                                                allow_nan=False) + "\n"
    return out


def export_schemas(out_dir: Path) -> list[Path]:
    """Write the schema files that are missing or out of date; return the ones written."""
    rendered = render_schemas()
    written = []
    for name in schema_drift(out_dir, rendered):
        atomic_write_text(out_dir / name, rendered[name])
        written.append(out_dir / name)
    return written


def schema_drift(out_dir: Path, rendered: dict[str, str] | None = None) -> list[str]:
    """Names of schema files that are missing or differ from what the models generate."""
    rendered = rendered if rendered is not None else render_schemas()
    return [
        name for name, text in rendered.items()
        if not (out_dir / name).exists() or (out_dir / name).read_text(encoding="utf-8") != text
    ]
