"""Every Eval Ever (EEE) 0.3.0 records: `clinreg results export --format every-eval-ever` writes each score as one
aggregate record, and `clinreg results import` reads such records back.

One record per model and benchmark, at the datastore path EEE's own validator expects,
`data/<record>/<developer>/<model>/<uuid>.json`; the UUID (version 4 in form) is derived from the record's
`evaluation_id`, so that exporting the same results twice writes the same files. Where clinreg's fields go:

- the benchmark (record, mapping, subcategories, categories, tasks): `metric_config.additional_details`;
- the score's provenance (harness, export, instance set, registry release, MedHELM edition, data file):
  `source_data.additional_details`; a published leaderboard's id, date and source: `source_metadata.additional_details`;
- the jury (judges, rubric, how their ratings combine): `metric_config.llm_scoring`;
- standard error, instance sd and count, and the leaderboard's 95% interval: `score_details.uncertainty`;
- generation settings: `generation_config` (exactly, as JSON text, under `additional_details.clinreg_generation`).

Every value under an `additional_details` is a string, as the schema requires; nested values are JSON text.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from functools import lru_cache
from importlib import resources
from typing import Any

from clinreg.core.store import Registry
from clinreg.results.accumulate import Reading, checked_provenance, task_benchmark
from clinreg.results.aliases import lookup_key
from clinreg.results.index import Benchmark, BenchmarkIndex
from clinreg.results.leaderboard import placement, score_interval
from clinreg.results.resultsfile import checked_per_instance
from clinreg.results.score import ReportedWinRate, Score
from clinreg.results.strictinput import count, finite_number, locate, position

SCHEMA_VERSION = "0.3.0"
FORMAT = "every_eval_ever"
LIBRARIES = {"helm": "helm", "inspect": "inspect_ai", "lm-eval": "lm_eval"}  # clinreg's harness -> EEE's library name
HARNESSES = {v: k for k, v in LIBRARIES.items()}
UNKNOWN_MODEL = {"deployment_type": "unknown", "model_availability": "unknown"}
PROVENANCE_DETAILS = ("export", "instance_set", "registry_release", "edition", "data_file")
_UNSAFE = re.compile(r'[<>:"\\|?*\x00-\x1f]')
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}


@lru_cache(maxsize=1)
def eee_schema() -> dict[str, Any]:
    """The aggregate record schema of every-eval-ever 0.3.0, as shipped beside this module."""
    text = resources.files(__package__).joinpath("schemas/every_eval_ever/eval.schema.json").read_text("utf-8")
    return json.loads(text)


def schema_errors(record: Any) -> list[tuple[str, str]]:
    """Each way `record` breaks the EEE 0.3.0 schema, as (JSON path, message), in document order."""
    from jsonschema import Draft7Validator

    errors = sorted(Draft7Validator(eee_schema()).iter_errors(record), key=lambda e: [str(p) for p in e.absolute_path])
    return [("/".join(str(p) for p in e.absolute_path) or "(root)", e.message[:300]) for e in errors]


def is_eee_record(data: Any) -> bool:
    """Whether a JSON document is an EEE aggregate record (by its required top-level fields)."""
    return (isinstance(data, dict)
            and {"schema_version", "evaluation_results", "model_info", "eval_library"} <= data.keys())


# --------------------------------------------------------------------------------------------- export


def eee_records(reg: Registry, scores: list[Score], reported: list[ReportedWinRate], stand_ins: list[dict[str, Any]],
                retrieved: str, organization: str = "unknown",
                aliases: dict[tuple[str, str], str] | None = None) -> tuple[dict[str, dict[str, Any]],
                                                                            list[dict[str, Any]]]:
    """Every score as an EEE record, by its datastore path; and what the records leave out, each
    {"what", "why", "count"}. `retrieved` is the record's retrieved_timestamp (Unix seconds, as text)."""
    index = BenchmarkIndex(reg)
    places = placement(reg)
    records: dict[str, dict[str, Any]] = {}
    for score in scores:
        b = index.get(score.record, score.mapping)
        if b is None:
            continue
        record = _record(reg, b, places.get(b.key, {}), score, retrieved, organization, aliases or {})
        path = _datastore_path(score.record, record["model_info"], record["evaluation_id"])
        records[path] = record
    left = []
    with_instances = sum(1 for s in scores if s.per_instance)
    if with_instances:
        left.append({"what": "instance-level scores", "count": with_instances, "dropped": False,
                     "why": "a results file keeps only their summary (n, mean, sd), which goes to uncertainty; EEE's "
                            "instance-level companion file (detailed_evaluation_results) is not written"})
    left += left_out_beside(reported, stand_ins)
    left.append({"what": "where each score was read (file, line, column)", "count": len(scores), "dropped": False,
                 "why": "EEE has no slot for a location in a source file; the records themselves become the source"})
    return records, left


