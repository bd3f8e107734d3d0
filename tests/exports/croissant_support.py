"""Shared by the Croissant tests: a data folder laid out by the as-distributed writers, and clinreg's lock of it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from clinreg.core.store import Registry
from clinreg.sources.mirror import folder_name

DISTRIBUTIONS = Path(__file__).parents[1] / "distributions"
# One record per source kind that builds: a hub repo, a GitHub repo, a PhysioNet download and local files.
LOCKED = {"pubmed_qa": "write_hub", "aci_bench": "write", "mimic_bhc": "write", "shc_bmt_med": "write"}


def write_data(registry: Registry, data_dir: Path) -> Path:
    """Lay out the files of the LOCKED records as they are distributed, in a clinreg data folder."""
    for record_id, writer in LOCKED.items():
        spec = importlib.util.spec_from_file_location(f"distribution_{record_id}", DISTRIBUTIONS / f"{record_id}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        getattr(module, writer)(data_dir / folder_name(registry.datasets[record_id]))
    return data_dir


def lock_of(registry: Registry, data_dir: Path) -> dict:
    """The lock `clinreg lock --data-dir` computes for that folder (every other record is skipped)."""
    from clinreg.instances.lock import compute_lock

    return compute_lock(registry, data_dir)
