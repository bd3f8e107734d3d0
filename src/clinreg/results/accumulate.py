"""What one import accumulates (scores, published win rates, findings) and the name lookups every reader shares."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clinreg.core.codes import CODES
from clinreg.core.diagnostics import Diagnostic, make
from clinreg.results.index import Ambiguous, Benchmark, BenchmarkIndex
from clinreg.results.provenance import export_folder_of
from clinreg.results.score import ReportedWinRate, Score


@dataclass
class Findings:
    """Located problems gathered while reading; every reader reports all it finds before giving up."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    # Scores read beside a benchmark's main metric and never ranked as it: lm-eval's token-overlap stand-in for a
    # jury score, each {"model", "record", "mapping", "metric", "value", "source"}.
    stand_ins: list[dict[str, Any]] = field(default_factory=list)
    # Names of one model merged through the alias table: [{"model": id, "names": [{"kind", "name", "files"}]}].
    merged: list[dict[str, Any]] = field(default_factory=list)

    def add(self, code: str, file: str, line: int, column: int, message: str, hint: str | None = None,
            severity: str | None = None) -> None:
        """Record a finding at its strict severity (an error) unless `severity` says otherwise; the import leaves
        the source or score out and prints it at the code's default severity unless it stops (see
        clinreg.core.codes.results)."""
        self.diagnostics.append(make(code, file, line, column, message, hint,  # type: ignore[arg-type]
                                     severity or CODES[code].severity_in(strict=True)))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def unreadable(self) -> bool:
        return any(d.code == "CLR961" for d in self.diagnostics)


class Reading:
    """State shared by the readers of one import: the registry's benchmarks, the findings, what was read."""

    def __init__(self, index: BenchmarkIndex):
        self.index = index
        self.findings = Findings()
        self.scores: list[Score] = []
        self.reported: list[ReportedWinRate] = []
        self.export_folders: set[str] = set()  # export folders a harness run points into, where they are here

    def points_into(self, data_file: Any) -> None:
        """Note the export folder of a data file a run names (`<export>/data/<record>/<mapping>.jsonl`)."""
        folder = export_folder_of(data_file) if isinstance(data_file, str) and data_file else None
        if folder is not None:
            self.export_folders.add(str(folder))

    def error(self, code: str, file: str, line: int, column: int, message: str, hint: str | None = None) -> None:
        self.findings.add(code, file, line, column, message, hint)

    def score(self, b: Benchmark, model: str, value: float, source: dict[str, Any], n: int | None = None,
              stderr: float | None = None, per_instance: dict[str, Any] | None = None,
              jury: dict[str, Any] | None = None, provenance: dict[str, Any] | None = None,
              metric: str | None = None) -> None:
        """Add a score on the benchmark's main metric, or on `metric` (another the benchmark accepts as its own
        metric, Benchmark.other_metric): a score that says which, never taken for the main one."""
        m = b.mapping
        from_registry = n is None and m.instances.evaluated is not None
        self.scores.append(Score(
            model=model, record=b.record.id, mapping=m.id, metric=metric or m.metric.name, value=value,
            range=list(m.metric.range) if m.metric.range else None,
            n_instances=m.instances.evaluated if from_registry else n,
            n_instances_from="registry" if from_registry else ("results" if n is not None else None),
            source=source, stderr=stderr, per_instance=per_instance, jury=jury, provenance=provenance))


def task_benchmark(reading: Reading, task: str, file: str, where: tuple[int, int]) -> Benchmark | None:
    try:
        b = reading.index.by_task_name(task)
    except Ambiguous as exc:
        reading.error("CLR964", file, *where, f"task {task!r} matches several benchmarks: {exc}")
        return None
    if b is None:
        reading.error("CLR963", file, *where, f"task {task!r} is no benchmark of the registry",
                      "task names are the mapping id, optionally prefixed clinreg_ (e.g. clinreg_med_qa)")
    return b


def stand_in_hint(b: Benchmark) -> str | None:
    if b.mapping.metric.range and list(b.mapping.metric.range) == [1, 5]:
        return ("this benchmark is scored by MedHELM's 1-5 LLM jury; a token-overlap score from an export is a "
                "stand-in on another scale, so it is not ranked as the jury score")
    return None


def checked_jury(value: Any) -> dict[str, Any] | None | bool:
    """A jury identity as a results source gives it: {"rubric": text, "judges": {name: model}}; False if malformed."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("rubric"), str) or not value["rubric"] \
            or not isinstance(value.get("judges"), dict) or not value["judges"] \
            or not all(isinstance(k, str) and isinstance(v, str) and v for k, v in value["judges"].items()):
        return False
    return {"rubric": value["rubric"][:300], "judges": {k[:100]: v[:300] for k, v in value["judges"].items()}}


PROVENANCE_TEXT = ("harness", "harness_version", "export", "instance_set", "registry_release", "edition", "data_file",
                   "model_type", "model_name")


def checked_provenance(value: Any) -> dict[str, Any]:
    """A score's provenance as a results file gives it, kept only where well-formed (anything else is unknown):
    short texts for the PROVENANCE_TEXT keys, `generation` a flat object of settings, `published` {id, date, source}."""
    if not isinstance(value, dict):
        return {}
    out: dict[str, Any] = {k: value[k][:300] for k in PROVENANCE_TEXT if isinstance(value.get(k), str) and value[k]}
    generation = value.get("generation")
    if isinstance(generation, dict):
        out["generation"] = {str(k)[:100]: v if not isinstance(v, str) else v[:300] for k, v in
                             list(generation.items())[:50] if v is None or isinstance(v, (str, int, float, bool))}
    published = value.get("published")
    if isinstance(published, dict) and isinstance(published.get("id"), str):
        out["published"] = {k: published[k][:300] for k in ("id", "date", "source")
                            if isinstance(published.get(k), str)}
    return out