def _record(reg: Registry, b: Benchmark, place: dict[str, Any], score: Score, retrieved: str, organization: str,
            aliases: dict[tuple[str, str], str]) -> dict[str, Any]:
    prov = score.provenance or {}
    harness = prov.get("harness")
    published = prov.get("published") if isinstance(prov.get("published"), dict) else {}
    origin = published.get("id") or harness or "results"
    evaluation_id = f"clinreg/{b.key}/{score.model}/{origin}"
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "retrieved_timestamp": retrieved,
        **({"evaluation_timestamp": published["date"]} if published.get("date") else {}),
        "source_metadata": _source_metadata(reg, published, organization),
        "eval_library": {"name": LIBRARIES.get(harness, harness or "unknown"),
                         "version": prov.get("harness_version") or "unknown",
                         **({"additional_details": {"clinreg_harness": harness}} if harness else {})},
        "model_info": model_info(score, aliases),
        "evaluation_results": [_result(b, place, score)],
    }


def _source_metadata(reg: Registry, published: dict[str, Any], organization: str) -> dict[str, Any]:
    details = {"clinreg_results_registry_release": reg.current_release}
    if published.get("id"):
        details.update({f"clinreg_published_{k}": published[k] for k in ("id", "date", "source") if published.get(k)})
        repository = str(published.get("source", "")).split("@", 1)[0]
        owner = repository.split("/", 1)[0] or "unknown"
        return {"source_name": f"{published['id']} (published leaderboard)", "source_type": "documentation",
                "source_organization_name": owner,
                **({"source_organization_url": f"https://github.com/{owner}"} if "/" in repository else {}),
                "evaluator_relationship": "third_party", "additional_details": details}
    return {"source_name": "clinreg results import", "source_type": "evaluation_run",
            "source_organization_name": organization or "unknown", "evaluator_relationship": "other",
            "additional_details": details}


def model_info(score: Score, aliases: dict[tuple[str, str], str]) -> dict[str, Any]:
    prov = score.provenance or {}
    name = score.model
    if score.published and name.endswith(f" [{score.published}]"):  # kept apart from another release's
        name = name[: -len(f" [{score.published}]")]
    key = lookup_key(Score(**{**_fields(score), "model": name}))
    model_id = aliases.get(key) if key else None
    model_id = model_id or name
    details = dict(UNKNOWN_MODEL)
    for field in ("model_type", "model_name"):
        if prov.get(field):
            details[f"clinreg_{field}"] = prov[field]
    info = {"name": score.model, "id": model_id, "additional_details": details}
    if "/" not in model_id.strip("/") and prov.get("model_type"):
        info["developer"] = prov["model_type"]  # lm-eval's model type stands where Inspect's provider does
    return info


def _fields(score: Score) -> dict[str, Any]:
    return {k: getattr(score, k) for k in Score.__dataclass_fields__}


def _result(b: Benchmark, place: dict[str, Any], score: Score) -> dict[str, Any]:
    prov = score.provenance or {}
    lo, hi = score.range or [None, None]
    benchmark = {"clinreg_record": b.record.id, "clinreg_mapping": b.mapping.id, "clinreg_benchmark": b.record.name,
                 **{f"clinreg_{k}": ",".join(place[k]) for k in ("subcategories", "categories", "tasks")
                    if place.get(k)}}
    metric: dict[str, Any] = {
        "evaluation_description": " ".join(b.record.measures.split()) if b.record.measures else b.record.name,
        "metric_id": score.metric,  # the benchmark's main metric, or another it has (HealthBench's own score)
        "metric_name": (b.mapping.metric.display or score.metric) if score.metric == b.mapping.metric.name
        else score.metric,
        "lower_is_better": b.mapping.metric.lower_is_better, "score_type": "continuous",
        "min_score": lo, "max_score": hi, "additional_details": benchmark}
    scoring = _llm_scoring(b, score)
    if scoring:
        metric["llm_scoring"] = scoring
    result = {"evaluation_result_id": b.key, "evaluation_name": b.key, "source_data": _source_data(b, score),
              "metric_config": metric, "score_details": _score_details(score)}
    generation = prov.get("generation")
    if isinstance(generation, dict) and generation:
        args = {k: generation[k] for k in ("temperature", "top_p", "top_k") if _number(generation.get(k))}
        tokens = generation.get("max_tokens", generation.get("max_new_tokens"))
        if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 1:
            args["max_tokens"] = tokens
        result["generation_config"] = {**({"generation_args": args} if args else {}),
                                       "additional_details": {"clinreg_generation": _json(generation)}}
    return result


