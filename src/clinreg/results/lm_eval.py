"""lm-evaluation-harness results files (`results_<date>.json`)."""

from __future__ import annotations

from typing import Any

from clinreg.results.accumulate import Reading, stand_in_hint, task_benchmark
from clinreg.results.provenance import settings
from clinreg.results.strictinput import count, finite_number, locate, quoted


def read_lm_eval(reading: Reading, name: str, text: str, data: dict[str, Any]) -> None:
    """lm-eval's results_<date>.json: `results` maps each task to `<metric>,<filter>` values."""
    model = lm_eval_model(data)
    if model is None:
        reading.error("CLR962", name, *locate(text, '"config"', '"results"'),
                      "no model name: expected model_name, or config.model_args with pretrained=, or config.model")
        return
    # Group rows aggregate their subtasks: `groups` lists them, and so does `group_subtasks` with a non-empty
    # list (a standalone task appears there too, with an empty one).
    groups = set(data["groups"]) if isinstance(data.get("groups"), dict) else set()
    if isinstance(data.get("group_subtasks"), dict):
        groups |= {k for k, v in data["group_subtasks"].items() if v}
    samples = data.get("n-samples") if isinstance(data.get("n-samples"), dict) else {}
    for task, metrics in data["results"].items():
        if task in groups:
            continue
        where = locate(text, quoted(task) + ":", quoted(task))
        if not isinstance(metrics, dict):
            reading.error("CLR962", name, *where, f"results[{task!r}] must be an object of metrics")
            continue
        b = task_benchmark(reading, task, name, where)
        if b is None:
            continue
        found = {}
        for key, value in metrics.items():
            metric, _, filt = key.partition(",")
            if b.accepts_metric(metric) and not metric.endswith("_stderr"):
                found[(metric, filt)] = value
        if len(found) > 1:
            found = {k: v for k, v in found.items() if k[1] in ("none", "")} or found
        stand_in = finite_number(metrics.get("reference_f1,none", metrics.get("reference_f1")))
        if not found and stand_in is not None and b.mapping.scoring is not None and b.mapping.scoring.method == "jury":
            # lm-eval has no judge: its token-overlap F1 is carried beside the jury metric, never in its place.
            reading.findings.stand_ins.append({
                "model": model, "record": b.record.id, "mapping": b.mapping.id, "metric": "reference_f1",
                "value": stand_in, "stands_in_for": b.mapping.metric.name,
                "source": {"format": "lm_eval", "file": name, "line": where[0], "column": where[1]}})
            continue
        if not found:
            reading.error("CLR965", name, *where, f"task {task!r} has no value for {b.key}'s main metric "
                          f"{b.mapping.metric.name}", stand_in_hint(b) or
                          f"metrics present: {', '.join(sorted(metrics))[:200]}")
            continue
        if len(found) > 1:
            reading.error("CLR962", name, *where, f"task {task!r} reports the main metric several times: "
                          f"{', '.join(f'{m},{f}' for m, f in found)}")
            continue
        (metric, filt), raw = next(iter(found.items()))
        value = finite_number(raw)
        if value is None:
            reading.error("CLR966", name, *where, f"task {task!r}: {metric} is not a finite number")
            continue
        stderr = finite_number(metrics.get(f"{metric}_stderr,{filt}" if filt else f"{metric}_stderr"))
        n_info = samples.get(task) if isinstance(samples.get(task), dict) else {}
        n = count(n_info.get("effective")) or count(n_info.get("original"))
        reading.score(b, model, value, {"format": "lm_eval", "file": name, "line": where[0], "column": where[1],
                                        "where": f"results.{task}.{metric},{filt}" if filt
                                        else f"results.{task}.{metric}"},
                      n=n, stderr=stderr if stderr is not None and stderr >= 0 else None,
                      provenance=_lm_eval_provenance(reading, data, task))


def _lm_eval_provenance(reading: Reading, data: dict[str, Any], task: str) -> dict[str, Any]:
    """Harness and version, the task's generation settings (its generation_kwargs, the run's gen_kwargs and
    few-shot count) and the export data file the task read."""
    configs = data.get("configs") if isinstance(data.get("configs"), dict) else {}
    task_config = configs.get(task) if isinstance(configs.get(task), dict) else {}
    generation = dict(task_config.get("generation_kwargs") or {}) \
        if isinstance(task_config.get("generation_kwargs"), dict) else {}
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    if isinstance(config.get("gen_kwargs"), dict):
        generation.update(config["gen_kwargs"])
    shots = data.get("n-shot") if isinstance(data.get("n-shot"), dict) else {}
    if isinstance(shots.get(task), int):
        generation["num_fewshot"] = shots[task]
    kwargs = task_config.get("dataset_kwargs") if isinstance(task_config.get("dataset_kwargs"), dict) else {}
    files = kwargs.get("data_files") if isinstance(kwargs.get("data_files"), dict) else {}
    data_file = files.get("test") if isinstance(files.get("test"), str) else None
    reading.points_into(data_file)
    version = data.get("lm_eval_version")
    model_type = config.get("model") if isinstance(config.get("model"), str) else None
    out = {"harness": "lm-eval", "harness_version": version if isinstance(version, str) else None,
           "model_type": model_type, "generation": settings(generation), "data_file": data_file}
    return {k: v for k, v in out.items() if v}


def lm_eval_model(data: dict[str, Any]) -> str | None:
    """The model of an lm-eval run: the `pretrained=` (or `model=`) of its model_args, else its model_name, else its
    model class. lm-eval names a run without model_args with a random id (`--model dummy` gives `eh2l3dfz`), which
    would make every run a new model; such a run is named by its model class (`dummy`) instead."""
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    args = config.get("model_args")
    pairs: dict[str, str] = {}
    if isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            pairs[key.strip()] = value.strip()
    elif isinstance(args, dict):
        pairs = {str(k): str(v) for k, v in args.items() if v is not None}
    for key in ("pretrained", "model"):
        if pairs.get(key):
            return pairs[key]
    named = data.get("model_name").strip() if isinstance(data.get("model_name"), str) else ""
    model_class = config.get("model").strip() if isinstance(config.get("model"), str) else ""
    if named and (pairs or not model_class):
        return named
    return model_class or None
