"""`clinreg export`: built instances plus the task files that lm-evaluation-harness, Inspect AI or HELM run as they are."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from clinreg.core.model import FreeTextScheme, NumberScheme
from clinreg.sources.errors import BuildError

HARNESSES = ("lm-eval", "inspect", "helm")
PREFIX = "clinreg_"
FILES = Path(__file__).parent / "harness_files"


class ExportProblem(BuildError):
    """An unknown dataset, an output in the way, nothing to export, or clashing names: a usage error."""

    exit_code = 2


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

    @property
    def name(self) -> str:
        return PREFIX + self.mapping


@dataclass
class ExportReport:
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
            "mappings": [{"name": m.name, "dataset": m.dataset, "mapping": m.mapping, "kind": m.kind, "metric": m.metric,
                          "scoring": m.scoring,
                          "instances": m.instances, "data_file": m.data_file, "access": m.access,
                          "subcategories": m.subcategories, "categories": m.categories} for m in self.mappings],
            "skipped": self.skipped,
        }


def scoring_spec(dataset_id: str, mapping: Any) -> dict[str, Any] | None:
    """A mapping's `scoring` as the exports carry it: JSON-shaped, with `rubric_id` naming the exact rubric (the
    jury's rubric, axes, scale and what it is shown) so that results from different rubrics are never ranked together."""
    if mapping.scoring is None:
        return None
    spec = mapping.scoring.model_dump(mode="json", exclude_none=True)
    if mapping.scoring.jury is not None:
        import hashlib

        jury = spec["jury"]
        rubric = json.dumps({k: jury[k] for k in ("rubric", "axes", "scale", "aggregate", "shows")}, sort_keys=True)
        spec["rubric_id"] = f"clinreg:{dataset_id}/{mapping.id}@{hashlib.sha256(rubric.encode()).hexdigest()[:12]}"
    return spec


def gold_kind(scheme: object) -> str:
    if isinstance(scheme, NumberScheme):
        return "number"
    if isinstance(scheme, FreeTextScheme):
        return "text"
    return "choice"


