"""Find the registry benchmark (record and mapping) behind a leaderboard column, a run group or a task name."""

from __future__ import annotations

from dataclasses import dataclass

from clinreg.core.model import Dataset, Mapping
from clinreg.core.store import Registry
from clinreg.errors import ClinregError
from clinreg.scoring import medhelm

# How HELM's MedHELM schema (src/helm/benchmark/static/schema_medhelm.yaml, every version from 2025-03-18 to
# 2026-01-27) labels the main metrics: each `display_name` and `short_display_name` a metric has had. The jury
# metrics were labelled Accuracy until HELM PR #3577 (2025-05-11) renamed them Jury Score. A leaderboard column
# is headed `<benchmark> - <metric>`; the metric part must be one of these labels, the mapping's
# `metric.display` or its `metric.name`, so that a score on another metric (v1's BERTScore) is never read as
# the main one.
def _jury(name: str) -> tuple[str, ...]:
    return (f"{name} Accuracy", "Accuracy", f"{name} Jury Score", "Jury Score")


HELM_METRIC_LABELS: dict[str, tuple[str, ...]] = {
    "exact_match": ("Exact match", "EM"),
    "medcalc_bench_accuracy": ("MedCalc Accuracy",),
    "medec_error_flag_accuracy": ("Medical Error Flag Accuracy", "MedecFlagAcc"),
    "ehr_sql_execution_accuracy": ("Execution accuracy for Generated Query", "EHRSQLExeAcc"),
    "mimiciv_billing_code_f1": ("F1 Score for MIMIC Billing Codes", "MIMICBillingF1"),
    "medalign_accuracy": _jury("Medalign"),
    "mtsamples_replicate_accuracy": _jury("MTSamples Replicate"),
    "starr_patient_instructions_accuracy": _jury("PatientInstruct"),
    "med_dialog_accuracy": _jury("MedDialog"),
    "medi_qa_accuracy": _jury("MediQA"),
    "mental_health_accuracy": _jury("MentalHealth"),
    "mimic_rrs_accuracy": _jury("MIMIC-RRS"),
    "mimic_bhc_accuracy": _jury("MIMIC-BHC"),
    "dischargeme_accuracy": _jury("DischargeMe"),
    "aci_bench_accuracy": _jury("ACI-Bench"),
    "chw_care_plan_accuracy": _jury("NoteExtract"),
    "mtsamples_procedures_accuracy": _jury("MTSamples Procedures"),
    "medication_qa_accuracy": _jury("MedicationQA"),
}

# Metric names other harnesses use for the same quantity on the same scale. lm-eval calls the share of exact
# answers `acc` or `exact_match`; Inspect's `accuracy` metric is the mean of correct (1) and incorrect (0)
# sample scores. clinreg's exports score a number answer as inside the gold range or not (`range_accuracy` in
# lm-eval, the `numeric_range` scorer in Inspect), as MedCalc-Bench's accuracy does. `scorer/metric` names an
# Inspect scorer's metric. The exports' token-overlap F1 for open answers is deliberately absent: it stands in
# for, but is not, the 1-5 jury score, so it is refused rather than rescaled with the jury's range.
METRIC_ALIASES: dict[str, tuple[str, ...]] = {
    "exact_match": ("exact_match", "acc", "accuracy"),
    "medcalc_bench_accuracy": ("range_accuracy", "numeric_range/accuracy"),
}

TASK_PREFIXES = ("clinreg_", "clinreg/", "clinreg.", "clinreg-")


