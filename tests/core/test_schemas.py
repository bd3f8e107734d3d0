"""schemas/*.json are generated from the pydantic models and must match them."""

import json
from pathlib import Path

import jsonschema
import yaml

from clinreg.contrib.schemas import FIX_COMMAND, render_schemas, schema_drift

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
REPO = SCHEMAS.parent


def test_committed_schemas_match_the_models():
    drift = schema_drift(SCHEMAS)
    assert not drift, f"schemas out of date: {', '.join(drift)}. Fix: {FIX_COMMAND}"


def test_schemas_are_valid_json_schema():
    for text in render_schemas().values():
        jsonschema.Draft202012Validator.check_schema(json.loads(text))


def test_embedded_records_validate_against_the_exported_schema():
    """Editors validate with the JSON Schema, CI with pydantic: both must accept the same records."""
    schema = json.loads((SCHEMAS / "dataset.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    records = sorted((REPO / "registry" / "datasets").glob("*.yaml"))
    assert records
    for path in records:
        errors = list(validator.iter_errors(yaml.safe_load(path.read_text())))
        assert not errors, f"{path.name}: {errors[0].message}"


def test_every_yaml_file_names_its_schema():
    for path in list((REPO / "taxonomy").glob("*.yaml")) + list((REPO / "registry").rglob("*.yaml")):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema="), path
        target = (path.parent / first.split("=", 1)[1]).resolve()
        assert target.exists(), f"{path}: {target} does not exist"
