"""Every record whose as-distributed fixture builds gets split figures: a fingerprint for each split its mappings
evaluate, and duplicate and overlap counts (the fixtures are small and made up, so the counts are not asserted:
that every buildable record gets them is)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinreg.core.store import load_registry
from clinreg.instances import record_figures
from clinreg.sources.mirror import folder_name
from clinreg.sources.origin import locate

from instances.test_as_distributed import RECORDS
from record_fixtures import distribution_writer

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def registry():
    return load_registry(REPO)


@pytest.mark.parametrize("record_id", RECORDS)
def test_every_buildable_record_gets_a_fingerprint_and_overlap_figures(registry, tmp_path, record_id):
    record = registry.datasets[record_id]
    _, write = distribution_writer(record)
    data = tmp_path / "data"
    if "unbuildable" in write(data / folder_name(record)):
        pytest.skip(f"{record_id}: its layout is not public, so there is nothing to fingerprint")
    figures = record_figures(record, locate(record, data, registry.root))
    assert figures["record_version"] == record.version and figures["source"]["kind"] == "mirror"
    assert "Jaccard >= 0.8" in figures["method"]
    for mapping, entry in zip(record.mappings, figures["mappings"]):
        assert entry["mapping"] == mapping.id and "unreadable" not in entry, entry
        for split in mapping.splits:
            s = entry["splits"][split]
            assert s["evaluation"] and s["fingerprint"].startswith("sha256:") and s["instances"] > 0, (split, s)
            assert set(entry["within"][split]) >= {"exact_pairs", "near_pairs", "rows", "pairs"}
        others = [name for name, s in entry["splits"].items() if not s["evaluation"] and "unreadable" not in s]
        pairs = {(a["evaluation"], a["other"]) for a in entry["across"]}
        assert {(e, o) for e in mapping.splits for o in others} <= pairs
