"""`clinreg export medhelm RECORD`: one record as a medhelm configurable benchmark (medhelm 0.8.0, HELM >= 0.5.8).

medhelm's run spec `medhelm_configurable_benchmark:config_path=X` reads a YAML (name, description, prompt_file,
dataset_file, max_tokens, metrics with the main one first); its scenario fills the prompt file with
`str.format_map` from each CSV row (pandas), and its jury fills the judge prompt with `string.Template`. This
module builds the record's instances as every export does and writes those files, a run-entries `.conf`, a README
and a manifest; what the format cannot express is refused (`NotExpressible`) or, where a nearest form exists,
written and named under `differs`.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from clinreg.core.builderrors import BuildError
from clinreg.exports.harness import ExportProblem, check_identifiers, generation_spec, gold_kind, scoring_spec
from clinreg.exports.medhelm_readme import readme
from clinreg.instances.build import RecordBuild
from clinreg.instances.stamp import canary
from clinreg.instances.write import replace_folder
from clinreg.scoring.medhelm import jury_prompt
from clinreg.text.yamltext import yaml_dump
from clinreg.sources.origin import locate
from clinreg.text.suggest import closest

# The metric names medhelm 0.8.0's BenchmarkConfig.get_metric_specs knows (helm/benchmark/run_specs/medhelm/
# benchmark_config.py); any other name is a ValueError there.
SUMMARIZATION = ("rouge_1", "rouge_2", "rouge_l", "BERTScore-P", "BERTScore-R", "BERTScore-F")
# Cells pandas.read_csv reads as missing (its default na_values) or as nothing at all: never written.
PANDAS_NA = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
                       "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})
PLACEHOLDERS = ("{QUESTION}", "{RESPONSE}", "{GOLD_RESPONSE}")
NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
SHOWN = {"input": "{QUESTION}", "response": "{RESPONSE}", "reference": "{GOLD_RESPONSE}"}


class NotExpressible(BuildError):
    """The record does something a medhelm configurable benchmark cannot express: nothing is written."""

    default_code = "CLR912"
    exit_code = 1


@dataclass
class MedhelmExport:
    """What `export_medhelm` wrote: the benchmark's name, its metrics, its instances and what differs."""

    record: str
    mapping: str
    name: str
    output: Path
    instances: int = 0
    metrics: list[str] = field(default_factory=list)
    judges: list[dict[str, str]] = field(default_factory=list)
    differs: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    canary: str | None = None
    release: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"format": "medhelm_configurable_benchmark", "record": self.record, "mapping": self.mapping,
                "name": self.name, "output": str(self.output), "release": self.release, "canary": self.canary,
                "instances": self.instances, "metrics": self.metrics, "main_metric": self.metrics[0],
                "judges": self.judges, "differs": self.differs, "files": self.files}


def export_medhelm(registry: Any, dataset_id: str, output: str | Path, *, mapping: str | None = None,
                   data_dir: str | Path | None = None, limit: int | None = None, seed: int = 0,
                   on_bad_label: str = "error", force: bool = False) -> MedhelmExport:
    """Build one mapping of `dataset_id` and write it as a medhelm configurable benchmark into `output`."""
    output = Path(output)
    if dataset_id not in registry.datasets:
        close = closest(dataset_id, sorted(registry.datasets))
        raise ExportProblem(f"no dataset {dataset_id!r} in the registry{f'; did you mean {close!r}?' if close else ''}")
    record = registry.datasets[dataset_id]
    m = _mapping(record, mapping)
    check_identifiers(registry, [record.id], {})
    if output.exists() and not force:
        raise ExportProblem(f"{output} exists; refusing to overwrite it (use --force)", code="CLR983")
    if output.exists() and not output.is_dir():
        raise ExportProblem(f"{output} exists and is not a folder", code="CLR983")
    name = record.id if len(record.mappings) == 1 else f"{record.id}__{m.id}"
    report = MedhelmExport(record.id, m.id, name, output, canary=canary(registry), release=registry.current_release)
    kind, scoring, generation = gold_kind(m.label), scoring_spec(record.id, m), generation_spec(m) or {}
    metrics = _metrics(record, m, kind, scoring, report)
    _generation_differs(generation, kind, report)
    made = RecordBuild(record, registry, m.id, limit=limit, seed=seed, on_bad_label=on_bad_label,
                       location=locate(record, data_dir, registry.root))
    rows = [row for batch in made.batches() for row in batch.rows()]
    if not rows:
        raise NotExpressible(f"{record.id}/{m.id}: the build gave no instance to write")
    table = dataset_csv(rows, kind, f"{record.id}/{m.id}")
    report.instances = len(rows)
    files = {f"{name}.csv": table, f"{name}_prompt.txt": prompt_file(generation, kind)}
    if scoring and scoring["method"] == "jury":
        files[f"{name}_judge_prompt.txt"] = judge_prompt(scoring["jury"], f"{record.id}/{m.id}")
        metrics[0]["prompt_file"] = f"{name}_judge_prompt.txt"
    config = {"name": name, "description": " ".join(f"{record.name}: {record.description}".split()),
              "prompt_file": f"{name}_prompt.txt", "dataset_file": f"{name}.csv",
              "max_tokens": generation.get("max_tokens", 1024), "metrics": metrics}
    files[f"{name}.yaml"] = (f"# medhelm configurable benchmark, written by `clinreg export medhelm {record.id}` "
                             f"(registry release {report.release}).\n# {report.canary}\n"
                             + yaml_dump(config))
    entry = {"description": f"medhelm_configurable_benchmark:config_path={name}.yaml,model=text", "priority": 1}
    files[f"run_entries_{name}.conf"] = json.dumps({"entries": [entry]}, indent=2) + "\n"  # JSON is valid HOCON
    report.metrics = [x["name"] for x in metrics]
    report.files = sorted(files) + ["README.md", "manifest.json"]
    files["README.md"] = readme(report, generation)
    files["manifest.json"] = json.dumps(report.to_dict(), indent=2, allow_nan=False) + "\n"
    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}.", dir=output.parent))
    try:
        staged = work / "export"
        staged.mkdir()
        for rel, text in files.items():
            (staged / rel).write_text(text, encoding="utf-8", newline="")
        replace_folder(staged, output)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


