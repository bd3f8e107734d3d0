"""HELM's outputs: a leaderboard CSV as its front end shows it, and benchmark_output/runs/<suite> run folders."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from clinreg.results.accumulate import Reading, checked_jury
from clinreg.results.index import Ambiguous, Benchmark
from clinreg.results.provenance import instance_set, settings
from clinreg.results.score import ReportedWinRate
from clinreg.results.strictinput import (
    Unreadable,
    count,
    finite_number,
    locate,
    parse_json,
    quoted,
    read_text,
)

MAX_RUN_DIRS = 20_000
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
MISSING_CELLS = {"", "-", "\u2013", "\u2014", "n/a", "na", "none", "null"}


# --------------------------------------------------------------------------------------------- HELM leaderboard CSV


def split_csv_line(line: str, number: int) -> tuple[list[str], list[int]]:
    """The fields of one CSV line and the 0-based offset where each starts; quotes as in RFC 4180."""
    fields, starts, i, n = [], [], 0, len(line)
    while True:
        starts.append(i)
        if i < n and line[i] == '"':
            value, i = [], i + 1
            while True:
                if i >= n:
                    raise Unreadable("a quoted field is not closed on its line (fields spanning lines are refused)",
                                     number, starts[-1] + 1)
                if line[i] == '"':
                    if i + 1 < n and line[i + 1] == '"':
                        value.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                value.append(line[i])
                i += 1
            if i < n and line[i] != ",":
                raise Unreadable("text after a closing quote", number, i + 1)
            fields.append("".join(value))
        else:
            end = line.find(",", i)
            end = n if end < 0 else end
            field = line[i:end]
            if '"' in field:
                raise Unreadable("a quote inside an unquoted field", number, i + field.index('"') + 1)
            fields.append(field)
            i = end
        if i >= n:
            return fields, starts
        i += 1  # the comma


def parse_cell(cell: str) -> float | None | str:
    """A leaderboard cell: None when blank or `-`, a float when a plain finite number, else the reason it is bad."""
    text = cell.strip()
    if text.casefold() in MISSING_CELLS:
        return None
    if not NUMBER.fullmatch(text):
        return f"{text[:40]!r} is not a number"
    value = float(text)
    return value if math.isfinite(value) else f"{text[:40]!r} is not a finite number"


def read_helm_csv(reading: Reading, name: str, text: str) -> None:
    """A leaderboard as HELM's front end shows it: `Model`, optionally `Mean win rate`, then benchmark columns."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            fields, starts = split_csv_line(line, number)
            rows.append((fields, [(number, start + 1) for start in starts]))
    read_board(reading, name, rows, "helm_csv")