def export(
    registry: Any,
    harness: str,
    output: str | Path,
    datasets: list[str] | None = None,
    *,
    data_dir: str | Path | None = None,
    access: list[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    on_bad_label: str = "error",
    force: bool = False,
) -> ExportReport:
    """Build the chosen records and write a self-contained folder for `harness`; return what went in.

    Records named in `datasets` must build; without names, every record of the allowed access tiers is tried
    and the ones whose data is not at hand are listed in `skipped`.
    """
    from clinreg.instances.canonical import canonical_lines
    from clinreg.instances.build import RecordBuild
    from clinreg.instances.stamp import canary
    from clinreg.sources.locate import locate

    if harness not in HARNESSES:
        raise ValueError(f"unknown harness {harness!r} (choose from {', '.join(HARNESSES)})")
    output = Path(output)
    if output.exists() and not force:
        raise ExportProblem(f"{output} exists; refusing to overwrite it (use --force)")
    if output.exists() and not output.is_dir():
        raise ExportProblem(f"{output} exists and is not a folder")
    unknown = [d for d in datasets or [] if d not in registry.datasets]
    if unknown:
        raise ExportProblem(f"no dataset {unknown[0]!r} in the registry{_did_you_mean(unknown[0], registry.datasets)}")
    chosen = list(datasets) if datasets else sorted(registry.datasets)
    if access:
        chosen = [d for d in chosen if registry.datasets[d].access.tier in access]
    placement = _placement(registry)
    check_identifiers(registry, chosen, placement)
    report = ExportReport(harness, output, release=registry.current_release, canary=canary(registry))
    for category, _ in registry.ordered_categories():
        report.order.setdefault(category.id, len(report.order))
        for sub in category.subcategories:
            report.order.setdefault(sub.id, len(report.order))
    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}.", dir=output.parent))
    try:
        staged = work / "export"
        for dataset_id in chosen:
            record = registry.datasets[dataset_id]
            try:
                location = locate(record, data_dir, registry.root)
            except BuildError as err:
                if datasets:
                    raise
                report.skipped[dataset_id] = str(err)
                continue
            for mapping in record.mappings:
                rel = f"data/{dataset_id}/{mapping.id}.jsonl"
                target = staged / rel
                if not target.resolve().is_relative_to(staged.resolve()):  # ids are checked above; never trust one
                    raise ExportProblem(f"{dataset_id}/{mapping.id}: its data file would land outside the export")
                target.parent.mkdir(parents=True, exist_ok=True)
                made = RecordBuild(record, registry, mapping.id, limit=limit, seed=seed, on_bad_label=on_bad_label,
                                   location=location)
                count = 0
                with target.open("w", encoding="utf-8") as handle:
                    for line in canonical_lines(made.batches()):
                        handle.write(line)
                        count += 1
                subs = sorted({placement[t][0] for t in mapping.tasks if t in placement})
                cats = sorted({placement[t][1] for t in mapping.tasks if t in placement})
                report.mappings.append(MappingExport(dataset_id, mapping.id, gold_kind(mapping.label), rel, count,
                                                     record.access.tier, subs, cats, mapping.metric.name,
                                                     scoring_spec(dataset_id, mapping)))
        if not report.mappings:
            reasons = "; ".join(f"{k}: {v}" for k, v in sorted(report.skipped.items())[:3])
            raise ExportProblem(f"nothing to export: no chosen record could be built ({reasons or 'none chosen'})")
        _check_names(report, registry)
        WRITERS[harness](staged, report, registry)
        (staged / "manifest.json").write_text(json.dumps(report.to_dict() | {"output": None}, indent=2, allow_nan=False) + "\n",
                                              encoding="utf-8")
        from clinreg.exports.instance_files import replace_folder

        replace_folder(staged, output)
        return report
    finally:
        shutil.rmtree(work, ignore_errors=True)


# Every id an export writes into generated Python (function names, literals), YAML task names, HELM run entries
# (`clinreg:mapping=<id>,model=...`) and file paths (`data/<record>/<mapping>.jsonl`). validate refuses other ids
# (CLR202), but export must hold even for a record that never went through validate.
IDENTIFIER = re.compile(r"[a-z][a-z0-9_]{0,119}")


def check_identifiers(registry: Any, chosen: list[str], placement: dict[str, tuple[str, str]]) -> None:
    """Refuse, before anything is written, any record, mapping, subcategory or category id an export would write
    into generated code or paths that is not a plain snake_case identifier."""
    bad = []
    for dataset_id in chosen:
        record = registry.datasets[dataset_id]
        if not IDENTIFIER.fullmatch(record.id):
            bad.append(f"record id {record.id!r}")
        for mapping in record.mappings:
            if not IDENTIFIER.fullmatch(mapping.id):
                bad.append(f"{record.id}: mapping id {mapping.id!r}")
            for task in mapping.tasks:
                for group in placement.get(task, ()):
                    if not IDENTIFIER.fullmatch(group):
                        bad.append(f"{record.id}/{mapping.id}: subcategory or category id {group!r}")
    if bad:
        from clinreg.text.output import printable

        raise ExportProblem(f"{printable(bad[0], 200)} is not a snake_case identifier (CLR202), and an export writes it "
                            f"into code and paths; nothing was exported ({len(bad)} such id(s); run `clinreg validate`)")


def _did_you_mean(name: str, known: Any) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _placement(registry: Any) -> dict[str, tuple[str, str]]:
    """task id -> (subcategory id, category id)."""
    return {task_id: (entry.subcategory.id, entry.category.id) for task_id, entry in registry.tasks().items()}


