"""`clinreg.build_instances` gives what `clinreg build` writes: the same instances, byte for byte in canonical JSON,
provenance included (the source actually read, the release and the canary), from a record's fixture mirror."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirunner import invoke

import clinreg
from clinreg.cli.build import build
from clinreg.core.store import load_registry
from clinreg.instances.canonical import canonical_json
from clinreg.sources.mirror import folder_name

from record_fixtures import distribution_writer

REPO = Path(__file__).resolve().parents[2]
# A hub mirror in parquet, files read by clinreg's own readers with read steps, variants, and free text.
RECORDS = ["pubmed_qa", "med_qa", "ehr_sql", "aci_bench", "medec", "dischargeme"]


@pytest.fixture(scope="module")
def registry():
    return load_registry(REPO)


def _mirror(record, base: Path) -> Path:
    data = base / "data"
    distribution_writer(record)[1](data / folder_name(record))
    return data


def _cli_bytes(record_id: str, data: Path, out: Path, *options: str) -> bytes:
    args = [record_id, "--data-dir", str(data), "-o", str(out), "--root", str(REPO), "--quiet", *options]
    result = invoke(build, args)
    assert result.exit_code == 0, result.output
    return out.read_bytes()


def _api_bytes(instances) -> bytes:
    return "".join(canonical_json(i.model_dump(mode="json")) + "\n" for i in instances).encode("utf-8")


@pytest.mark.parametrize("record_id", RECORDS)
def test_public_api_equals_the_cli_build_byte_for_byte(registry, tmp_path, record_id):
    record = registry.datasets[record_id]
    data = _mirror(record, tmp_path)
    written = _cli_bytes(record_id, data, tmp_path / "x.jsonl")
    # The registry the record belongs to by default: the one at `root`, as `clinreg build --root` loads it.
    built = _api_bytes(clinreg.build_instances(record, data_dir=data, root=REPO))
    assert built == written
    first = json.loads(written.splitlines()[0])["provenance"]
    assert first["source"]["kind"] == "mirror" and first["source"]["content_sha256"]
    assert first["canary"] and first["registry_release"] == registry.current_release


def test_public_api_with_its_registry_and_a_sample_equals_the_cli(registry, tmp_path):
    record = registry.datasets["med_qa"]
    data = _mirror(record, tmp_path)
    written = _cli_bytes("med_qa", data, tmp_path / "x.jsonl", "--limit", "2", "--seed", "3")
    built = _api_bytes(clinreg.build_instances(record, data_dir=data, limit=2, seed=3, registry=registry))
    assert built == written and len(written.splitlines()) == 2 * len(record.mappings)
