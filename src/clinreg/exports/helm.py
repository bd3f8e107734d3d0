"""The HELM export: a scenario plugin (`clinreg_helm.py`), run entries per access tier and a schema fragment that
places every run group in the taxonomy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from clinreg.exports.contents import (
    FILES, PREFIX, ExportReport, MappingExport, groups, header, python_literal, scoring_source, settings_not_sent,
)

NOT_SENT = {
    "reasoning_max_tokens": "the run entries give every model the record's max_tokens; MedHELM's give reasoning "
                            "models {n} tokens (add num_output_tokens={n} to a run entry)",
}


def write(staged: Path, report: ExportReport, registry: Any) -> str:
    """Write the scenario plugin, the run entries per access tier and the schema into `staged`; return the README's
    usage section."""
    subs, cats = groups(report)
    for m in report.mappings:
        m.not_sent = settings_not_sent(m, NOT_SENT)
    mappings = {m.mapping: {"dataset": m.dataset, "kind": m.kind, "data_file": m.data_file, "run_group": m.name,
                            "metric": m.metric, "scoring": m.scoring if helm_scores(m.scoring) else None,
                            "generation": m.generation,
                            "closed_instructions": m.closed_instructions() if m.kind == "choice" else None}
                for m in report.mappings}
    source = "\n".join([
        '"""HELM scenario and run spec function for clinreg exports, written by `clinreg export helm`."""',
        f"# {report.canary}",
        "",
        scoring_source(),
        (FILES / "helm_scenario.py").read_text(encoding="utf-8"),
        "",
        f"MAPPINGS = {python_literal(mappings)}",
        "",
    ])
    (staged / "clinreg_helm.py").write_text(source, encoding="utf-8")
    for tier in sorted({m.access for m in report.mappings}):
        entries = [{"description": f"clinreg:mapping={m.mapping},model=text", "priority": 1}
                   for m in report.mappings if m.access == tier]
        # JSON is valid HOCON, which HELM reads run entries with, and valid YAML.
        text = json.dumps({"entries": entries}, indent=2, allow_nan=False)
        (staged / f"run_entries_clinreg_{tier}.conf").write_text(text + "\n", encoding="utf-8")
    (staged / "schema_clinreg.yaml").write_text(
        header(report, "HELM schema fragment") + yaml.safe_dump(schema(report, registry, subs, cats), sort_keys=False,
                                                             allow_unicode=True, width=1000),
        encoding="utf-8",
    )
    out = report.output.resolve()
    confs = " ".join(f"{out}/run_entries_clinreg_{tier}.conf" for tier in sorted({m.access for m in report.mappings}))
    return USAGE.format(out=out, confs=confs)


def schema(report: ExportReport, registry: Any, subs: dict, cats: dict) -> dict[str, Any]:
    """The schema fragment: run groups under their category and subcategory, named as MedHELM names them."""
    names = {c.id: c.name for c, _ in registry.ordered_categories()}
    sub_names = {s.id: (s.name, s.definition) for s, _, _, _ in registry.subcategories()}
    run_groups: list[dict[str, Any]] = [{
        "name": "clinreg", "display_name": "clinreg", "category": "All scenarios",
        "description": f"Clinical tasks of the clinreg registry (release {report.release})",
        "subgroups": [PREFIX + c for c in cats],
    }]
    for cat, members in cats.items():
        run_groups.append({"name": PREFIX + cat, "display_name": names.get(cat, cat), "category": "clinreg",
                           "description": f"Category {names.get(cat, cat)}",
                           "subgroups": [PREFIX + s for s in subs if any(n in members for n in subs[s])]})
    for sub, members in subs.items():
        name, definition = sub_names.get(sub, (sub, sub))
        run_groups.append({"name": PREFIX + sub, "display_name": name, "category": "clinreg",
                           "description": " ".join(definition.split()), "subgroups": members})
    for m in report.mappings:
        mapping = _mapping(registry, m)
        # HELM heads its leaderboard columns `<display_name> - <metric>`: MedHELM's own name where HELM runs the
        # benchmark, so that `clinreg results import` reads HELM's leaderboard of the export back.
        display = mapping.helm_names[0] if mapping.helm_names else m.name
        run_groups.append({
            "name": m.name, "display_name": display, "description": f"clinreg mapping {m.dataset}/{m.mapping}",
            "metric_groups": ["accuracy", "efficiency", "general_information"],
            "environment": {"main_name": main_metric(m), "main_split": "test"},
            "taxonomy": {"task": ", ".join(m.subcategories), "what": m.dataset, "who": "n/a", "when": "n/a",
                         "language": "English"},
        })
    main = {main_metric(m): m for m in report.mappings}
    metrics = []
    for name, m in sorted(main.items()):
        label = METRIC_NAMES.get(name) or _mapping(registry, m).metric.display or name
        metrics.append({"name": name, "display_name": label, "short_display_name": label, "lower_is_better": False,
                        "description": METRIC_NOTES.get(name, f"The main metric of {m.dataset}/{m.mapping}.")})
    metrics += [{"name": name, "display_name": display, "description": display} for name, display in INFO_METRICS]
    metric_groups = [
        {"name": "accuracy", "display_name": "Accuracy",
         "metrics": [{"name": "${main_name}", "split": "${main_split}"}]},
        {"name": "efficiency", "display_name": "Efficiency",
         "metrics": [{"name": "inference_runtime", "split": "${main_split}"}]},
        {"name": "general_information", "display_name": "General information", "hide_win_rates": True,
         "metrics": [{"name": name, "split": "${main_split}"} for name, _ in INFO_METRICS
                     if name != "inference_runtime"]},
    ]
    # Complete on its own (metrics, perturbations, metric groups, run groups): `helm-summarize --schema-path` reads it.
    return {"metrics": metrics, "perturbations": [], "metric_groups": metric_groups, "run_groups": run_groups}

METRIC_NAMES = {"exact_match": "EM", "f1_score": "Token F1 (not MedHELM's jury)"}
METRIC_NOTES = {
    "exact_match": "The letter answered equals the gold letter.",
    "f1_score": "Token-overlap F1 against the reference: a stand-in that `clinreg results import` does not rank.",
}
INFO_METRICS = [("num_instances", "# eval"), ("num_train_instances", "# train"), ("prompt_truncated", "truncated"),
                ("num_prompt_tokens", "# prompt tokens"), ("num_output_tokens", "# output tokens"),
                ("inference_runtime", "Observed inference time (s)")]


def _mapping(registry: Any, m: MappingExport) -> Any:
    """The record's mapping behind an exported one."""
    return next(x for x in registry.datasets[m.dataset].mappings if x.id == m.mapping)