def _source_data(b: Benchmark, score: Score) -> dict[str, Any]:
    prov = score.provenance or {}
    details = {f"clinreg_{k}": str(prov[k]) for k in PROVENANCE_DETAILS if prov.get(k)}
    source = b.record.source
    name = b.record.name
    if source.type == "huggingface":
        data: dict[str, Any] = {"dataset_name": name, "source_type": "hf_dataset", "hf_repo": source.repo}
        if len(b.mapping.splits) == 1:
            data["hf_split"] = b.mapping.splits[0]
        if source.revision:
            details["hf_revision"] = source.revision
    elif source.type == "url" and getattr(source, "url", None):
        data = {"dataset_name": name, "source_type": "url", "url": [source.url]}
    else:
        data = {"dataset_name": name, "source_type": "other"}
    if details:
        data["additional_details"] = details
    return data


def _score_details(score: Score) -> dict[str, Any]:
    details = {"clinreg_n_instances_from": score.n_instances_from or "unknown"}
    if score.n_instances is not None:
        details["clinreg_n_instances"] = str(score.n_instances)
    if score.per_instance:
        details["clinreg_per_instance"] = _json(score.per_instance)
    uncertainty: dict[str, Any] = {}
    if score.stderr is not None:
        uncertainty["standard_error"] = {"value": score.stderr, "method": "as the harness reported it"}
    if score.per_instance:
        uncertainty["standard_deviation"] = score.per_instance["sd"]
        uncertainty["num_samples"] = score.per_instance["n"]
    elif score.stderr is not None and score.n_instances is not None and score.n_instances_from == "results":
        uncertainty["num_samples"] = score.n_instances
    interval = score_interval(score) if score.range else None
    if interval:
        lo, hi = score.range
        uncertainty["confidence_interval"] = {"lower": lo + interval["low"] * (hi - lo),
                                              "upper": lo + interval["high"] * (hi - lo), "confidence_level": 0.95,
                                              "method": f"clinreg leaderboard: {interval['method']}"}
    out: dict[str, Any] = {"score": score.value, "details": details}
    if uncertainty:
        out["uncertainty"] = uncertainty
    return out


def _llm_scoring(b: Benchmark, score: Score) -> dict[str, Any] | None:
    """The jury behind a score: the one its source names, else (for a jury benchmark) the one the registry declares,
    marked `clinreg_jury_from: registry` since the source did not say."""
    spec = b.mapping.scoring.jury if b.mapping.scoring is not None else None
    if score.jury:
        judges = score.jury["judges"]
        origin = "results"
    elif spec is not None:
        judges = {j.name: j.model for j in spec.judges}
        origin = "registry"
    else:
        return None
    details = {"clinreg_jury_from": origin}
    if score.jury:
        details["clinreg_rubric"] = score.jury["rubric"]
    current = (spec is not None
               and (not score.jury or score.jury["rubric"] == rubric_id(b.record.id, b.mapping.id, spec)))
    if current:
        details.update({"axes": ",".join(a.id for a in spec.axes), "scale": f"{spec.scale[0]}-{spec.scale[1]}",
                        "aggregate": "the mean of every judge's rating on every axis"})
        prompt = " ".join(spec.rubric.split()) + " Rate the answer on each axis from " \
            f"{spec.scale[0]} to {spec.scale[1]}: " + " ".join(f"{a.id}: {a.question}" for a in spec.axes)
    else:
        prompt = "unknown: the results name the rubric (clinreg_rubric), which is not this registry's"
    return {"judges": [{"model_info": {"name": name, "id": model, "additional_details": dict(UNKNOWN_MODEL)},
                        "weight": 1.0, "additional_details": {"clinreg_judge": name}}
                       for name, model in judges.items()],
            "input_prompt": prompt, "aggregation_method": "average", "additional_details": details}


