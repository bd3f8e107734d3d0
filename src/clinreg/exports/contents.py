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
# A closed task's prompt in every export: MedHELM's instructions (clinreg's LETTER_INSTRUCTION where the record
# gives none, or where MedHELM's adapter is not multiple choice and its instructions ask for something other than
# a letter), a blank line, the question, the lettered options and `Answer:`, as HELM's multiple-choice adapter lays
# it out. The reply scores as HELM's exact match scores it: the reply, stripped, is the gold letter (LETTER_PATTERN
# takes it whole, or nothing).
LETTER_INSTRUCTION = "Answer with the letter of the correct option."
LETTER_PATTERN = r"^\s*([A-Z])\s*$"


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
    # setting -> why this export's harness does not send it as MedHELM does (filled by the harness's writer)
    not_sent: dict[str, str] = field(default_factory=dict)
    medhelm_comparable: bool = True  # False for lm-eval's log-likelihood variant of a closed task

    @property
    def name(self) -> str:
        return PREFIX + self.mapping

    def closed_instructions(self) -> str:
        """The instruction a closed task's prompt opens with: MedHELM's, when its adapter is multiple choice and it
        gives some; else clinreg's LETTER_INSTRUCTION."""
        g = self.generation or {}
        return g.get("instructions") if g.get("adapter") == "multiple_choice" and g.get("instructions") \
            else LETTER_INSTRUCTION


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
    choice_scoring: str = "generate"  # lm-eval's closed tasks: "generate" (MedHELM's) or "loglikelihood"

    def to_dict(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "output": str(self.output),
            "release": self.release,
            "canary": self.canary,
            "mappings": [{"name": m.name, "dataset": m.dataset, "mapping": m.mapping, "kind": m.kind,
                          "metric": m.metric, "scoring": m.scoring, "generation": m.generation,
                          "instances": m.instances, "data_file": m.data_file, "access": m.access,
                          "subcategories": m.subcategories, "categories": m.categories,
                          "medhelm_comparable": m.medhelm_comparable, "settings_not_sent": m.not_sent}
                         for m in self.mappings],
            "choice_scoring": self.choice_scoring,
            "skipped": self.skipped,
        }


# HELM's joint multiple-choice adapter (MultipleChoiceJointAdapter.generate_requests, crfm-helm 0.5.16 and medhelm
# 0.8.0) builds each request with one completion and no stop sequences, whatever the adapter spec says: the spec's
# `num_outputs` becomes `top_k_per_token` (log-probabilities asked per token), and its stop sequences are not sent.
# So MedHELM's closed requests are one completion, no stop sequence; the exports that build their own requests send
# that, and the HELM export passes the spec as the run spec gives it (HELM then sends the same).
REQUEST_NOTE = ("One output and no stop sequence are what MedHELM's requests carry: HELM's joint multiple-choice "
                "adapter sends one completion and no stop sequence whatever its spec says, and the spec's num_outputs "
                "as top_k_per_token.")


def sent_generation(generation: dict[str, Any] | None) -> dict[str, Any] | None:
    """The settings MedHELM's requests actually carry: for the multiple-choice adapter, one output and no stop
    sequences (REQUEST_NOTE); the record's settings otherwise."""
    if not generation or generation.get("adapter") != "multiple_choice":
        return generation
    return {**generation, "stop": [], "num_outputs": 1, "request_note": REQUEST_NOTE}


def settings_not_sent(m: MappingExport, reasons: dict[str, str]) -> dict[str, str]:
    """setting -> why the harness does not send it as MedHELM does: `reasons` are the harness's, for the settings
    it cannot express (formatted with the record's value as `n`) where the record's value needs them."""
    g = sent_generation(m.generation) or {}
    out = {key: why.format(n=g[key]) for key, why in reasons.items() if g.get(key, 1) != 1}
    if m.kind == "choice" and g.get("instructions") and g.get("adapter") != "multiple_choice":
        out["instructions"] = ("MedHELM generates free text here and its instructions ask for an answer other than "
                               "the letter clinreg scores; clinreg's letter instruction is sent instead")
    return out


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