@dataclass(frozen=True)
class Benchmark:
    record: Dataset
    mapping: Mapping

    @property
    def key(self) -> str:
        return f"{self.record.id}/{self.mapping.id}"

    def metric_labels(self) -> set[str]:
        m = self.mapping.metric
        labels = {m.name, *HELM_METRIC_LABELS.get(m.name, ())}
        if m.display:
            labels.add(m.display)
        return {label.casefold() for label in labels}

    def accepts_metric(self, name: str) -> bool:
        """Whether a harness metric called `name` is this benchmark's main metric."""
        own = self.mapping.metric.name
        names = {own, *METRIC_ALIASES.get(own, ())}
        scoring = self.mapping.scoring
        if scoring is not None:  # the Inspect export's scorers: the jury's mean, or MedHELM's own metric
            names.add("jury/jury_mean" if scoring.method == "jury" else "medhelm_metric/mean")
        return name.casefold() in {a.casefold() for a in names}

    def other_metric(self, name: str) -> str | None:
        """The metric a harness metric called `name` is, where it is not the main metric but clinreg imports it
        as a metric of its own, never ranked as the main one: HealthBench's own score (simple-evals', the Inspect
        export's rubric_grader) on a rubric benchmark, whose main metric is MedHELM's. None for anything else."""
        scoring = self.mapping.scoring
        own = medhelm.HEALTHBENCH_METRIC
        if scoring is not None and scoring.method == "rubric" and own != self.mapping.metric.name \
                and name.casefold() in (own, f"rubric_grader/{own}"):
            return own
        return None


class Ambiguous(ClinregError):
    """A truncated name that matches several benchmarks (CLR964); `candidates` are their keys."""

    default_code = "CLR964"

    def __init__(self, candidates: list[Benchmark]):
        super().__init__(", ".join(sorted(b.key for b in candidates)))
        self.candidates = candidates


class BenchmarkIndex:
    """Every benchmark of a loaded registry, found by key, by HELM display name or by a harness task name."""

    def __init__(self, reg: Registry):
        self.reg = reg
        self.benchmarks: dict[str, Benchmark] = {}
        self._names: dict[str, set[str]] = {}
        for record in sorted(reg.datasets.values(), key=lambda d: d.id):
            for mapping in record.mappings:
                b = Benchmark(record, mapping)
                self.benchmarks[b.key] = b
                names = {mapping.id, f"{record.id}_{mapping.id}", f"{record.id}/{mapping.id}",
                         f"{record.id}.{mapping.id}", f"{record.id}__{mapping.id}"}
                if len(record.mappings) == 1:
                    names.add(record.id)
                for name in names:
                    self._names.setdefault(name.casefold(), set()).add(b.key)

    def get(self, record: str, mapping: str) -> Benchmark | None:
        return self.benchmarks.get(f"{record}/{mapping}")

    def by_task_name(self, name: str) -> Benchmark | None:
        """A harness task or HELM run-group name: the mapping id, `<record>_<mapping>`, with or without `clinreg_`."""
        tries = [name]
        for prefix in TASK_PREFIXES:
            if name.casefold().startswith(prefix):
                tries.append(name[len(prefix):])
        found: set[str] = set()
        for t in tries:
            keys = self._names.get(t.casefold())
            if keys:
                found |= keys
                break
        if len(found) > 1:
            raise Ambiguous([self.benchmarks[k] for k in found])
        return self.benchmarks[found.pop()] if found else None

    def by_header(self, header: str) -> tuple[list[Benchmark], list[Benchmark]]:
        """(matches, benchmarks whose name matched but whose metric did not) for a leaderboard column header.

        A header is `<benchmark display name> - <metric display name>`; HELM's front end cuts headers longer
        than 30 characters to 27 and `...`, so a header ending in `...` matches by prefix.
        """
        text = " ".join(header.split()).casefold()
        truncated = text.endswith("...")
        prefix = text[:-3].rstrip() if truncated else text
        matches, name_only = [], []
        for b in self.benchmarks.values():
            labels = b.metric_labels()
            names = [n.casefold() for n in (*b.mapping.helm_names, b.mapping.id, f"clinreg_{b.mapping.id}")]
            if truncated:
                hit = any(f"{n} - {label}".startswith(prefix) for n in names for label in labels)
                named = any(n.startswith(prefix) or prefix.startswith(n + " - ") for n in names)
            else:
                hit = any(f"{n} - {label}" == text for n in names for label in labels)
                named = any(text.startswith(n + " - ") for n in names)
            if hit:
                matches.append(b)
            elif named:
                name_only.append(b)
        return matches, name_only