def rubric_id(record_id: str, mapping_id: str, jury: Any) -> str:
    """The id the exports give a jury's rubric (`clinreg:<record>/<mapping>@<hash>`), for the registry's jury."""
    spec = jury.model_dump(mode="json", exclude_none=True)
    rubric = json.dumps({k: spec[k] for k in ("rubric", "axes", "scale", "aggregate", "shows")}, sort_keys=True)
    return f"clinreg:{record_id}/{mapping_id}@{hashlib.sha256(rubric.encode()).hexdigest()[:12]}"


def _datastore_path(record_id: str, info: dict[str, Any], evaluation_id: str) -> str:
    """`data/<record>/<developer>/<model>/<uuid>.json`, the developer and model from the model id as EEE files them."""
    parts = [p for p in info["id"].split("/") if p]
    if len(parts) >= 2:
        developer, model = parts[0], "_".join(parts[1:])
    else:
        developer, model = info.get("developer") or "unknown", parts[0] if parts else "unknown"
    digest = bytearray(hashlib.sha256(evaluation_id.encode("utf-8")).digest()[:16])
    name = uuid.UUID(bytes=bytes(digest), version=4)
    return "/".join(["data", path_component(record_id), path_component(developer), path_component(model),
                     f"{name}.json"])


def path_component(value: str) -> str:
    value = _UNSAFE.sub("_", value.replace(":", "_")).strip() or "_"
    if value.endswith(".") or value in {".", "..", "data"} or value.split(".", 1)[0].upper() in _RESERVED:
        value += "_"
    return value


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)


def _number(value: Any) -> bool:
    return finite_number(value) is not None


# --------------------------------------------------------------------------------------------- import


def read_every_eval_ever(reading: Reading, name: str, text: str, data: dict[str, Any]) -> None:
    """An EEE aggregate record: checked against the 0.3.0 schema, then each result that is a benchmark of the
    registry read as a score (a clinreg-written record exactly; another tool's by its evaluation name)."""
    problems = schema_errors(data)
    if problems:
        path, message = problems[0]
        key = next((p for p in reversed(path.split("/")) if not p.isdigit()), "schema_version")
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        reading.error("CLR962", name, *locate(text, json.dumps(key)),
                      f"not a valid Every Eval Ever {SCHEMA_VERSION} record at {path}: {message}{more}")
        return
    version = data["schema_version"]
    if version.split(".")[:2] != SCHEMA_VERSION.split(".")[:2]:
        reading.error("CLR962", name, *locate(text, '"schema_version"'),
                      f"schema_version {version!r}: clinreg reads Every Eval Ever {SCHEMA_VERSION} records")
        return
    library = data["eval_library"]
    harness = (library.get("additional_details") or {}).get("clinreg_harness") or HARNESSES.get(library["name"])
    meta = data["source_metadata"].get("additional_details") or {}
    info = data["model_info"]
    model_details = info.get("additional_details") or {}
    base = {"harness": harness, "harness_version": None if library["version"] == "unknown" else library["version"],
            **{k: model_details.get(f"clinreg_{k}") for k in ("model_type", "model_name")}}
    if meta.get("clinreg_published_id"):
        base["published"] = {k: meta[f"clinreg_published_{k}"] for k in ("id", "date", "source")
                             if meta.get(f"clinreg_published_{k}")}
    offset = 0
    for i, result in enumerate(data["evaluation_results"]):
        at = text.find('"evaluation_name"', offset)
        offset = at + 1 if at >= 0 else offset
        where = position(text, at) if at >= 0 else (1, 1)
        _read_result(reading, name, where, i, result, info["name"], base)