def _groups(report: ExportReport) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Task names per subcategory and per category, in taxonomy order as far as the export covers it."""
    subs: dict[str, list[str]] = {}
    cats: dict[str, list[str]] = {}
    for m in sorted(report.mappings, key=lambda m: m.name):
        for sub in m.subcategories:
            subs.setdefault(sub, []).append(m.name)
        for cat in m.categories:
            cats.setdefault(cat, []).append(m.name)
    def ordered(groups: dict[str, list[str]]) -> dict[str, list[str]]:
        return {k: groups[k] for k in sorted(groups, key=lambda k: (report.order.get(k, len(report.order)), k))}

    return ordered(subs), ordered(cats)


def _check_names(report: ExportReport, registry: Any) -> None:
    """Task and group names share one namespace in lm-eval and HELM: a clash would silently run the wrong thing."""
    subs, cats = _groups(report)
    seen: dict[str, str] = {}
    for kind, names in (("mapping", [m.name for m in report.mappings]), ("subcategory", [PREFIX + s for s in subs]),
                        ("category", [PREFIX + c for c in cats])):
        for name in names:
            if name in seen and not (kind == seen[name] == "subcategory"):
                raise ExportProblem(f"{name} names both a {seen[name]} and a {kind}; rename one to export")
            seen[name] = kind


def _scoring_source() -> str:
    return (FILES / "scoring.py").read_text(encoding="utf-8")


def _header(report: ExportReport, what: str) -> str:
    return (f"# {what}, written by `clinreg export {report.harness}` (registry release {report.release}).\n"
            f"# {report.canary}\n")


# ------------------------------------------------------------------------------------------------ lm-eval


class _Function(str):
    """A YAML scalar written with lm-eval's `!function` tag."""


class _LmEvalDumper(yaml.SafeDumper):
    pass


_LmEvalDumper.add_representer(_Function, lambda dumper, value: dumper.represent_scalar("!function", str(value)))

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LM_EVAL_METRICS = {"choice": "acc", "number": "range_accuracy", "text": "reference_f1"}


def _lm_eval_task(m: MappingExport, data_path: Path, canary_text: str | None) -> dict[str, Any]:
    task: dict[str, Any] = {
        "task": m.name,
        "tag": ["clinreg"],
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(data_path)}},
        "test_split": "test",
    }
    metrics = [_LM_EVAL_METRICS[m.kind], "score"]
    if m.kind == "text" and m.scoring and m.scoring["method"] != "jury":
        metrics.insert(0, m.metric)
    if m.kind == "choice":
        task.update({
            "output_type": "multiple_choice",
            "doc_to_text": "{{prompt}}\nAnswer:",
            "doc_to_choice": "{{ '" + _LETTERS + "'[:choices|length] | list }}",
            "doc_to_target": "{{gold.index}}",
            "process_results": _Function("utils.process_choice"),
        })
    else:
        task.update({
            "output_type": "generate_until",
            "doc_to_text": "{{prompt}}",
            "doc_to_target": "{{gold.value}}",
            "generation_kwargs": {"until": ["\n\n"] if m.kind == "number" else [], "do_sample": False,
                                  "max_gen_toks": 64 if m.kind == "number" else 1024},
            "process_results": _Function(f"utils.process_{m.kind}"),
        })
    task["metric_list"] = [{"metric": name, "aggregation": "mean", "higher_is_better": True} for name in metrics]
    task["metadata"] = {"version": 1.0, "dataset": m.dataset, "mapping": m.mapping, "canary": canary_text}
    return task


