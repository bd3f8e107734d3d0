"""HELM's outputs: a leaderboard CSV as its front end shows it, and benchmark_output/runs/<suite> run folders."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from clinreg.results.index import Ambiguous, Benchmark
from clinreg.results.reading import Reading
from clinreg.results.scores import (
    ReportedWinRate,
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
            rows.append((number, fields, starts))
    if not rows:
        reading.error("CLR962", name, 1, 1, "the file is empty: expected a header row starting with Model")
        return
    header_line, header, header_starts = rows[0]
    if header[0].strip().casefold() not in ("model", "model/adapter"):
        reading.error("CLR962", name, header_line, 1, f"the first column is {header[0].strip()[:60]!r}, not Model",
                      "export the leaderboard with its Model column first")
        return
    columns: dict[int, Benchmark] = {}
    win_rate_column = None
    taken: dict[str, int] = {}
    for j in range(1, len(header)):
        head, column = " ".join(header[j].split()), header_starts[j] + 1
        if head.casefold() == "mean win rate":
            win_rate_column = j
            continue
        if not head:
            reading.error("CLR962", name, header_line, column, f"column {j + 1} has no header")
            continue
        matches, name_only = reading.index.by_header(head)
        if len(matches) > 1:
            reading.error("CLR964", name, header_line, column,
                          f"column {head!r} matches several benchmarks: {', '.join(b.key for b in matches)}",
                          "use the untruncated header")
        elif not matches and name_only:
            b = name_only[0]
            reading.error("CLR965", name, header_line, column,
                          f"column {head!r} is {b.key} on another metric; its main metric is {b.mapping.metric.name}"
                          f" ({b.mapping.metric.display or 'no display name'})")
        elif not matches:
            reading.error("CLR963", name, header_line, column, f"column {head!r} maps to no benchmark of the registry",
                          "a column is `<benchmark display name> - <metric>`; the names are each mapping's helm_names")
        elif matches[0].key in taken:
            reading.error("CLR967", name, header_line, column,
                          f"column {head!r} is {matches[0].key} again (first in column {taken[matches[0].key] + 1})")
        else:
            columns[j] = matches[0]
            taken[matches[0].key] = j
    models: dict[str, int] = {}
    for number, fields, starts in rows[1:]:
        if len(fields) != len(header):
            reading.error("CLR962", name, number, 1, f"{len(fields)} fields where the header has {len(header)}")
            continue
        model = " ".join(fields[0].split())
        if not model:
            reading.error("CLR962", name, number, 1, "a row without a model name")
            continue
        if model in models:
            reading.error("CLR967", name, number, 1, f"model {model!r} again (first on line {models[model]})")
            continue
        models[model] = number
        for j, b in columns.items():
            parsed = parse_cell(fields[j])
            if isinstance(parsed, str):
                reading.error("CLR966", name, number, starts[j] + 1, f"{b.key} for {model}: {parsed}")
            elif parsed is not None:
                reading.score(b, model, parsed, {"format": "helm_csv", "file": name, "line": number,
                                                  "column": starts[j] + 1, "where": " ".join(header[j].split())})
        if win_rate_column is not None:
            parsed = parse_cell(fields[win_rate_column])
            if isinstance(parsed, str) or (parsed is not None and not 0 <= parsed <= 1):
                reading.error("CLR966", name, number, starts[win_rate_column] + 1,
                              f"Mean win rate for {model}: {parsed if isinstance(parsed, str) else 'outside [0, 1]'}")
            elif parsed is not None:
                reading.reported.append(ReportedWinRate(
                    model, parsed, sorted(b.key for b in columns.values()),
                    {"format": "helm_csv", "file": name, "line": number, "column": starts[win_rate_column] + 1,
                     "where": "Mean win rate"}))


# --------------------------------------------------------------------------------------------- HELM run folders


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
    merged: dict[tuple[str, str], dict[str, Any]] = {}
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
        read = _read_json(reading, stats_file)
        if read is None:
            continue
        stats_text, stats = read
        picked = _main_stats(reading, b, stats, str(stats_file), stats_text)
        if picked is None:
            continue
        slot = merged.setdefault((model.strip(), b.key), {"b": b, "count": 0, "sum": 0.0, "sum_squared": 0.0,
                                                           "min": math.inf, "max": -math.inf, "runs": []})
        for key in ("count", "sum", "sum_squared"):
            slot[key] += picked[key]
        slot["min"], slot["max"] = min(slot["min"], picked["min"]), max(slot["max"], picked["max"])
        slot["runs"].append(str(stats_file))
    for (model, _), slot in merged.items():
        n = slot["count"]
        mean = slot["sum"] / n
        sd = math.sqrt(max(0.0, slot["sum_squared"] / n - mean * mean))
        binary = slot["min"] >= 0 and slot["max"] <= 1 and abs(slot["sum"] - slot["sum_squared"]) <= 1e-9 * max(1, n)
        source = {"format": "helm_runs", "file": slot["runs"][0], "line": 1, "column": 1,
                  "where": f"{len(slot['runs'])} run(s)", "runs": slot["runs"]}
        reading.score(slot["b"], model, mean, source, n=n,
                      per_instance={"n": n, "mean": mean, "sd": sd, "binary": binary})


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


def _main_stats(reading: Reading, b: Benchmark, stats: Any, file: str, text: str) -> dict[str, Any] | None:
    """The main metric's stat on the main split (test, else valid), sub-splits merged, no perturbation."""
    metric = b.mapping.metric.name
    if not isinstance(stats, list):
        reading.error("CLR962", file, 1, 1, "stats.json must be a list of stats")
        return None
    by_split: dict[str, list[dict]] = {}
    for stat in stats:
        name = stat.get("name") if isinstance(stat, dict) else None
        if not isinstance(name, dict) or name.get("name") != metric or name.get("perturbation") is not None:
            continue
        by_split.setdefault(str(name.get("split")), []).append(stat)
    split = "test" if "test" in by_split else "valid" if "valid" in by_split else \
        (next(iter(by_split)) if len(by_split) == 1 else None)
    if split is None:
        reading.error("CLR965", file, 1, 1, f"no stat for {b.key}'s main metric {metric}" if not by_split else
                      f"stats for {metric} on several splits ({', '.join(sorted(by_split))}) and none is test or valid")
        return None
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
