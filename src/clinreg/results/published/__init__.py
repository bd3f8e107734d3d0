"""MedHELM's published leaderboards, shipped as clinreg results files (`<id>.json` beside this module).

Each file is what `clinreg results import` makes of one published leaderboard CSV, with a `published` block: the
release `id`, its `date`, its `source` (repository, commit, file and the SHA-256 of the CSV's text) and the MedHELM
`edition` whose benchmark set it covers. `tests/results/data/medhelm/ship.py` regenerates them from the CSVs
(copied byte for byte from som-shahlab/medhelm, see PROVENANCE.md there), and a test checks they still match.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["RELEASES", "published_file", "published_releases", "release_by_text", "text_sha256"]


# What each shipped release is. The CSVs' own text is hashed at build time (source.sha256), so that a CSV imported
# by hand is recognised as the release it is.
RELEASES: tuple[dict[str, Any], ...] = (
    {"id": "medhelm-2025-05-04", "date": "2025-05-04", "name": "MedHELM leaderboard of 2025-05-04",
     "source": {"repository": "som-shahlab/medhelm", "commit": "2d482f3c175693423f571390a5efa9a8d959483c",
                "file": "data/leaderboard.csv"},
     # 33 benchmarks: the preprint's 35 (arXiv 2505.23802) without two it added later; no edition is exactly this set
     "edition": None,
     "edition_note": "33 of the 35 benchmarks of the preprint (arxiv-2505.23802); no edition matches it exactly"},
    {"id": "medhelm-2025-07-31", "date": "2025-07-31", "name": "MedHELM leaderboard of 2025-07-31",
     "source": {"repository": "som-shahlab/medhelm", "commit": "94167c5c0298f83639ff7949ee9656062df359f1",
                "file": "data/leaderboard.csv"},
     "edition": "helm-63754d05",
     "edition_note": "the 37 benchmarks of HELM at the pinned commit"},
)


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _folder() -> Path:
    return Path(str(resources.files(__package__)))


def published_file(release_id: str) -> Path | None:
    """The shipped results file of a release id, or None when there is no such release."""
    if release_id not in {r["id"] for r in RELEASES}:
        return None
    path = _folder() / f"{release_id}.json"
    return path if path.is_file() else None


@lru_cache(maxsize=1)
def published_releases() -> tuple[dict[str, Any], ...]:
    """Every shipped release: its `published` block with the counts of models and benchmarks in its file."""
    out = []
    for release in RELEASES:
        path = published_file(release["id"])
        if path is None:
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        out.append({**data["published"], "models": len(data["models"]), "benchmarks": len(data["benchmarks"]),
                    "file": str(path)})
    return tuple(out)


def release_by_text(text: str) -> dict[str, Any] | None:
    """The shipped release whose source CSV has exactly this text (a BOM dropped), if any."""
    digest = text_sha256(text)
    return next((r for r in published_releases() if r["source"].get("sha256") == digest), None)
