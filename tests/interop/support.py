"""Shared helpers of the interop tests: where things are, and skip-or-fail when a harness is missing."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from record_fixtures import distribution_mirror  # noqa: F401 - the interop tests import it from here
from record_fixtures import distribution_writer

REPO = Path(__file__).resolve().parents[2]
REALDATA = REPO.parent / "shared" / "realdata"
DATASETS = ["med_qa", "pubmed_qa", "medcalc_bench", "aci_bench"]
REQUIRED = os.environ.get("CLINREG_REQUIRE_INTEROP") == "1"


def need(condition: bool, reason: str) -> None:
    if not condition:
        if REQUIRED:
            pytest.fail(f"{reason} (CLINREG_REQUIRE_INTEROP=1)")
        pytest.skip(reason)


def tool(name: str) -> str:
    """A console script of the running interpreter's environment (the harness venv)."""
    path = Path(sys.executable).parent / name
    need(path.exists(), f"{name} is not installed next to {sys.executable}")
    return str(path)


def have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def closed_mirror(base: Path) -> tuple[Path, list[str]]:
    """A mirror holding every closed record's files as distributed (the writers of tests/distributions),
    and the ids of those records: every closed mapping of the registry, whatever its access tier."""
    from clinreg.core.store import load_registry
    from clinreg.exports.harness import gold_kind

    reg = load_registry(REPO)
    closed = sorted(r.id for r in reg.datasets.values() if any(gold_kind(m.label) == "choice" for m in r.mappings))
    distribution_mirror(base, closed)
    return base, closed


def export_closed(harness: str, base: Path) -> tuple[Path, list[str]]:
    """`clinreg export HARNESS` of every closed record (files from closed_mirror) into base/export, and the task
    names of its closed mappings."""
    import json

    from clirunner import invoke

    from clinreg.cli.export import export

    data, closed = closed_mirror(base / "mirror")
    out = base / "export"
    result = invoke(export, [harness, *closed, "--root", str(REPO), "--data-dir", str(data), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    names = [m["name"] for m in json.loads((out / "manifest.json").read_text())["mappings"] if m["kind"] == "choice"]
    return out, names


def buildable_records() -> list[str]:
    """Every record whose test writer lays out files (not those whose writer says `unbuildable`: records whose
    data layout is not public, which refuse to build and so have nothing to export)."""
    import tempfile

    from clinreg.core.store import load_registry

    reg = load_registry(REPO)
    ids = sorted(reg.datasets)
    with tempfile.TemporaryDirectory() as scratch:
        written = {r: distribution_writer(reg.datasets[r])[1](Path(scratch) / r) or {} for r in ids}
    return [r for r in ids if "unbuildable" not in written[r]]


def jury_export(harness: str, base: Path, records: list[str], limit: int = 3) -> Path:
    """`clinreg export HARNESS` of the named records (files as distributed), `limit` instances per mapping."""
    from clirunner import invoke

    from clinreg.cli.export import export

    data = distribution_mirror(base / "mirror", records)
    out = base / "export"
    result = invoke(export, [harness, *records, "--root", str(REPO), "--data-dir", str(data), "-o", str(out),
                             "--limit", str(limit)])
    assert result.exit_code == 0, result.stderr
    return out
