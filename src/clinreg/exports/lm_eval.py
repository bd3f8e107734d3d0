"""The lm-evaluation-harness export: one task YAML per mapping, one group YAML per subcategory and category, and
the `utils.py` they call to score."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from clinreg.core.model import LETTERS
from clinreg.exports.contents import (
    FILES, LETTER_PATTERN, PREFIX, ExportReport, MappingExport, example, groups, header, python_literal,
    scoring_source, sent_generation, settings_not_sent,
)


class Function(str):
    """A YAML scalar written with lm-eval's `!function` tag."""


class Dumper(yaml.SafeDumper):
    """YAML with `Function` scalars."""


Dumper.add_representer(Function, lambda dumper, value: dumper.represent_scalar("!function", str(value)))

METRICS = {"choice": "exact_match", "number": "range_accuracy", "text": "reference_f1"}
# A closed task as HELM's multiple-choice adapter lays it out (after the `description`: the instructions): the
# question, the lettered options, `Answer:`.
CLOSED_PROMPT = ("{{input}}\n{% for option in choices %}{{ '" + LETTERS + "'[loop.index0] }}. {{ option }}\n"
                 "{% endfor %}Answer:")
# The letter HELM's exact match reads: the reply, stripped, when it is one capital letter; else no answer. Named
# `none`, lm-eval's default filter name, so that the task's metrics are `exact_match,none` and `score,none`, which
# the subcategory and category groups average with every other task's `score,none`.
LETTER_FILTER = [{"name": "none", "filter": [
    {"function": "regex", "regex_pattern": LETTER_PATTERN, "group_select": 0, "fallback": "[invalid]"},
    {"function": "take_first"}]}]
NOT_SENT = {
    "num_outputs": "lm-eval asks for one output per request; MedHELM asks for {n} and scores the most likely (at "
                   "temperature 0 the same answer), so exact_match@{n} is not reported",
    "reasoning_max_tokens": "max_gen_toks is the same for every model; MedHELM's runs give reasoning models {n} "
                            "tokens (raise it with --gen_kwargs max_gen_toks=N)",
}
LOGLIKELIHOOD = ("every generation setting: the log-likelihood variant (--choice-scoring loglikelihood) scores the "
                 "options by likelihood under clinreg's own prompt and generates nothing; not MedHELM-comparable")


def not_sent(m: MappingExport, loglikelihood: bool) -> dict[str, str]:
    """The record's generation settings this task does not send as MedHELM does, and why."""
    return {"all": LOGLIKELIHOOD} if m.kind == "choice" and loglikelihood else settings_not_sent(m, NOT_SENT)


def generation_kwargs(m: MappingExport) -> dict[str, Any]:
    """lm-eval's generation_kwargs from the record's generation settings (clinreg's former defaults without them)."""
    g = sent_generation(m.generation)
    if g is None:  # no settings: a closed task takes HELM's multiple-choice defaults (one token, stop at a line break)
        until, most = {"choice": (["\n"], 1), "number": (["\n\n"], 64)}.get(m.kind, ([], 1024))
        return {"until": until, "do_sample": False, "max_gen_toks": most}
    return {"until": list(g.get("stop", [])), "do_sample": g["temperature"] > 0, "temperature": g["temperature"],
            "max_gen_toks": g["max_tokens"]}


def task_config(m: MappingExport, data_path: Path, canary_text: str | None,
                loglikelihood: bool = False) -> dict[str, Any]:
    """The task YAML of one mapping, as a dict. A closed task generates its letter with MedHELM's instructions and
    settings, unless `loglikelihood` asks for the variant that scores the options by likelihood."""
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
    if m.kind == "choice" and loglikelihood:
        metrics = ["acc_loglikelihood", "score"]  # not `acc`: never read back as MedHELM's exact match
        task.update({
            "output_type": "multiple_choice",
            "doc_to_text": "{{prompt}}\nAnswer:",
            "doc_to_choice": "{{ '" + LETTERS + "'[:choices|length] | list }}",
            "doc_to_target": "{{gold.index}}",
            "process_results": Function("utils.process_choice"),
        })
    elif m.kind == "choice":
        task.update({
            "output_type": "generate_until",
            # lm-eval puts a task's `description` before every prompt: the instructions, then a blank line.
            "description": m.closed_instructions() + "\n\n",
            "doc_to_text": CLOSED_PROMPT,
            "doc_to_target": "{{gold.letter}}",
            "generation_kwargs": generation_kwargs(m),
            "filter_list": LETTER_FILTER,
            "process_results": Function("utils.process_letter"),
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
    task["metadata"] = {"version": 1.0, "dataset": m.dataset, "mapping": m.mapping, "canary": canary_text,
                        "medhelm_comparable": not (m.kind == "choice" and loglikelihood),
                        "settings_not_sent": not_sent(m, loglikelihood)}
    return task


def write(staged: Path, report: ExportReport, registry: Any) -> str:
    """Write the task files, the group files and utils.py into `staged`; return the README's usage section."""
    final = report.output.resolve()
    tasks, group_files = staged / "tasks", staged / "groups"
    tasks.mkdir(parents=True)
    group_files.mkdir()
    top = header(report, "lm-evaluation-harness task")
    loglikelihood = report.choice_scoring == "loglikelihood"
    for m in report.mappings:
        m.not_sent = not_sent(m, loglikelihood)
        m.medhelm_comparable = not (m.kind == "choice" and loglikelihood)
        config = task_config(m, final / m.data_file, report.canary, loglikelihood)
        body = yaml.dump(config, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=1000)
        if not m.medhelm_comparable:
            body = ("# NOT MedHELM-comparable: the options are scored by log-likelihood under clinreg's prompt; "
                    "MedHELM generates the letter.\n" + body)
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
`exact_match` for closed tasks, `range_accuracy` for number tasks (the
first number of the answer inside the accepted range), and for free-text tasks MedHELM's own metric where it
needs no judge (EHRSQL's execution accuracy, with `CLINREG_DATA_DIR` set to the folder holding the record's
SQLite database; billing-code F1; MEDEC's error flag). lm-eval has no judge, so a benchmark MedHELM scores with
its LLM jury reports only `reference_f1` (token-overlap F1 against the reference), a stand-in that `clinreg
results import` keeps beside the results, never as the jury score: run the Inspect or HELM export for those.
A closed task generates its letter as MedHELM does: MedHELM's instructions (the task's `description`), the
question, the lettered options and `Answer:`, with the record's output limit (`max_gen_toks`, one token for most)
and temperature, one output and no stop sequence, as MedHELM's requests carry them (HELM's joint multiple-choice
adapter sends one completion and no stop sequence whatever its spec says); a regex filter keeps the reply,
stripped, when it is one letter, and `exact_match` compares it with the gold letter, as HELM's exact match does.
Each task's `metadata.settings_not_sent` and the manifest's `settings_not_sent` name what is not sent.
`clinreg export lm-eval --choice-scoring loglikelihood` writes the older variant instead, which scores the options
by log-likelihood under clinreg's own prompt and generates nothing, so it is not MedHELM-comparable: its metric is
`acc_loglikelihood`, its task files and manifest say `medhelm_comparable: false`, and `clinreg results import` does
not read it as MedHELM's exact match.
The task files name their data by absolute path: if you move this folder, export again."""