def read_helm_groups(reading: Reading, name: str, text: str, tables: list) -> None:
    """A leaderboard as helm-summarize writes it (benchmark_output/runs/<suite>/groups/<group>.json): a list of
    tables, each with `title`, `header` cells and `rows` of cells. The `Accuracy` table is the leaderboard."""
    table = next((t for t in tables if isinstance(t, dict) and t.get("title") == "Accuracy"), None)
    if table is None or not isinstance(table.get("header"), list) or not isinstance(table.get("rows"), list):
        reading.error("CLR962", name, 1, 1,
                      "a helm-summarize groups file needs an `Accuracy` table with header and rows")
        return
    def cell(c: Any) -> str:
        value = c.get("value") if isinstance(c, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and finite_number(value) is None:
            return str(value)  # too large for a float: the cell is then reported as not a finite number
        return "" if value is None else value if isinstance(value, str) else repr(float(value)) \
            if isinstance(value, (int, float)) and not isinstance(value, bool) else "?"
    header = [cell(c) for c in table["header"]]
    at = locate(text, '"header"')
    rows = [(header, [locate(text, quoted(h)) if h else at for h in header])]
    for row in table["rows"]:
        if not isinstance(row, list):
            reading.error("CLR962", name, *locate(text, '"rows"'),
                          "each row of the Accuracy table must be a list of cells")
            return
        fields = [cell(c) for c in row]
        where = locate(text, quoted(fields[0])) if fields and fields[0] else locate(text, '"rows"')
        rows.append((fields, [where] * len(fields)))
    read_board(reading, name, rows, "helm_groups")


def read_board(reading: Reading, name: str, rows: list[tuple[list[str], list[tuple[int, int]]]], fmt: str) -> None:
    """A leaderboard's cells, each with its (line, column): the header row first, then one row per model."""
    if not rows:
        reading.error("CLR962", name, 1, 1, "the file is empty: expected a header row starting with Model")
        return
    header, header_at = rows[0]
    if header[0].strip().casefold() not in ("model", "model/adapter"):
        reading.error("CLR962", name, *header_at[0], f"the first column is {header[0].strip()[:60]!r}, not Model",
                      "export the leaderboard with its Model column first")
        return
    columns: dict[int, Benchmark] = {}
    win_rate_column = None
    taken: dict[str, int] = {}
    for j in range(1, len(header)):
        head, where = " ".join(header[j].split()), header_at[j]
        if head.casefold() == "mean win rate":
            win_rate_column = j
            continue
        if not head:
            reading.error("CLR962", name, *where, f"column {j + 1} has no header")
            continue
        matches, name_only = reading.index.by_header(head)
        if len(matches) > 1:
            reading.error("CLR964", name, *where,
                          f"column {head!r} matches several benchmarks: {', '.join(b.key for b in matches)}",
                          "use the untruncated header")
        elif not matches and name_only:
            b = name_only[0]
            reading.error("CLR965", name, *where,
                          f"column {head!r} is {b.key} on another metric; its main metric is {b.mapping.metric.name}"
                          f" ({b.mapping.metric.display or 'no display name'})")
        elif not matches:
            reading.error("CLR963", name, *where, f"column {head!r} maps to no benchmark of the registry",
                          "a column is `<benchmark display name> - <metric>`; the names are each mapping's helm_names")
        elif matches[0].key in taken:
            reading.error("CLR967", name, *where,
                          f"column {head!r} is {matches[0].key} again (first in column {taken[matches[0].key] + 1})")
        else:
            columns[j] = matches[0]
            taken[matches[0].key] = j
    models: dict[str, int] = {}
    for fields, at in rows[1:]:
        number = at[0][0] if at else 1
        if len(fields) != len(header):
            reading.error("CLR962", name, *at[0], f"{len(fields)} fields where the header has {len(header)}")
            continue
        model = " ".join(fields[0].split())
        if not model:
            reading.error("CLR962", name, *at[0], "a row without a model name")
            continue
        if model in models:
            reading.error("CLR967", name, *at[0], f"model {model!r} again (first on line {models[model]})")
            continue
        models[model] = number
        for j, b in columns.items():
            parsed = parse_cell(fields[j])
            if isinstance(parsed, str):
                reading.error("CLR966", name, *at[j], f"{b.key} for {model}: {parsed}")
            elif parsed is not None:
                reading.score(b, model, parsed, {"format": fmt, "file": name, "line": at[j][0],
                                                  "column": at[j][1], "where": " ".join(header[j].split())},
                              provenance={"harness": "helm"})
        if win_rate_column is not None:
            parsed = parse_cell(fields[win_rate_column])
            if isinstance(parsed, str) or (parsed is not None and not 0 <= parsed <= 1):
                reading.error("CLR966", name, *at[win_rate_column],
                              f"Mean win rate for {model}: {parsed if isinstance(parsed, str) else 'outside [0, 1]'}")
            elif parsed is not None:
                reading.reported.append(ReportedWinRate(
                    model, parsed, sorted(b.key for b in columns.values()),
                    {"format": fmt, "file": name, "line": at[win_rate_column][0], "column": at[win_rate_column][1],
                     "where": "Mean win rate"}))


# --------------------------------------------------------------------------------------------- HELM run folders

# The adapter settings that change what a model is asked and how it answers (prompt text aside: that is the export's).
GENERATION_SETTINGS = ("method", "temperature", "max_tokens", "num_outputs", "max_train_instances", "num_trials",
                       "stop_sequences")


def run_folders(path: Path) -> list[Path]:
    """Run folders under `path`: the folder itself, its children, or benchmark_output/runs/<suite>/<run>."""
    def is_run(p: Path) -> bool:
        return (p / "run_spec.json").is_file()

    if is_run(path):
        return [path]
    found: list[Path] = []
    for base in (path, path / "runs"):
        if not base.is_dir():
            continue
        for child in sorted(base.iterdir()):
            if len(found) > MAX_RUN_DIRS:
                raise Unreadable(f"more than {MAX_RUN_DIRS} run folders; pass one suite at a time")
            if child.is_dir() and not child.is_symlink():
                if is_run(child):
                    found.append(child)
                elif base.name == "runs" or child.parent == path:
                    found.extend(sorted(c for c in child.iterdir() if c.is_dir() and not c.is_symlink() and is_run(c)))
        if found:
            break
    return found


def _read_json(reading: Reading, path: Path) -> tuple[str, Any] | None:
    """(text, value) of a JSON file of a run folder, or None after reporting why it cannot be read (CLR961)."""
    try:
        text = read_text(path)
        return text, parse_json(text)
    except Unreadable as exc:
        reading.error("CLR961", str(path), exc.line, exc.column, str(exc))
        return None


def read_helm_runs(reading: Reading, path: Path) -> None:
    """benchmark_output/runs/<suite>/*/ run folders: run_spec.json names model and run groups, stats.json the scores.

    Runs of one model on one benchmark (CLEAR's conditions, EHRSHOT's subjects) are merged as HELM merges them:
    counts, sums and sums of squares add up, so the score is the mean over all their instances.
    """
    folders = run_folders(path)
    if not folders:
        reading.error("CLR962", str(path), 1, 1, "no HELM run folder (run_spec.json and stats.json) in this folder")
        return
    merged: dict[tuple[str, str, str], dict[str, Any]] = {}  # (model, benchmark, harness): a run of each kept apart
    for folder in folders:
        spec_file, stats_file = folder / "run_spec.json", folder / "stats.json"
        read = _read_json(reading, spec_file)
        if read is None:
            continue
        spec_text, spec = read
        adapter = spec.get("adapter_spec") if isinstance(spec, dict) else None
        model = adapter.get("model") if isinstance(adapter, dict) else None
        groups = spec.get("groups", []) if isinstance(spec, dict) else None
        run_name = spec.get("name") if isinstance(spec, dict) else None
        if not isinstance(model, str) or not model.strip() or not isinstance(groups, list) \
                or not all(isinstance(g, str) for g in groups):
            reading.error("CLR962", str(spec_file), *locate(spec_text, '"adapter_spec"'),
                          "run_spec.json needs adapter_spec.model (text) and groups (a list of run-group names)")
            continue
        names = list(groups) + ([run_name.split(":", 1)[0]] if isinstance(run_name, str) else [])
        b = _one_benchmark(reading, names, str(spec_file), spec_text)
        if b is None:
            continue
        metric, harness = configurable_metric(spec, b)
        per_instance = folder / "per_instance_stats.json"
        if per_instance.is_file():
            read = _read_json(reading, per_instance)
            if read is None:
                continue
            picked = _instance_stats(reading, b, read[1], str(per_instance), read[0], metric)
        else:
            read = _read_json(reading, stats_file)
            if read is None:
                continue
            picked = _main_stats(reading, b, read[1], str(stats_file), read[0], metric)
        if picked is None:
            continue
        slot = merged.setdefault((model.strip(), b.key, harness), {"b": b, "count": 0, "sum": 0.0, "sum_squared": 0.0,
                                                           "min": math.inf, "max": -math.inf, "runs": [],
                                                           "jury": _helm_jury(spec), "ids": [], "generation": [],
                                                           "metric": metric, "harness": harness})
        slot["ids"].extend(picked.get("ids") or [])
        slot["generation"].append(settings({k: adapter.get(k) for k in GENERATION_SETTINGS}))
        scenario = spec.get("scenario_spec") if isinstance(spec.get("scenario_spec"), dict) else {}
        args = scenario.get("args") if isinstance(scenario.get("args"), dict) else {}
        if isinstance(args.get("data_file"), str):
            slot["data_file"] = args["data_file"]
        for key in ("count", "sum", "sum_squared"):
            slot[key] += picked[key]
        slot["min"], slot["max"] = min(slot["min"], picked["min"]), max(slot["max"], picked["max"])
        slot["runs"].append(str(per_instance if per_instance.is_file() else stats_file))
    for (model, _, _), slot in merged.items():
        n = slot["count"]
        mean = slot["sum"] / n
        sd = math.sqrt(max(0.0, slot["sum_squared"] / n - mean * mean))
        binary = slot["min"] >= 0 and slot["max"] <= 1 and abs(slot["sum"] - slot["sum_squared"]) <= 1e-9 * max(1, n)
        source = {"format": "helm_runs", "file": slot["runs"][0], "line": 1, "column": 1,
                  "where": f"{len(slot['runs'])} run(s)", "runs": slot["runs"]}
        generation = slot["generation"][0] if all(g == slot["generation"][0] for g in slot["generation"]) else None
        if slot["metric"] != slot["b"].mapping.metric.name:  # medhelm's configurable jury_score: beside, not ranked
            reading.findings.stand_ins.append({
                "model": model, "record": slot["b"].record.id, "mapping": slot["b"].mapping.id,
                "metric": slot["metric"], "value": mean, "n_instances": n, "harness": slot["harness"],
                "stands_in_for": slot["b"].mapping.metric.name, "source": source})
            continue
        provenance = {"harness": slot["harness"], "instance_set": instance_set(slot["ids"]), "generation": generation,
                      "data_file": slot.get("data_file")}
        reading.score(slot["b"], model, mean, source, n=n,
                      per_instance={"n": n, "mean": mean, "sd": sd, "binary": binary}, jury=slot["jury"],
                      provenance={k: v for k, v in provenance.items() if v})


SUMMARIZATION = ("rouge_1", "rouge_2", "rouge_l", "BERTScore-P", "BERTScore-R", "BERTScore-F")


def configurable_metric(spec: dict[str, Any], b: Benchmark) -> tuple[str, str]:
    """(the stat to read, the harness) of a run: the record's own metric from a HELM run; from a medhelm
    configurable benchmark (`clinreg export medhelm`), its main metric: `jury_score` (LLMJuryMetric, the raw
    mean of the criterion scores, never the record's jury metric), a ROUGE or BERTScore the record names, else
    `exact_match`."""
    scenario = spec.get("scenario_spec") if isinstance(spec.get("scenario_spec"), dict) else {}
    if not str(scenario.get("class_name", "")).endswith(".MedHELMConfigurableScenario"):
        return b.mapping.metric.name, "helm"
    specs = spec.get("metric_specs") if isinstance(spec.get("metric_specs"), list) else []
    if any(isinstance(x, dict) and str(x.get("class_name", "")).endswith(".LLMJuryMetric") for x in specs):
        return "jury_score", "medhelm-config"
    own = b.mapping.metric.name
    return (own if own in SUMMARIZATION else "exact_match"), "medhelm-config"


def _helm_jury(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The jury of a HELM run: its LLM-jury annotator (the class is HELM's rubric) and the annotator models."""
    for annotator in spec.get("annotators") or [] if isinstance(spec.get("annotators"), list) else []:
        args = annotator.get("args") if isinstance(annotator, dict) else None
        models = args.get("annotator_models") if isinstance(args, dict) else None
        if isinstance(models, dict) and isinstance(annotator.get("class_name"), str):
            judges = {str(k): str(v.get("model_name")) for k, v in models.items()
                      if isinstance(v, dict) and isinstance(v.get("model_name"), str)}
            jury = checked_jury({"rubric": annotator["class_name"], "judges": judges})
            return jury or None
    return None


def _one_benchmark(reading: Reading, names: list[str], file: str, text: str) -> Benchmark | None:
    found: dict[str, Benchmark] = {}
    for name in names:
        try:
            b = reading.index.by_task_name(name)
        except Ambiguous as exc:
            reading.error("CLR964", file, *locate(text, quoted(name)), f"{name!r} matches several benchmarks: {exc}")
            return None
        if b is not None:
            found[b.key] = b
    if len(found) == 1:
        return next(iter(found.values()))
    where = locate(text, '"groups"', '"name"')
    if not found:
        reading.error("CLR963", file, *where, f"no run group of {names} is a benchmark of the registry",
                      "run groups are matched to mapping ids (optionally prefixed clinreg_)")
    else:
        reading.error("CLR964", file, *where, f"the run groups name several benchmarks: {', '.join(sorted(found))}")
    return None


def _instance_stats(reading: Reading, b: Benchmark, entries: Any, file: str, text: str,
                    metric: str) -> dict[str, Any] | None:
    """The main metric per instance, from per_instance_stats.json as helm-run writes it.

    stats.json holds one aggregate per trial (its `count` is the number of trials, not of instances), so the
    instances, their sum and their spread come from here: one entry per instance and trial, each with its
    stats. An instance's value is its mean over trials; perturbed entries are left out.
    """
    if not isinstance(entries, list):
        reading.error("CLR962", file, 1, 1, "per_instance_stats.json must be a list of instances")
        return None
    values: dict[str, dict[str, list[float]]] = {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("perturbation") is not None:
            continue
        instance = entry.get("instance_id")
        stats = entry.get("stats")
        if stats is not None and not isinstance(stats, list):
            reading.error("CLR962", file, *locate(text, quoted(str(instance))),
                          f"instance {str(instance)[:80]}: `stats` must be a list of stats, not {type(stats).__name__}")
            return None
        for stat in stats or []:
            name = stat.get("name") if isinstance(stat, dict) else None
            if not isinstance(name, dict) or name.get("name") != metric or name.get("perturbation") is not None:
                continue
            mean = finite_number(stat.get("mean"))
            if mean is None:
                reading.error("CLR966", file, *locate(text, quoted(str(instance))),
                              f"{metric} of instance {instance}: mean must be a finite number")
                return None
            values.setdefault(str(name.get("split")), {}).setdefault(str(instance), []).append(mean)
    split = _main_split(values)
    if split is None:
        reading.error("CLR965", file, 1, 1, f"no per-instance stat for {b.key}'s main metric {metric}" if not values
                      else
                      f"per-instance stats for {metric} on several splits ({', '.join(sorted(values))}) and none is "
                      "test or valid")
        return None
    per = [sum(v) / len(v) for v in values[split].values()]
    return {"ids": list(values[split]), "count": len(per), "sum": sum(per), "sum_squared": sum(v * v for v in per),
            "min": min(per), "max": max(per)}


def _main_stats(reading: Reading, b: Benchmark, stats: Any, file: str, text: str, metric: str) -> dict[str, Any] | None:
    """The main metric's stat on the main split (test, else valid), sub-splits merged, no perturbation.

    Used only for a run folder without per_instance_stats.json: each stat's `count` there is a number of
    trials, so the instances are taken from the `num_instances` stat of the same split, and the spread is
    unknown (taken as zero).
    """
    if not isinstance(stats, list):
        reading.error("CLR962", file, 1, 1, "stats.json must be a list of stats")
        return None
    by_split: dict[str, list[dict]] = {}
    for stat in stats:
        name = stat.get("name") if isinstance(stat, dict) else None
        if not isinstance(name, dict) or name.get("name") != metric or name.get("perturbation") is not None:
            continue
        by_split.setdefault(str(name.get("split")), []).append(stat)
    split = _main_split(by_split)
    if split is None:
        reading.error("CLR965", file, 1, 1, f"no stat for {b.key}'s main metric {metric}" if not by_split else
                      f"stats for {metric} on several splits ({', '.join(sorted(by_split))}) and none is test or valid")
        return None
    instances = _num_instances(stats, split)
    if instances is not None:
        means = [finite_number(stat.get("mean")) for stat in by_split[split]]
        if all(m is not None for m in means) and means:
            mean = sum(means) / len(means)
            return {"count": instances, "sum": mean * instances, "sum_squared": mean * mean * instances,
                    "min": min(means), "max": max(means)}
    total = {"count": 0, "sum": 0.0, "sum_squared": 0.0, "min": math.inf, "max": -math.inf}
    for stat in by_split[split]:
        n, s, ss = count(stat.get("count")), finite_number(stat.get("sum")), finite_number(stat.get("sum_squared"))
        if n is None or s is None or ss is None:
            reading.error("CLR966", file, *locate(text, quoted(metric)),
                          f"{metric} on {split}: count must be a whole number >= 1 and sum, sum_squared finite numbers")
            return None
        total["count"] += n
        total["sum"] += s
        total["sum_squared"] += ss
        lo, hi = finite_number(stat.get("min")), finite_number(stat.get("max"))
        total["min"] = min(total["min"], lo if lo is not None else -math.inf)
        total["max"] = max(total["max"], hi if hi is not None else math.inf)
    return total


def _num_instances(stats: list, split: str) -> int | None:
    """The instances a run evaluated on `split`: the mean of its `num_instances` stat (one value per trial)."""
    for stat in stats:
        name = stat.get("name") if isinstance(stat, dict) else None
        if isinstance(name, dict) and name.get("name") == "num_instances" and str(name.get("split")) == split \
                and name.get("perturbation") is None:
            value = finite_number(stat.get("mean"))
            if value is not None and value >= 1 and float(value).is_integer():
                return int(value)
    return None


def _main_split(splits: dict[str, Any]) -> str | None:
    """The split a score is read from: test, else valid, else the only one there is."""
    return ("test" if "test" in splits else "valid" if "valid" in splits
            else (next(iter(splits)) if len(splits) == 1 else None))
