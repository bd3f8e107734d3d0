"""mlcroissant 1.1.1's own validator on every record's Croissant file, with and without a lock, and mlcroissant
reading a record's rows from a clinreg data folder through the file.

Needs mlcroissant 1.1.1 (the Croissant stage of .ci/run installs it in a venv of its own, beside clinreg[build]);
skipped without it unless CLINREG_REQUIRE_CROISSANT=1, which turns its absence into a failure.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest

from clinreg.core.store import load_registry
from clinreg.exports.croissant import export_croissant
from clinreg.instances.lock import write_lock
from exports.croissant_support import LOCKED, lock_of, write_data

REPO = Path(__file__).resolve().parents[2]
VERSION = "1.1.1"
RECORDS = sorted(p.stem for p in (REPO / "registry" / "datasets").glob("*.yaml"))
# The only warning a file may draw: the recommended `version`, where the file's left_out list explains its absence
# (license and datePublished are Required by the spec and always written).
EXPLAINED = {"version": "version:"}


def _mlcroissant():
    reason = None
    try:
        import mlcroissant
        from importlib.metadata import version

        if version("mlcroissant") != VERSION:
            reason = f"mlcroissant {version('mlcroissant')} is installed, not {VERSION}"
    except ImportError:
        reason = f"mlcroissant {VERSION} is not installed"
    if reason is None:
        return mlcroissant
    if os.environ.get("CLINREG_REQUIRE_CROISSANT") == "1":
        pytest.fail(f"{reason} (CLINREG_REQUIRE_CROISSANT=1)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def mlc():
    return _mlcroissant()


@pytest.fixture(scope="module")
def registry():
    return load_registry(REPO)


@pytest.fixture(scope="module")
def unlocked(registry, tmp_path_factory):
    out = tmp_path_factory.mktemp("croissant")
    return out, {f.dataset: f for f in export_croissant(registry, out).files}


@pytest.fixture(scope="module")
def locked(registry, tmp_path_factory):
    """The four records of croissant_support with clinreg's lock; their files are written at the data folder's root,
    so that their FileSets' paths resolve against it."""
    base = tmp_path_factory.mktemp("croissant-locked")
    data = write_data(registry, base / "data")
    write_lock(base / "lock.json", lock_of(registry, data))
    report = export_croissant(registry, data, sorted(LOCKED), lock_path=base / "lock.json")
    return data, {f.dataset: f for f in report.files}


def validate(mlc, path: Path, left_out: list[str]) -> None:
    dataset = mlc.Dataset(jsonld=path)  # raises mlcroissant.ValidationError on any error
    for warning in dataset.metadata.ctx.issues.warnings:
        prop = next((p for p in EXPLAINED if f'"https://schema.org/{p}" is recommended' in warning), None)
        assert prop is not None, f"{path.name}: {warning}"
        assert any(item.startswith(EXPLAINED[prop]) for item in left_out), f"{path.name}: {warning} is not explained"
    # mlcroissant reads the spec's Required fields from the file, as the types the spec gives them
    metadata = dataset.metadata
    assert metadata.url and metadata.date_published and metadata.license and metadata.distribution, path.name
    assert metadata.creators and all(type(c).__name__ in ("Person", "Organization") and c.name
                                     for c in metadata.creators), path.name


@pytest.mark.parametrize("record_id", RECORDS)
def test_every_record_passes_mlcroissant(mlc, unlocked, record_id):
    out, files = unlocked
    validate(mlc, out / files[record_id].file, files[record_id].left_out)


@pytest.mark.parametrize("record_id", sorted(LOCKED))
def test_a_locked_record_passes_mlcroissant_with_its_instance_files(mlc, locked, record_id):
    data, files = locked
    made = files[record_id]
    assert made.instances_with_sha256, f"{record_id}: the lock gave no sha256"
    validate(mlc, data / made.file, made.left_out)


@pytest.mark.parametrize("record_id, columns", [("shc_bmt_med", ["prompt", "context", "label"]),
                                                ("mimic_bhc", ["input", "target"])])
def test_mlcroissant_reads_the_rows_from_a_clinreg_data_folder(mlc, locked, record_id, columns):
    """A record read from one CSV or JSON-lines file: mlcroissant's loader finds the files through the FileSet and
    yields the source's rows, field for field."""
    data, files = locked
    dataset = mlc.Dataset(jsonld=data / files[record_id].file)
    got = [{k.split("/", 1)[1]: v.decode() for k, v in row.items()}
           for row in itertools.islice(dataset.records(record_id), 50)]
    record = load_registry(REPO).datasets[record_id]
    [split] = record.mappings[0].splits
    path = next((data / record.id).glob(record.source.read.splits[split].files))
    if path.suffix == ".csv":
        import csv

        with path.open(encoding="utf-8", newline="") as handle:
            want = [{c: row[c] for c in columns} for row in csv.DictReader(handle)]
    else:
        want = [{c: row[c] for c in columns} for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())]
    assert got and got == want[: len(got)]