def _mapping(record: Any, wanted: str | None) -> Any:
    ids = [m.id for m in record.mappings]
    if wanted is None and len(ids) == 1:
        return record.mappings[0]
    if wanted in ids:
        return record.mappings[ids.index(wanted)]
    raise ExportProblem(f"{record.id} has mappings {', '.join(ids)}: name one with --mapping" if wanted is None
                        else f"{record.id} has no mapping {wanted!r} (it has {', '.join(ids)})")


def _metrics(record: Any, m: Any, kind: str, scoring: dict[str, Any] | None, report: MedhelmExport) -> list[dict]:
    """medhelm's metrics for the record, main first; a record whose scoring medhelm cannot run is refused."""
    where, own = f"{record.id}/{m.id}", m.metric.name
    if m.generation is not None and m.generation.adapter == "agent":
        raise NotExpressible(f"{where}: MedHELM runs it with an agent adapter (a harness driving a multi-step "
                             "episode), which a configurable benchmark cannot express; run it with medhelm itself")
    chat = scoring and scoring["method"] == "rubric" and (scoring.get("rubric") or {}).get("conversation_column")
    if chat:
        raise NotExpressible(f"{where}: the input is a multi-turn conversation, and a medhelm configurable benchmark "
                             "sends one prompt per instance; use `clinreg export helm` (HELM's chat adapter)")
    if kind == "number":
        raise NotExpressible(f"{where}: scored by the accepted range ({own}), a metric outside medhelm's list "
                             f"(exact_match, jury_score, {', '.join(SUMMARIZATION)}); use `clinreg export helm`")
    if kind == "choice":
        if own != "exact_match":
            report.differs.append(f"the record's metric is {own}; medhelm scores the letter by exact_match, which is "
                                  f"kept beside {own} on import, never ranked as it")
        return [{"name": "exact_match"}]
    if own in SUMMARIZATION:
        return [{"name": own}]
    if not scoring or scoring["method"] != "jury":
        method = scoring["method"] if scoring else "its metric"
        what = {"sql_execution": "execution-based scoring (the queries run against a database)",
                "rubric": "a rubric of its own per instance, graded criterion by criterion"}.get(method, method)
        raise NotExpressible(f"{where}: scored by {what} ({own}), which medhelm's configurable metrics (exact_match, "
                             f"jury_score, {', '.join(SUMMARIZATION)}) cannot express; use `clinreg export helm`")
    jury = scoring["jury"]
    judges = [{"name": j.get("helm_deployment") or j["model"], "model_name": j["model"]} for j in jury["judges"]]
    for j in jury["judges"]:
        if not j.get("helm_deployment"):
            report.differs.append(f"judge {j['name']} has no HELM deployment in the record: served as {j['model']}")
        if j.get("replaces"):
            report.differs.append(f"judge {j['name']} ({j['model']}) replaces {j['replaces']}, which MedHELM used")
    report.judges = judges
    low, high = jury["scale"]
    report.differs += [
        f"jury_score is the raw mean of every judge's rating on every axis ({low} to {high}), not a 0-1 score, and "
        f"not MedHELM's published {own}: the judges read clinreg's rubric for the record, not MedHELM's "
        f"annotator prompt; `clinreg results import` keeps it beside {own}, never ranked as it",
        "an instance no judge rated scores 0.0 (LLMJuryMetric's default), where MedHELM's run specs give 1.0",
    ]
    return [{"name": "jury_score", "prompt_file": None, "judges": judges}]


