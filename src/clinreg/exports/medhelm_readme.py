"""The README of a medhelm configurable benchmark export: what it holds, the exact commands and the folder to run
them from, and what differs from the record and from MedHELM's published benchmarks."""

from __future__ import annotations

import shlex

from typing import Any

from clinreg.reports.markdown import escape


def readme(report: Any, generation: dict[str, Any]) -> str:
    """The README text of `report` (a MedhelmExport)."""
    out = report.output.resolve()
    differs = "\n".join(f"- {escape(line)}" for line in report.differs) or "- nothing"
    judges = "\n".join(f"- `{j['name']}` ({escape(j['model_name'])})" for j in report.judges) or "- none (no jury)"
    return README.format(name=report.name, record=report.record, mapping=report.mapping, release=report.release,
                         canary=report.canary, instances=report.instances, out=shlex.quote(str(out)),
                         metrics=", ".join(report.metrics),
                         main=report.metrics[0], max_tokens=generation.get("max_tokens", 1024), differs=differs,
                         judges=judges)


README = """# {name}: a medhelm configurable benchmark

Written by `clinreg export medhelm {record}` from registry release {release} (mapping `{mapping}`, {instances}
instance(s)). Canary: `{canary}`. Keep these files out of training data.

- `{name}.yaml`: the benchmark (`name` is the record id, so the run group and `clinreg results import` name the
  record), with `max_tokens` {max_tokens} and the metrics {metrics} (main metric first: `{main}`).
- `{name}_prompt.txt` and `{name}.csv`: each row's `prompt` is exactly the prompt clinreg builds for the
  instance (question, options and answer instruction); `correct_answer` is the gold (a closed task's letter),
  `incorrect_answers` the other letters as a JSON list, `clinreg_id` the clinreg instance id.
- `{name}_judge_prompt.txt` (jury records): the record's rubric, axes and scale, with medhelm's `{{QUESTION}}`,
  `{{RESPONSE}}` and `{{GOLD_RESPONSE}}` where the jury sees them, and the `<rubric_criteria>` block.
- `run_entries_{name}.conf`: the run entry; `manifest.json`: what was written and what differs, as data.

## Running it

medhelm resolves `config_path`, `prompt_file` and `dataset_file` from the folder where `medhelm-run` starts, not
from the YAML's folder: run the commands from this folder.

```
cd {out}
medhelm-run --conf-paths run_entries_{name}.conf --suite clinreg --max-eval-instances {instances} --models-to-run MODEL
helm-summarize --suite clinreg --auto-generate-schema
clinreg results import benchmark_output/runs/clinreg -o results.json
```

`clinreg results import` attributes the run's score to `{record}/{mapping}` with its instance count, as
harness `medhelm-config` (so a leaderboard marks it apart from runs of the other exports). medhelm-run writes
`benchmark_output/` and `prod_env/` here: `clinreg export medhelm --force` replaces this whole folder, runs
included, so keep them elsewhere first.

Judges (`name` is the HELM deployment, `model_name` the model; the run needs credentials for each):
{judges}

## What differs

From the record, and from MedHELM's own run of the benchmark:
{differs}

medhelm's `jury_score` (LLMJuryMetric) is the raw mean of the criterion scores over the judges, on the jury's
scale, not a 0-1 score; it is not the metric of MedHELM's published benchmarks, and a leaderboard must not rank
it as one: `clinreg results import` keeps it beside the record's main metric (under `stand_ins`), never in its
place, and `clinreg leaderboard` lists it as another metric, not ranked.
"""