def _read_result(reading: Reading, name: str, where: tuple[int, int], i: int, result: dict[str, Any], model: str,
                 base: dict[str, Any]) -> None:
    metric = result["metric_config"]
    own = metric.get("additional_details") or {}
    b = _benchmark(reading, name, where, result, own)
    if b is None:
        return
    metric_id = metric.get("metric_id")
    other = b.other_metric(metric_id) if isinstance(metric_id, str) and metric_id != b.mapping.metric.name else None
    if metric_id is not None and metric_id != b.mapping.metric.name and not b.accepts_metric(metric_id) \
            and other is None:
        reading.error("CLR965", name, *where, f"evaluation_results[{i}]: metric {metric_id!r} is not {b.key}'s main "
                      f"metric {b.mapping.metric.name}")
        return
    score = result["score_details"]
    value = finite_number(score["score"])
    if value is None:
        reading.error("CLR966", name, *where, f"evaluation_results[{i}]: score must be a finite number")
        return
    details = score.get("details") or {}
    uncertainty = score.get("uncertainty") or {}
    stderr = finite_number((uncertainty.get("standard_error") or {}).get("value"))
    per_instance = _per_instance(details.get("clinreg_per_instance"))
    n = None
    if details.get("clinreg_n_instances_from") == "results":
        n = count(_int(details.get("clinreg_n_instances")))
    elif "clinreg_n_instances_from" not in details:  # another tool's record: the samples behind its uncertainty
        n = count(uncertainty.get("num_samples"))
    source_details = result["source_data"].get("additional_details") or {}
    prov = {**base, **{k: source_details.get(f"clinreg_{k}") for k in PROVENANCE_DETAILS}}
    generation = (result.get("generation_config") or {}).get("additional_details", {}).get("clinreg_generation")
    if generation:
        try:
            prov["generation"] = json.loads(generation)
        except ValueError:
            reading.error("CLR966", name, *where, f"evaluation_results[{i}]: clinreg_generation is not JSON")
            return
    reading.score(b, model, value, {"format": FORMAT, "file": name, "line": where[0], "column": where[1],
                                    "where": f"evaluation_results[{i}]"},
                  n=n, stderr=stderr if stderr is not None and stderr >= 0 else None, per_instance=per_instance,
                  jury=_jury(metric.get("llm_scoring")), metric=other,
                  provenance={**checked_provenance({k: v for k, v in prov.items() if v is not None})})


def _benchmark(reading: Reading, name: str, where: tuple[int, int], result: dict[str, Any],
               own: dict[str, Any]) -> Benchmark | None:
    if own.get("clinreg_record") and own.get("clinreg_mapping"):
        b = reading.index.get(own["clinreg_record"], own["clinreg_mapping"])
        if b is None:
            reading.error("CLR963", name, *where, f"{own['clinreg_record']}/{own['clinreg_mapping']} is no benchmark "
                          "of the registry")
        return b
    metric_name = result["metric_config"].get("metric_name")
    if metric_name:  # a HELM leaderboard's way of naming it: `<benchmark> - <metric>`
        matches, _ = reading.index.by_header(f"{result['evaluation_name']} - {metric_name}")
        if len(matches) == 1:
            return matches[0]
    return task_benchmark(reading, result["evaluation_name"], name, where)


def left_out_beside(reported: list, stand_ins: list) -> list[dict[str, Any]]:
    """What no export of one model on one benchmark can hold: published mean win rates (an aggregate, like a
    standard error) and scores on another metric (`dropped`: scores given and not written, which makes the command
    exit 1)."""
    left = []
    if reported:
        left.append({"what": "reported mean win rates", "count": len(reported), "dropped": False,
                     "why": "a win rate over many benchmarks has no place in a record of one model on one benchmark"})
    if stand_ins:
        left.append({"what": "scores on another metric than the benchmark's (lm-eval's token overlap, medhelm's "
                             "configurable jury_score)", "count": len(stand_ins), "dropped": True,
                     "why": "they are not the benchmark's main metric, and clinreg never ranks them"})
    return left


def _per_instance(text: Any) -> dict[str, Any] | None:
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    checked = checked_per_instance(value)
    return checked if isinstance(checked, dict) else None


def _jury(scoring: Any) -> dict[str, Any] | None:
    """The jury a record's llm_scoring names as its own: a clinreg record's only when its source named it; another
    tool's by its prompt (rubric `eee:<hash of the prompt>`) and its judges."""
    if not isinstance(scoring, dict):
        return None
    details = scoring.get("additional_details") or {}
    if details.get("clinreg_jury_from") == "registry":
        return None
    judges = {}
    for judge in scoring["judges"]:
        info = judge["model_info"]
        judges[(judge.get("additional_details") or {}).get("clinreg_judge") or info["name"]] = info["id"]
    rubric = details.get("clinreg_rubric") or \
        "eee:" + hashlib.sha256(scoring["input_prompt"].encode("utf-8")).hexdigest()[:12]
    return {"rubric": rubric[:300], "judges": {k[:100]: v[:300] for k, v in judges.items()}}


def _int(text: Any) -> int | None:
    try:
        return int(text) if isinstance(text, str) else None
    except ValueError:
        return None
