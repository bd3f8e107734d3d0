"""A score as plain data: one model on one benchmark, a win rate a source states, and the instance summary."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass
class Score:
    """One model's score on one benchmark, with what is known about the instances behind it."""

    model: str
    record: str
    mapping: str
    metric: str
    value: float
    range: list[float] | None
    n_instances: int | None
    n_instances_from: str | None  # "results" (the file said so) or "registry" (MedHELM's evaluated count)
    source: dict[str, Any]
    stderr: float | None = None
    per_instance: dict[str, Any] | None = None  # {"n", "mean", "sd", "binary"} where instance-level data exist
    jury: dict[str, Any] | None = None  # {"rubric": id, "judges": {name: model}} for a jury score
    # Where the score comes from, as far as its source says (missing keys are unknown): harness, harness_version,
    # export (the export's id), instance_set (hash), registry_release, edition, generation (settings), published
    # ({id, date, source} of a published leaderboard). Jury and rubric are `jury` above.
    provenance: dict[str, Any] | None = None

    @property
    def key(self) -> str:
        return f"{self.record}/{self.mapping}"

    @property
    def published(self) -> str | None:
        """The id of the published leaderboard release the score was read from, if it was."""
        published = (self.provenance or {}).get("published")
        value = published.get("id") if isinstance(published, dict) else None
        return value if isinstance(value, str) else None

    @property
    def jury_key(self) -> str | None:
        """Which jury produced the score: its rubric and its judge models (names aside). None for other metrics."""
        if not self.jury:
            return None
        return f"{self.jury['rubric']} judged by {', '.join(sorted(self.jury['judges'].values()))}"

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "record": self.record, "mapping": self.mapping, "metric": self.metric,
                "value": self.value, "range": self.range, "n_instances": self.n_instances,
                "n_instances_from": self.n_instances_from, "stderr": self.stderr, "per_instance": self.per_instance,
                "jury": self.jury, "provenance": self.provenance or {}, "source": self.source}


@dataclass
class ReportedWinRate:
    """A mean win rate a source states (a HELM leaderboard's `Mean win rate` column), kept to compare with ours."""

    model: str
    value: float
    benchmarks: list[str]
    source: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "value": self.value, "benchmarks": self.benchmarks, "source": self.source}


def summarise(values: list[float]) -> dict[str, Any] | None:
    """Instance-level summary for an interval: n, mean, population sd, and whether every value is 0 or 1."""
    if not values:
        return None
    n = len(values)
    mean = math.fsum(values) / n
    sd = math.sqrt(max(0.0, math.fsum((v - mean) ** 2 for v in values) / n))
    return {"n": n, "mean": mean, "sd": sd, "binary": all(v in (0.0, 1.0) for v in values)}
