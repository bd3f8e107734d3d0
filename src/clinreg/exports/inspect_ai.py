"""The Inspect AI export: one Python file, `clinreg_tasks.py`, with a task per mapping and the scorers they use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clinreg.exports.contents import (
    FILES, LETTER_PATTERN, ExportReport, example, groups, python_literal, scoring_source, sent_generation,
    settings_not_sent,
)

NOT_SENT = {
    "num_outputs": "sent as GenerateConfig num_choices={n}, which only some providers honour (OpenAI, Grok, Google, "
                   "Together, vLLM; others give one output); the scorer reads the first output, where HELM reads the "
                   "most likely (at temperature 0 the same answer), and exact_match@{n} is not reported",
    "reasoning_max_tokens": "max_tokens is the same for every model; MedHELM's runs give reasoning models {n} tokens "
                            "(raise it with --max-tokens N)",
}


def write(staged: Path, report: ExportReport, registry: Any) -> str:
    """Write clinreg_tasks.py, one @task per mapping, into `staged`; return the README's usage section."""
    subs, cats = groups(report)
    for m in report.mappings:
        m.not_sent = settings_not_sent(m, NOT_SENT)
    mappings = {m.name: {"dataset": m.dataset, "mapping": m.mapping, "kind": m.kind, "data_file": m.data_file,
                         "instances": m.instances, "subcategories": m.subcategories, "categories": m.categories,
                         "metric": m.metric, "scoring": m.scoring, "generation": sent_generation(m.generation),
                         "closed_instructions": m.closed_instructions() if m.kind == "choice" else None,
                         "settings_not_sent": m.not_sent, "canary": report.canary} for m in report.mappings}
    lines = [
        f'"""Inspect AI tasks for {len(mappings)} clinreg mapping(s), written by `clinreg export inspect`.',
        "",
        "Run one: inspect eval clinreg_tasks.py@<task>. Run a subcategory from Python:",
        'inspect_ai.eval(tasks_in("<subcategory id>"), model=...). Needs only inspect_ai, not clinreg.',
        f"{report.canary}",
        '"""',
        "",
        scoring_source(),
        (FILES / "inspect_tasks.py").read_text(encoding="utf-8"),
        "",
        f"MAPPINGS = {python_literal(mappings)}",
        f"SUBCATEGORIES = {python_literal(subs)}",
        f"CATEGORIES = {python_literal(cats)}",
        f"CANARY = {report.canary!r}",
        f"LETTER_PATTERN = {LETTER_PATTERN!r}",
        "",
    ]
    for m in report.mappings:
        if m.scoring and m.scoring["method"] == "rubric":
            # `grader`: a model replacing the record's grader (`-T grader=...`); the model role `grader` does too.
            # `grader_template`: where simple-evals' grader template is read from (see grader_template()).
            lines += ["", "@task", f"def {m.name}(grader=None, grader_template=None):",
                      f"    return clinreg_task({m.name!r}, {m.kind!r}, {m.data_file!r}, grader, grader_template)", ""]
        elif m.scoring and m.scoring["method"] == "jury":
            # `judges`: comma-separated models replacing the record's judges (`-T judges=...`); model roles
            # `judge_<name>` replace one judge each.
            lines += ["", "@task", f"def {m.name}(judges=None):",
                      f"    return clinreg_task({m.name!r}, {m.kind!r}, {m.data_file!r}, judges)", ""]
        else:
            lines += ["", "@task", f"def {m.name}():",
                      f"    return clinreg_task({m.name!r}, {m.kind!r}, {m.data_file!r})", ""]
    if any(m.scoring and m.scoring["method"] in ("jury", "rubric") for m in report.mappings):
        # The jury over an lm-eval run's recorded responses (`-T samples_file=PATH`, `--model none`).
        lines += ["", "@task", "def clinreg_lm_eval_judged(samples_file, judges=None, grader_template=None):",
                  "    return lm_eval_judged_task(samples_file, judges, grader_template)", ""]
    (staged / "clinreg_tasks.py").write_text("\n".join(lines), encoding="utf-8")
    return USAGE.format(out=report.output.resolve(), example=example(report))

