"""The lm-evaluation-harness export: one task YAML per mapping, one group YAML per subcategory and category, and
the `utils.py` they call to score."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from clinreg.core.model import LETTERS
from clinreg.exports.contents import (
    FILES, PREFIX, ExportReport, MappingExport, example, groups, header, python_literal, scoring_source,
)


class Function(str):
    """A YAML scalar written with lm-eval's `!function` tag."""


class Dumper(yaml.SafeDumper):
    """YAML with `Function` scalars."""


Dumper.add_representer(Function, lambda dumper, value: dumper.represent_scalar("!function", str(value)))

METRICS = {"choice": "acc", "number": "range_accuracy", "text": "reference_f1"}


def generation_kwargs(m: MappingExport) -> dict[str, Any]:
    """lm-eval's generation_kwargs from the record's generation settings (clinreg's former defaults without them)."""
    g = m.generation
    if g is None:
        return {"until": ["\n\n"] if m.kind == "number" else [], "do_sample": False,
                "max_gen_toks": 64 if m.kind == "number" else 1024}
    return {"until": list(g.get("stop", [])), "do_sample": g["temperature"] > 0, "temperature": g["temperature"],
            "max_gen_toks": g["max_tokens"]}


def task_config(m: MappingExport, data_path: Path, canary_text: str | None) -> dict[str, Any]:
    """The task YAML of one mapping, as a dict."""
    task: dict[str, Any] = {
        "task": m.name,
        "tag": ["clinreg"],
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(data_path)}},
        "test_split": "test",
    }
    metrics = [METRICS[m.kind], "score"]
    if m.kind == "text" and m.scoring and m.scoring["method"] not in ("jury", "rubric"):  # no model grader in lm-eval
        metrics.insert(0, m.metric)
    if m.kind == "choice":
        task.update({
            "output_type": "multiple_choice",
            "doc_to_text": "{{prompt}}\nAnswer:",
            "doc_to_choice": "{{ '" + LETTERS + "'[:choices|length] | list }}",
            "doc_to_target": "{{gold.index}}",
            "process_results": Function("utils.process_choice"),
        })
    else:
        task.update({
            "output_type": "generate_until",
            "doc_to_text": "{{prompt}}",
            "doc_to_target": "{{gold.value}}",
            "generation_kwargs": generation_kwargs(m),
            "process_results": Function(f"utils.process_{m.kind}"),
        })
        if m.generation and m.generation.get("instructions"):
            # lm-eval puts a task's `description` before every prompt: MedHELM's instructions.
            task["description"] = m.generation["instructions"] + "\n"
    task["metric_list"] = [{"metric": name, "aggregation": "mean", "higher_is_better": True} for name in metrics]
    task["metadata"] = {"version": 1.0, "dataset": m.dataset, "mapping": m.mapping, "canary": canary_text}
    return task


def write(staged: Path, report: ExportReport, registry: Any) -> str:
    """Write the task files, the group files and utils.py into `staged`; return the README's usage section."""
    final = report.output.resolve()
    tasks, group_files = staged / "tasks", staged / "groups"
    tasks.mkdir(parents=True)
    group_files.mkdir()
    top = header(report, "lm-evaluation-harness task")
    for m in report.mappings:
        body = yaml.dump(task_config(m, final / m.data_file, report.canary), Dumper=Dumper, sort_keys=False,
                         allow_unicode=True, width=1000)
        (tasks / f"{m.name}.yaml").write_text(top + body, encoding="utf-8")
    scoring = {m.mapping: m.scoring for m in report.mappings if m.scoring}
    metric_names = {m.mapping: m.metric for m in report.mappings}
    utils = (scoring_source() + (FILES / "lm_eval_utils.py").read_text(encoding="utf-8")
             + f"\n\nSCORING = {python_literal(scoring)}\nMETRICS = {python_literal(metric_names)}\n")
    (tasks / "utils.py").write_text(utils, encoding="utf-8")
    subs, cats = groups(report)
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
            (group_files / f"{PREFIX}{group_id}.yaml").write_text(
                header(report, f"lm-eval {kind} group") + text, encoding="utf-8")
    return USAGE.format(out=final, example=example(report))

USAGE = """```
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
