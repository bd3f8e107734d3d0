"""Hugging Face Hub eval results: `clinreg results export --format hf-eval-results` writes, for each model and
benchmark, the `.eval_results/<benchmark>.yaml` file a model repository holds so that the Hub shows the score on
the model page and on the benchmark dataset's leaderboard. Nothing is uploaded.

The fields are the Hub's documented ones (its "Evaluation Results" page, and `EvalResultEntry` of huggingface_hub
2.4, whose `eval_result_entries_to_yaml` writes the same keys): a list of entries, each with `dataset.id` (the
benchmark's Hub dataset id), `dataset.task_id`, optional `dataset.revision`, `value`, optional `date` (ISO-8601),
optional `source` (`url`, required when a source is given, and `name`), and optional `notes`.

Only a benchmark whose record reads a Hub dataset (`source.type: huggingface`) has a Hub dataset id; scores of
the others are left out and counted. `task_id` is `default` for a record with one mapping and the mapping id
otherwise: the Hub matches it against the tasks a benchmark dataset's eval.yaml defines, which clinreg does not know.
"""

from __future__ import annotations

from typing import Any

from clinreg.core.store import Registry
from clinreg.results.every_eval_ever import left_out_beside, model_info, path_component
from clinreg.results.index import BenchmarkIndex
from clinreg.results.published import RELEASES
from clinreg.results.score import ReportedWinRate, Score
from clinreg.text.output import shown
from clinreg.text.yamltext import yaml_dump

FOLDER = ".eval_results"


def hf_files(reg: Registry, scores: list[Score], reported: list[ReportedWinRate], stand_ins: list[dict[str, Any]],
             aliases: dict[tuple[str, str], str] | None = None) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """`<model>/.eval_results/<benchmark>.yaml` text for every score of a benchmark with a Hub dataset id; and what
    was left out, each {"what", "why", "count"}."""
    index = BenchmarkIndex(reg)
    files: dict[str, str] = {}
    no_hub: dict[str, int] = {}
    for score in scores:
        b = index.get(score.record, score.mapping)
        if b is None:
            continue
        if b.record.source.type != "huggingface":
            no_hub[b.key] = no_hub.get(b.key, 0) + 1
            continue
        model_id = model_info(score, aliases or {})["id"]
        folder = "/".join(path_component(p) for p in model_id.split("/") if p) or "_"
        if score.model != model_id and score.published and score.model.endswith(f"[{score.published}]"):
            folder += f"/{path_component(score.published)}"  # two releases' scores of one model kept apart
        name = b.record.id if b.mapping.id == b.record.id else f"{b.record.id}_{b.mapping.id}"
        path = f"{folder}/{FOLDER}/{path_component(name)}.yaml"
        if path in files:  # two origins of one model's score (names the alias table merges): both kept, apart
            origin = score.published or (score.provenance or {}).get("harness") or "results"
            path, n = f"{folder}/{FOLDER}/{path_component(name + '_' + origin)}.yaml", 2
            while path in files:  # a third score of the same origin: numbered, never written over
                path, n = f"{folder}/{FOLDER}/{path_component(f'{name}_{origin}_{n}')}.yaml", n + 1
        files[path] = _text(score, _entry(b, score))
    left = []
    if no_hub:
        left.append({"what": "scores of benchmarks with no Hub dataset id", "count": sum(no_hub.values()),
                     "dropped": True,
                     "why": f"the Hub files a result under a benchmark dataset of the Hub; these {len(no_hub)} "
                            "benchmarks read their data elsewhere (listed under `benchmarks` in --format json)",
                     "benchmarks": sorted(no_hub)})
    left.append({"what": "standard errors, instance counts, juries and generation settings", "count": len(scores),
                 "dropped": False,
                 "why": "an eval results entry holds one value; the notes name the metric, its range and the "
                        "harness, and the Every Eval Ever export keeps the rest"})
    left += left_out_beside(reported, stand_ins)
    return files, left


def _entry(b: Any, score: Score) -> dict[str, Any]:
    source = b.record.source
    dataset: dict[str, Any] = {"id": source.repo, "task_id": "default" if len(b.record.mappings) == 1 else b.mapping.id}
    if source.revision:
        dataset["revision"] = source.revision
    entry: dict[str, Any] = {"dataset": dataset, "value": score.value}
    prov = score.provenance or {}
    published = prov.get("published") if isinstance(prov.get("published"), dict) else {}
    if published.get("date"):
        entry["date"] = published["date"]
    release = next((r for r in RELEASES if r["id"] == published.get("id")), None)
    if release is not None:
        src = release["source"]
        entry["source"] = {"url": f"https://github.com/{src['repository']}/blob/{src['commit']}/{src['file']}",
                           "name": release["name"]}
    lo, hi = score.range or (None, None)
    metric = b.mapping.metric
    scale = f"{lo:g} to {hi:g}" if lo is not None else ""
    named = f"{metric.display} ({metric.name}{', ' + scale if scale else ''})" if metric.display else \
        f"{metric.name}{' (' + scale + ')' if scale else ''}"
    parts = [named,
             f"clinreg benchmark {b.key}"]
    if prov.get("harness"):
        parts.append(f"harness {prov['harness']}" + (f" {prov['harness_version']}" if prov.get("harness_version")
                                                     else ""))
    if prov.get("edition"):
        parts.append(f"MedHELM edition {prov['edition']}")
    if score.n_instances:
        parts.append(f"{score.n_instances} instances")
    if score.jury or (b.mapping.scoring is not None and b.mapping.scoring.jury is not None):
        parts.append("scored by an LLM jury")
    entry["notes"] = "; ".join(parts)
    return entry


def _text(score: Score, entry: dict[str, Any]) -> str:
    """The file: one comment line, then the entry as YAML's dumper writes it. The model's name comes from a results
    file anyone can write, so the comment shows every line break in it escaped (LF, CR, NEL, U+2028, U+2029 would
    otherwise start a line of YAML and forge a key)."""
    head = (f"# {shown(score.model)} on {shown(score.key)}: written by "
            "`clinreg results export --format hf-eval-results`\n")
    return head + yaml_dump([entry])