def _write_lm_eval(staged: Path, report: ExportReport, registry: Any) -> None:
    final = report.output.resolve()
    tasks, groups = staged / "tasks", staged / "groups"
    tasks.mkdir(parents=True)
    groups.mkdir()
    header = _header(report, "lm-evaluation-harness task")
    for m in report.mappings:
        body = yaml.dump(_lm_eval_task(m, final / m.data_file, report.canary), Dumper=_LmEvalDumper, sort_keys=False,
                         allow_unicode=True, width=1000)
        (tasks / f"{m.name}.yaml").write_text(header + body, encoding="utf-8")
    scoring = {m.mapping: m.scoring for m in report.mappings if m.scoring}
    metric_names = {m.mapping: m.metric for m in report.mappings}
    utils = (_scoring_source() + (FILES / "lm_eval_utils.py").read_text(encoding="utf-8")
             + f"\n\nSCORING = {_py(scoring)}\nMETRICS = {_py(metric_names)}\n")
    (tasks / "utils.py").write_text(utils, encoding="utf-8")
    subs, cats = _groups(report)
    for kind, members in (("subcategory", subs), ("category", cats)):
        for group_id, names in members.items():
            group = {
                "group": PREFIX + group_id,
                "task": names,
                # The mean over benchmarks, as MedHELM reports a subcategory; `score` is each task's main metric.
                "aggregate_metric_list": [{"metric": "score", "aggregation": "mean", "weight_by_size": False}],
                "metadata": {"version": 1.0, "taxonomy_level": kind, "canary": report.canary},
            }
            text = yaml.safe_dump(group, sort_keys=False, allow_unicode=True, width=1000)
            (groups / f"{PREFIX}{group_id}.yaml").write_text(_header(report, f"lm-eval {kind} group") + text, encoding="utf-8")
    _readme(staged, report, LM_EVAL_USAGE.format(out=final, example=_example(report)))


# ------------------------------------------------------------------------------------------------ Inspect AI


def _write_inspect(staged: Path, report: ExportReport, registry: Any) -> None:
    subs, cats = _groups(report)
    mappings = {m.name: {"dataset": m.dataset, "mapping": m.mapping, "kind": m.kind, "data_file": m.data_file,
                         "instances": m.instances, "subcategories": m.subcategories, "categories": m.categories,
                         "metric": m.metric, "scoring": m.scoring, "canary": report.canary} for m in report.mappings}
    lines = [
        f'"""Inspect AI tasks for {len(mappings)} clinreg mapping(s), written by `clinreg export inspect`.',
        "",
        "Run one: inspect eval clinreg_tasks.py@<task>. Run a subcategory from Python:",
        'inspect_ai.eval(tasks_in("<subcategory id>"), model=...). Needs only inspect_ai, not clinreg.',
        f"{report.canary}",
        '"""',
        "",
        _scoring_source(),
        (FILES / "inspect_tasks.py").read_text(encoding="utf-8"),
        "",
        f"MAPPINGS = {_py(mappings)}",
        f"SUBCATEGORIES = {_py(subs)}",
        f"CATEGORIES = {_py(cats)}",
        f"CANARY = {report.canary!r}",
        "",
    ]
    for m in report.mappings:
        if m.scoring and m.scoring["method"] == "jury":
            # `judges`: comma-separated models replacing the record's judges (`-T judges=...`); model roles
            # `judge_<name>` replace one judge each.
            lines += ["", "@task", f"def {m.name}(judges=None):",
                      f"    return clinreg_task({m.name!r}, {m.kind!r}, {m.data_file!r}, judges)", ""]
        else:
            lines += ["", "@task", f"def {m.name}():", f"    return clinreg_task({m.name!r}, {m.kind!r}, {m.data_file!r})", ""]
    (staged / "clinreg_tasks.py").write_text("\n".join(lines), encoding="utf-8")
    _readme(staged, report, INSPECT_USAGE.format(out=report.output.resolve(), example=_example(report)))


def _py(value: Any) -> str:
    """A Python literal of JSON-shaped data (the JSON text with Python's spelling of null/true/false)."""
    return repr(json.loads(json.dumps(value)))


# ------------------------------------------------------------------------------------------------ HELM


