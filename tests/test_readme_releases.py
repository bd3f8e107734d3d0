"""The README's release table says what registry/releases.yaml and the records say, one row per release."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.main import main
from clinreg.core.paths import embedded_root
from clinreg.core.store import load_registry

README = Path(__file__).resolve().parents[1] / "README.md"


def _table(text: str | None = None) -> list[list[str]]:
    text = README.read_text(encoding="utf-8") if text is None else text
    start = text.index("| release | date | datasets | access public/gated/private | added |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


@pytest.mark.slow
def test_release_table_matches_releases_yaml_and_the_records():
    check_release_table(embedded_root())


def check_release_table(root: Path, readme: str | None = None) -> None:
    """The release table of `readme` (the repository's README by default) against the tree at `root`."""
    reg = load_registry(root)
    rows = _table(readme)
    previous = 0
    assert [r[0] for r in rows] == [r.version for r in reg.releases.releases], "one row per release, oldest first"
    for row, release in zip(rows, reg.releases.releases):
        version, date, datasets, access, added = row
        assert date == release.date.isoformat(), version
        result = invoke(main, ["coverage", "--root", str(root), "--release", version, "--format", "json"])
        totals = json.loads(result.output)["data"]["totals"]
        assert int(datasets) == totals["datasets"], version
        assert [int(n) for n in re.findall(r"\d+", access)] == [totals["access"][t]
                                                                for t in ("public", "gated", "private")], version
        ids = release.datasets_added or []
        removed = sum(1 for d in reg.datasets.values() if d.removed_in == version)
        assert int(datasets) == previous + len(ids) - removed, version
        previous = int(datasets)
        if not ids:
            assert added.startswith("none"), version
        elif len(ids) <= 5:
            assert set(re.findall(r"[a-z0-9_]+", added)) >= set(ids), version
