"""What an export holds (`ExportReport`: the mappings written, with their place in the taxonomy) and what every
harness's task files derive from it: the groups per subcategory and category, the header, the scoring code and
Python literals of JSON-shaped data."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinreg.scoring import medhelm

PREFIX = "clinreg_"
FILES = Path(__file__).parent / "harness_files"


@dataclass
class MappingExport:
    """One exported mapping: where its instances are, how it is scored and where it sits in the taxonomy."""

    dataset: str
    mapping: str
    kind: str  # choice | number | text
    data_file: str  # relative to the export folder
    instances: int
    access: str
    subcategories: list[str]
    categories: list[str]
    metric: str
    scoring: dict[str, Any] | None = None  # the record's scoring (JSON-shaped), with the jury's rubric id
    generation: dict[str, Any] | None = None  # the record's generation settings (JSON-shaped)

    @property
    def name(self) -> str:
        return PREFIX + self.mapping


@dataclass
class ExportReport:
    """What an export wrote: its mappings, the records skipped and why, the release and canary stamped."""

    harness: str
    output: Path
    mappings: list[MappingExport] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    release: str | None = None
    canary: str | None = None
    order: dict[str, int] = field(default_factory=dict)  # taxonomy position of each category and subcategory id

    def to_dict(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "output": str(self.output),
            "release": self.release,
            "canary": self.canary,
            "mappings": [{"name": m.name, "dataset": m.dataset, "mapping": m.mapping, "kind": m.kind,
                          "metric": m.metric, "scoring": m.scoring, "generation": m.generation,
                          "instances": m.instances, "data_file": m.data_file, "access": m.access,
                          "subcategories": m.subcategories, "categories": m.categories} for m in self.mappings],
            "skipped": self.skipped,
        }


def groups(report: ExportReport) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Task names per subcategory and per category, in taxonomy order as far as the export covers it."""
    subs: dict[str, list[str]] = {}
    cats: dict[str, list[str]] = {}
    for m in sorted(report.mappings, key=lambda m: m.name):
        for sub in m.subcategories:
            subs.setdefault(sub, []).append(m.name)
        for cat in m.categories:
            cats.setdefault(cat, []).append(m.name)

    def ordered(found: dict[str, list[str]]) -> dict[str, list[str]]:
        return {k: found[k] for k in sorted(found, key=lambda k: (report.order.get(k, len(report.order)), k))}

    return ordered(subs), ordered(cats)


def scoring_source() -> str:
    """The scoring functions every harness's files carry as `scoring.py`: the source of clinreg.scoring.medhelm."""
    return Path(medhelm.__file__).read_text(encoding="utf-8")


def header(report: ExportReport, what: str) -> str:
    """The comment lines atop a generated YAML file: what wrote it, from which release, and the canary."""
    return (f"# {what}, written by `clinreg export {report.harness}` (registry release {report.release}).\n"
            f"# {report.canary}\n")


def python_literal(value: Any) -> str:
    """A Python literal of JSON-shaped data (the JSON text with Python's spelling of null/true/false)."""
    return repr(json.loads(json.dumps(value)))


def example(report: ExportReport) -> str:
    """A group id to show in the README's commands: the first subcategory, else the first mapping."""
    subs, _ = groups(report)
    return next(iter(subs), report.mappings[0].name[len(PREFIX):])