def _write_helm(staged: Path, report: ExportReport, registry: Any) -> None:
    subs, cats = _groups(report)
    mappings = {m.mapping: {"dataset": m.dataset, "kind": m.kind, "data_file": m.data_file, "run_group": m.name,
                            "metric": m.metric, "scoring": m.scoring if helm_scores(m.scoring) else None}
                for m in report.mappings}
    source = "\n".join([
        '"""HELM scenario and run spec function for clinreg exports, written by `clinreg export helm`."""',
        f"# {report.canary}",
        "",
        _scoring_source(),
        (FILES / "helm_scenario.py").read_text(encoding="utf-8"),
        "",
        f"MAPPINGS = {_py(mappings)}",
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
        _header(report, "HELM schema fragment") + yaml.safe_dump(_helm_schema(report, registry, subs, cats), sort_keys=False,
                                                                  allow_unicode=True, width=1000),
        encoding="utf-8",
    )
    out = report.output.resolve()
    confs = " ".join(f"{out}/run_entries_clinreg_{tier}.conf" for tier in sorted({m.access for m in report.mappings}))
    _readme(staged, report, HELM_USAGE.format(out=out, confs=confs))


def _helm_schema(report: ExportReport, registry: Any, subs: dict, cats: dict) -> dict[str, Any]:
    names = {c.id: c.name for c, _ in registry.ordered_categories()}
    sub_names = {s.id: (s.name, s.definition) for s, _, _, _ in registry.subcategories()}
    groups: list[dict[str, Any]] = [{
        "name": "clinreg", "display_name": "clinreg", "category": "All scenarios",
        "description": f"Clinical tasks of the clinreg registry (release {report.release})",
        "subgroups": [PREFIX + c for c in cats],
    }]
    for cat, members in cats.items():
        groups.append({"name": PREFIX + cat, "display_name": names.get(cat, cat), "category": "clinreg",
                       "description": f"Category {names.get(cat, cat)}",
                       "subgroups": [PREFIX + s for s in subs if any(n in members for n in subs[s])]})
    for sub, members in subs.items():
        name, definition = sub_names.get(sub, (sub, sub))
        groups.append({"name": PREFIX + sub, "display_name": name, "category": "clinreg",
                       "description": " ".join(definition.split()), "subgroups": members})
    for m in report.mappings:
        mapping = _mapping(registry, m)
        # HELM heads its leaderboard columns `<display_name> - <metric>`: MedHELM's own name where HELM runs the
        # benchmark, so that `clinreg results import` reads HELM's leaderboard of the export back.
        display = mapping.helm_names[0] if mapping.helm_names else m.name
        groups.append({
            "name": m.name, "display_name": display, "description": f"clinreg mapping {m.dataset}/{m.mapping}",
            "metric_groups": ["accuracy", "efficiency", "general_information"],
            "environment": {"main_name": _helm_main_metric(m), "main_split": "test"},
            "taxonomy": {"task": ", ".join(m.subcategories), "what": m.dataset, "who": "n/a", "when": "n/a", "language": "English"},
        })
    main = {_helm_main_metric(m): m for m in report.mappings}
    metrics = []
    for name, m in sorted(main.items()):
        label = HELM_METRIC_NAMES.get(name) or _mapping(registry, m).metric.display or name
        metrics.append({"name": name, "display_name": label, "short_display_name": label, "lower_is_better": False,
                        "description": HELM_METRIC_NOTES.get(name, f"The main metric of {m.dataset}/{m.mapping}.")})
    metrics += [{"name": name, "display_name": display, "description": display} for name, display in HELM_INFO_METRICS]
    metric_groups = [
        {"name": "accuracy", "display_name": "Accuracy", "metrics": [{"name": "${main_name}", "split": "${main_split}"}]},
        {"name": "efficiency", "display_name": "Efficiency", "metrics": [{"name": "inference_runtime", "split": "${main_split}"}]},
        {"name": "general_information", "display_name": "General information", "hide_win_rates": True,
         "metrics": [{"name": name, "split": "${main_split}"} for name, _ in HELM_INFO_METRICS if name != "inference_runtime"]},
    ]
    # Complete on its own (metrics, perturbations, metric groups, run groups): `helm-summarize --schema-path` reads it.
    return {"metrics": metrics, "perturbations": [], "metric_groups": metric_groups, "run_groups": groups}


HELM_METRIC_NAMES = {"exact_match": "EM", "f1_score": "Token F1 (not MedHELM's jury)"}
HELM_METRIC_NOTES = {
    "exact_match": "The letter answered equals the gold letter.",
    "f1_score": "Token-overlap F1 against the reference: a stand-in that `clinreg results import` does not rank.",
}
HELM_INFO_METRICS = [("num_instances", "# eval"), ("num_train_instances", "# train"), ("prompt_truncated", "truncated"),
                     ("num_prompt_tokens", "# prompt tokens"), ("num_output_tokens", "# output tokens"),
                     ("inference_runtime", "Observed inference time (s)")]


def _mapping(registry: Any, m: MappingExport) -> Any:
    """The record's mapping behind an exported one."""
    return next(x for x in registry.datasets[m.dataset].mappings if x.id == m.mapping)


def _helm_main_metric(m: MappingExport) -> str:
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
    return bool(scoring.get("helm_metric"))


# ------------------------------------------------------------------------------------------------ docs


def _example(report: ExportReport) -> str:
    subs, _ = _groups(report)
    return next(iter(subs), report.mappings[0].name[len(PREFIX):])


def _readme(staged: Path, report: ExportReport, usage: str) -> None:
    rows = "\n".join(f"| {m.name} | {m.dataset} | {m.kind} | {m.instances} | {', '.join(m.subcategories)} |" for m in report.mappings)
    from clinreg.reports.markdown import escape

    # Skip reasons quote paths and record text: escaped, one line each, never live Markdown.
    skipped = "\n".join(f"- {escape(k)}: {escape(v)}" for k, v in sorted(report.skipped.items())) or "- none"
    text = EXPORT_README.format(harness=report.harness, release=report.release, canary=report.canary, rows=rows,
                                skipped=skipped, usage=usage)
    (staged / "README.md").write_text(text, encoding="utf-8")


EXPORT_README = """# clinreg export for {harness}

Written by `clinreg export {harness}` from registry release {release}. Each line of `data/<dataset>/<mapping>.jsonl`
is one clinreg instance (schema 2: `input`, `choices`, `gold`, `references`, `context`, `provenance`).

Canary, also in every instance: `{canary}`. Keep these files out of training data; search corpora for the GUID.

| task | dataset | scored as | instances | subcategories |
|---|---|---|---|---|
{rows}

Not exported (no data at hand):
{skipped}

## Running it

{usage}
"""

LM_EVAL_USAGE = """```
lm_eval --model hf --model_args pretrained=MODEL --include_path {out} --tasks clinreg_{example}
```

One task per mapping (`tasks/clinreg_<mapping>.yaml`), one group per subcategory and per category
(`groups/clinreg_<id>.yaml`). Groups report `score`, the mean over their tasks of each task's main metric:
`acc` for closed tasks (the option with the highest loglikelihood), `range_accuracy` for number tasks (the
first number of the answer inside the accepted range), and for free-text tasks MedHELM's own metric where it
needs no judge (EHRSQL's execution accuracy, with `CLINREG_DATA_DIR` set to the folder holding the record's
SQLite database; billing-code F1; MEDEC's error flag). lm-eval has no judge, so a benchmark MedHELM scores with
its LLM jury reports only `reference_f1` (token-overlap F1 against the reference), a stand-in that `clinreg
results import` keeps beside the results, never as the jury score: run the Inspect or HELM export for those.
The task files name their data by absolute path: if you move this folder, export again."""

INSPECT_USAGE = """```
inspect eval {out}/clinreg_tasks.py@clinreg_<mapping> --model MODEL
python -c "import sys; sys.path.insert(0, '{out}'); import inspect_ai, clinreg_tasks as t; inspect_ai.eval(t.tasks_in('{example}'), model='MODEL')"
```

Closed tasks give the stem as `input` and the options as `choices` (solver `multiple_choice()`, scorer
`choice()`); number tasks use `numeric_range()`. Free-text tasks are scored as MedHELM scores them, with
token-overlap F1 (`reference_overlap()`) reported beside as a cheap check:
- `jury()`: MedHELM's LLM jury. Each judge reads the record's rubric (in clinreg's words), the texts the jury
  is shown and the axes, and replies with JSON; the score is the mean of every judge's rating on every axis
  (1-5). The judges are the record's (MedHELM's GPT-4o, Llama 3.3 70B and Claude 3.7 Sonnet): bind others as
  model roles (`--model-role judge_gpt=MODEL`, `judge_llama`, `judge_claude`) or all at once with
  `-T judges=MODEL[,MODEL,MODEL]`. A rating that is missing, not a whole number or off the scale is counted
  (`ratings_missing`), never guessed; a sample no judge rated is left out of the mean and counted (`unrated`).
  Cost: one call per judge per instance, so three judge calls per instance with the default jury.
- `medhelm_metric()`: EHRSQL's execution accuracy (the predicted and gold queries run read-only, with the
  record's time limit, against the record's SQLite database under `CLINREG_DATA_DIR`), billing-code F1 or
  MEDEC's error flag.

`SUBCATEGORIES` and `CATEGORIES` list the task names of each group; `tasks_in(id)` builds them."""

HELM_USAGE = """HELM loads the scenario of this folder as a plugin (`--plugins clinreg_helm`, with this folder on
`PYTHONPATH`). Run it on a model, then let HELM summarise the suite with the schema written here, which is
complete on its own:

```
PYTHONPATH={out} helm-run --plugins clinreg_helm --conf-paths {confs} --suite clinreg --max-eval-instances 1000 --models-to-run MODEL
helm-summarize --suite clinreg --schema-path {out}/schema_clinreg.yaml --num-threads 1
clinreg results import benchmark_output/runs/clinreg -o results.json
```

`--num-threads 1` keeps `helm-summarize` to one thread: on CPython 3.11.7 its threads compile templates at the
same time and can fail with "AST constructor recursion depth mismatch" (a CPython bug, seen in CI).

There is one run-entries file per access tier. Closed tasks use HELM's multiple-choice adapter (the question,
then the lettered options, one instruction asking for the letter); number tasks are scored by the accepted
range under the benchmark's own metric name (as the other exports score them). Free-text tasks run HELM's own
classes, named by the record: for a jury benchmark, HELM's annotator for that benchmark (HELM's rubric) and
HELM's `LLMJuryMetric`, the mean of every judge's rating on every axis; for EHRSQL, billing codes and MEDEC,
HELM's metric class (EHRSQL's queries run through clinreg's annotator, read-only, with the record's time
limit, against the record's SQLite database under `CLINREG_DATA_DIR`). The judges are the record's (MedHELM's
three, on HELM's `stanfordhealthcare/...` deployments); to use others, write a judges file in HELM's format
(`judges: [{{name, model, model_deployment}}]`) and set `CLINREG_HELM_JUDGES=PATH` for `helm-run`, or add
`,judges=PATH` to a run entry. Cost: one call per judge per instance (three with the default jury).
`schema_clinreg.yaml` places every run group under its category and subcategory, and names each benchmark
as MedHELM does, so `clinreg results import` also reads HELM's leaderboard
(`benchmark_output/runs/clinreg/groups/clinreg.json`)."""


WRITERS = {"lm-eval": _write_lm_eval, "inspect": _write_inspect, "helm": _write_helm}
