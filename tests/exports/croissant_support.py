"""Shared by the Croissant tests: a data folder laid out by the as-distributed writers, and clinreg's lock of it."""

from __future__ import annotations

from pathlib import Path

from clinreg.core.store import Registry
from clinreg.sources.mirror import folder_name

from record_fixtures import distribution_writer

# One record per source kind that builds: a hub repo, a GitHub repo, a PhysioNet download and local files.
LOCKED = ("pubmed_qa", "aci_bench", "mimic_bhc", "shc_bmt_med")


def write_data(registry: Registry, data_dir: Path) -> Path:
    """Lay out the files of the LOCKED records as they are distributed, in a clinreg data folder."""
    for record_id in LOCKED:
        record = registry.datasets[record_id]
        distribution_writer(record)[1](data_dir / folder_name(record))
    return data_dir


def lock_of(registry: Registry, data_dir: Path) -> dict:
    """The lock `clinreg lock --data-dir` computes for that folder (every other record is skipped)."""
    from clinreg.instances.lock import compute_lock

    return compute_lock(registry, data_dir)