USAGE = """```
inspect eval {out}/clinreg_tasks.py@clinreg_<mapping> --model MODEL
python -c "import sys; sys.path.insert(0, '{out}'); import inspect_ai, clinreg_tasks as t; \
inspect_ai.eval(t.tasks_in('{example}'), model='MODEL')"
```

Closed tasks send MedHELM's prompt as HELM lays it out, in one user message: MedHELM's instructions (clinreg's
letter instruction where the record gives none), the question, the lettered options and `Answer:`, with the
record's temperature and `max_tokens` (one token for most) as the task's GenerateConfig and, as MedHELM's requests
carry them, one output and no stop sequence (HELM's joint multiple-choice adapter sends one completion and no stop
sequence whatever its spec says), solver `generate()`;
`letter_match()` scores the reply as HELM's exact match does (the reply, stripped, is the gold letter). Number
tasks use `numeric_range()`. Each task's metadata `settings_not_sent` (and the manifest's) names what is not sent
as MedHELM sends it. Free-text tasks are scored as MedHELM scores them, with
token-overlap F1 (`reference_overlap()`) reported beside as a cheap check:
- `jury()`: MedHELM's LLM jury. Each judge reads the record's rubric (in clinreg's words), the texts the jury
  is shown and the axes, and replies with JSON; the score is the mean of every judge's rating on every axis
  (1-5). The judges are the record's (MedHELM's GPT-4o, Llama 3.3 70B and Claude 3.7 Sonnet): bind others as
  model roles (`--model-role judge_gpt=MODEL`, `judge_llama`, `judge_claude`) or all at once with
  `-T judges=MODEL[,MODEL,MODEL]`. Irregular replies follow MedHELM's rules (`jury_score` in this file): a
  reply lacking an axis or an explanation is dropped whole, a non-whole score is cut towards zero and one off
  the scale counts as it is, and a sample whose response is empty, or that no judge rated, scores 1.0; the
  metrics `ratings_missing`, `replies_dropped`, `ratings_irregular` and `defaults_used` count them.
  Cost: one call per judge per instance, so three judge calls per instance with the default jury.
- `rubric_grader()`: HealthBench graded as its authors grade it (openai/simple-evals healthbench_eval.py at
  ee3b0318). The conversation goes to the model as chat messages, the record's system message first (before any
  system turn of the conversation's own, where simple-evals' sampler puts its system message); the grader reads
  those turns and the reply (a system message a run adds through Inspect's own `--system-message` is not in
  them). For each
  criterion of the sample's own rubric the grader (simple-evals' gpt-4.1-2025-04-14, the task's declared grader
  requirement; bind another with `--model-role grader=MODEL` or `-T grader=MODEL`; the log records which) reads
  simple-evals' grader template filled as simple-evals fills it (the turns as `role: content`, the rubric item
  as `[points] criterion`), with simple-evals' settings: temperature 0.5, 2048 tokens, system message "You are
  a helpful assistant.". clinreg does not carry that template: give `-T grader_template=PATH` (simple-evals'
  healthbench_eval.py, or the medhelm 0.8.0 wheel, whose annotator holds the same text), or set
  CLINREG_HEALTHBENCH_GRADER_TEMPLATE, or install medhelm. A reply is read as simple-evals reads it and asked
  again while unreadable, up to 5 asks (simple-evals asks without end); a criterion still unread is ungraded,
  and its sample is left out of every statistic and counted (`instances_ungraded`, `criteria_ungraded`), never
  scored as not met. The metrics are simple-evals': `healthbench_simple_evals_score` (the clipped mean) with
  `:n_samples` and `:bootstrap_std` (1000 resamples: the draws numpy makes after `np.random.seed(0)`, where
  simple-evals draws from numpy unseeded), `overall_score`, and each example tag (`theme:*`,
  `physician_agreed_category:*`) and rubric tag (`axis:*`, `level:*`). This is HealthBench's own score, not
  MedHELM's `health_bench_score` (the HELM export's), which differs on about half the conversations. Cost: one
  grader call per criterion (about 11 per HealthBench conversation), more when replies are re-asked.
- `medhelm_metric()`: EHRSQL's execution accuracy (the predicted and gold queries run read-only, with the
  record's time limit, against the record's SQLite database under `CLINREG_DATA_DIR`), billing-code F1 or
  MEDEC's error flag.

lm-eval has no model-graded metric: to judge an lm-eval run of a jury (or rubric) benchmark, run it with
`--log_samples`, then judge the responses it recorded, with the same scorer and judges as above:

```
inspect eval {out}/clinreg_tasks.py@clinreg_lm_eval_judged -T samples_file=PATH/samples_clinreg_<mapping>_<time>.jsonl \
--model none
```

The task's metadata names the samples file and its sha256, for `clinreg results import` to join the jury score
to the lm-eval run. A rubric benchmark's grader reads the conversation's turns (the record's system message
first) and the recorded response, as simple-evals' grader reads them, not the one flattened text lm-eval sent.

`SUBCATEGORIES` and `CATEGORIES` list the task names of each group; `tasks_in(id)` builds them."""