def main_metric(m: MappingExport) -> str:
    """The stat a HELM run of the mapping reports as its main score: the record's own metric for a number task."""
    if m.kind == "text" and not helm_scores(m.scoring):
        return "f1_score"
    return {"choice": "exact_match", "number": m.metric, "text": m.metric}[m.kind]


def helm_scores(scoring: dict[str, Any] | None) -> bool:
    """Whether HELM has classes for a free-text scoring: a jury needs HELM's annotator for the benchmark, the
    other methods HELM's metric class. Without them (a benchmark HELM does not run) HELM reports token F1 only."""
    if not scoring:
        return False
    if scoring["method"] == "jury":
        return bool(scoring["jury"].get("helm_annotator"))
    if scoring["method"] == "rubric":  # medhelm's annotator; with plain crfm-helm the run warns and reports F1 only
        return bool(scoring["rubric"].get("helm_annotator"))
    return bool(scoring.get("helm_metric"))

USAGE = """HELM loads the scenario of this folder as a plugin (`--plugins clinreg_helm`, with this folder on
`PYTHONPATH`). Run it on a model, then let HELM summarise the suite with the schema written here, which is
complete on its own:

```
PYTHONPATH={out} helm-run --plugins clinreg_helm --conf-paths {confs} --suite clinreg --max-eval-instances 1000 \
--models-to-run MODEL
helm-summarize --suite clinreg --schema-path {out}/schema_clinreg.yaml --num-threads 1
clinreg results import benchmark_output/runs/clinreg -o results.json
```

`--num-threads 1` keeps `helm-summarize` to one thread: on CPython 3.11.7 its threads compile templates at the
same time and can fail with "AST constructor recursion depth mismatch" (a CPython bug, seen in CI).

There is one run-entries file per access tier. Every task's adapter carries the record's generation settings
(MedHELM's): instructions, `max_tokens`, temperature, stop sequences and `num_outputs`. Closed tasks use HELM's
joint multiple-choice adapter: MedHELM's instructions (clinreg's letter instruction where the record gives none),
the question, the lettered options, `Answer:`, and the spec's five outputs as MedHELM's run spec gives them, which
HELM's adapter sends as it sends MedHELM's: one completion, `top_k_per_token` 5 and no stop sequence (HELM reports
`exact_match@5` beside); number tasks are scored by the accepted
range under the benchmark's own metric name (as the other exports score them). Free-text tasks run HELM's own
classes, named by the record: for a jury benchmark, HELM's annotator for that benchmark (HELM's rubric) and
HELM's `LLMJuryMetric` with MedHELM's `default_score=1.0`, the mean of every judge's rating on every axis (1.0
when no judge rated), with `clinreg_jury_*` stats beside it counting the replies dropped, the ratings missing or
irregular and the defaults used; for HealthBench's rubric grading, what medhelm 0.8.0's `health_bench` run
spec runs: the conversation's turns as chat messages (HELM's chat adapter, which sends no instructions), at
temperature 0 and 512 tokens, medhelm's annotator (installed with the `medhelm` package; plain crfm-helm lacks
it, and the run then warns and reports token F1 only) with the three judges of medhelm's `judges.yaml` (or the
jury file a run entry's `,judges=PATH` names), and `LLMJuryMetric` averaging them: MedHELM's
`health_bench_score`, which counts a met negative criterion as 10 plus its points, so it is not HealthBench's
own score (the Inspect export's `healthbench_simple_evals_score`); for EHRSQL, billing codes and MEDEC, HELM's
metric class (EHRSQL's queries run
through clinreg's annotator, which compares with the row's `value`s when the gold query returns no rows, as
HELM's does, but read-only, with the record's time limit, against the record's SQLite database under
`CLINREG_DATA_DIR`). The judges are the record's (MedHELM's
three, on HELM's `stanfordhealthcare/...` deployments); to use others, write a judges file in HELM's format
(`judges: [{{name, model, model_deployment}}]`) and set `CLINREG_HELM_JUDGES=PATH` for `helm-run`, or add
`,judges=PATH` to a run entry. Cost: one call per judge per instance (three with the default jury).
`schema_clinreg.yaml` places every run group under its category and subcategory, and names each benchmark
as MedHELM does, so `clinreg results import` also reads HELM's leaderboard
(`benchmark_output/runs/clinreg/groups/clinreg.json`)."""