def _generation_differs(generation: dict[str, Any], kind: str, report: MedhelmExport) -> None:
    """What medhelm's configurable run spec (a generation adapter at temperature 0, no stop sequences, no
    instructions) cannot take from the record's generation block."""
    if not generation:
        report.differs.append("the record gives no generation settings: medhelm's default of 1024 tokens")
        return
    if generation.get("temperature", 0) != 0:
        report.differs.append(f"temperature 0, not the record's {generation['temperature']:g}")
    if generation.get("stop"):
        report.differs.append(f"no stop sequences, not the record's {json.dumps(generation['stop'])}")
    if generation.get("reasoning_max_tokens"):
        report.differs.append(f"one token limit ({generation['max_tokens']}); MedHELM gives reasoning models "
                              f"{generation['reasoning_max_tokens']}")
    if kind != "choice" and generation.get("instructions"):
        report.differs.append("MedHELM's instructions open the prompt file, not HELM's adapter instructions")
    if kind == "choice" and generation.get("instructions"):
        report.differs.append(f"clinreg's letter instruction in each prompt, not MedHELM's instructions "
                              f"({json.dumps(generation['instructions'])[:80]}), which the other exports send")
    if generation.get("num_outputs", 1) != 1:
        report.differs.append(f"one output per instance, not the record's {generation['num_outputs']}")


def prompt_file(generation: dict[str, Any], kind: str) -> str:
    """The prompt template: the instance's whole prompt from the CSV's `prompt` column, after MedHELM's
    instructions for a free-text task (closed tasks keep clinreg's letter instruction). medhelm fills it with
    `str.format_map`, so literal braces are doubled."""
    instructions = generation.get("instructions") if kind != "choice" else None
    head = instructions.replace("{", "{{").replace("}", "}}") + "\n\n" if instructions else ""
    return head + "{prompt}"


def judge_prompt(jury: dict[str, Any], where: str) -> str:
    """What each judge reads (the record's rubric, the shown texts as medhelm's placeholders, the axes and scale,
    the JSON answer format) and the `<rubric_criteria>` block medhelm reads the axes from; `$` doubled for
    `string.Template`."""
    texts = [jury["rubric"], *(a["question"] for a in jury["axes"])]
    if any(p in t for t in texts for p in (*PLACEHOLDERS, "rubric_criteria>")):
        raise NotExpressible(f"{where}: the jury's rubric writes {'/'.join(PLACEHOLDERS)} or a <rubric_criteria> "
                             "tag, which medhelm would read as its own")
    text = jury_prompt(jury, *(SHOWN[k] for k in ("input", "response", "reference")))
    criteria = {axis["id"]: ["score", "explanation"] for axis in jury["axes"]}
    text += "\n\n<rubric_criteria>\n" + json.dumps(criteria) + "\n</rubric_criteria>\n"
    return text.replace("$", "$$")


def dataset_csv(rows: list[dict[str, Any]], kind: str, where: str) -> str:
    """The CSV medhelm's scenario reads with pandas: `prompt`, `correct_answer` (the gold letter, or the gold text),
    `incorrect_answers` (the other letters, a JSON list) and `clinreg_id`. A cell pandas would read as missing
    (empty, `NA`, `null`...) is refused, as is a gold column pandas would read as numbers."""
    header = ["clinreg_id", "prompt", "correct_answer"] + (["incorrect_answers"] if kind == "choice" else [])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    golds = []
    for row in rows:
        gold = row["gold"]["letter"] if kind == "choice" else row["gold"]["value"]
        cells = [row["id"], row["prompt"], gold]
        if kind == "choice":
            letters = [chr(ord("A") + i) for i in range(len(row["choices"]))]
            cells.append(json.dumps([x for x in letters if x != gold]))
        for column, cell in zip(header, cells):
            if not isinstance(cell, str) or cell.strip() in PANDAS_NA or cell in PANDAS_NA:
                raise NotExpressible(f"{where}: instance {row['id']}: its {column} is {str(cell)[:40]!r}, which pandas "
                                     "reads as missing; medhelm's scenario would read it as 'nan'")
        golds.append(gold)
        writer.writerow(cells)
    if kind != "choice" and all(NUMBER.fullmatch(g.strip()) for g in golds):
        raise NotExpressible(f"{where}: every gold answer is a number, which pandas reads as a number, not as text")
    return out.getvalue()
