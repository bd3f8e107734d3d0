"""Read per-benchmark scores from HELM leaderboard CSVs, HELM run folders, lm-eval and Inspect logs, and clinreg files.

Every input is untrusted: sizes are capped, JSON is parsed strictly (no NaN, no duplicate keys, bounded depth),
numbers must be finite, and each problem becomes a located, rule-coded finding instead of an exception.
"""

from __future__ import annotations

import io
import math
import re
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

from clinreg.results.index import Ambiguous, Benchmark, BenchmarkIndex
from clinreg.results.scores import (
    MAX_TEXT_BYTES,
    RESULTS_FORMAT,
    Findings,
    ReportedWinRate,
    Score,
    Unreadable,
    count,
    decode,
    finite_number,
    locate,
    parse_json,
    position,
    quoted,
    read_text,
    summarise,
)

MAX_RUN_DIRS = 20_000
MAX_ZIP_BYTES = 512 * 1024 * 1024  # an Inspect .eval archive on disk
MAX_ZIP_MEMBER = 64 * 1024 * 1024
MAX_ZIP_TOTAL = 1024 * 1024 * 1024  # everything read out of one archive
MAX_ZIP_MEMBERS = 200_000
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
MISSING_CELLS = {"", "-", "\u2013", "\u2014", "n/a", "na", "none", "null"}
# Inspect's letter scores: correct, incorrect, partial, no answer (its `accuracy` metric reads them this way).
INSPECT_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


class Reading:
    """State shared by the readers of one import: the registry's benchmarks, the findings, what was read."""

    def __init__(self, index: BenchmarkIndex):
        self.index = index
        self.findings = Findings()
        self.scores: list[Score] = []
        self.reported: list[ReportedWinRate] = []

    def error(self, code: str, file: str, line: int, column: int, message: str, hint: str | None = None) -> None:
        self.findings.add(code, file, line, column, message, hint)

    def score(self, b: Benchmark, model: str, value: float, source: dict[str, Any], n: int | None = None,
              stderr: float | None = None, per_instance: dict[str, Any] | None = None) -> None:
        m = b.mapping
        from_registry = n is None and m.instances.evaluated is not None
        self.scores.append(Score(
            model=model, record=b.record.id, mapping=m.id, metric=m.metric.name, value=value,
            range=list(m.metric.range) if m.metric.range else None,
            n_instances=m.instances.evaluated if from_registry else n,
            n_instances_from="registry" if from_registry else ("results" if n is not None else None),
            source=source, stderr=stderr, per_instance=per_instance))


# --------------------------------------------------------------------------------------------- dispatch


def read_source(reading: Reading, path: Path) -> None:
    """Read one SOURCE (file or HELM run folder) into `reading`, adding findings for whatever is wrong."""
    name = str(path)
    try:
        if path.is_dir():
            read_helm_runs(reading, path)
            return
        suffix = path.suffix.casefold()
        if suffix == ".csv":
            read_helm_csv(reading, name, read_text(path))
        elif suffix == ".eval":
            read_inspect_eval(reading, path)
        elif suffix == ".json":
            text = read_text(path)
            data = parse_json(text)
            read_json_document(reading, name, text, data)
        elif not path.exists():
            raise Unreadable("no such file or folder")
        else:
            raise Unreadable("unknown kind of results: expected a .csv, .json or .eval file, or a HELM run folder")
    except Unreadable as exc:
        reading.error("CLR961", name, exc.line, exc.column, str(exc))


def read_json_document(reading: Reading, name: str, text: str, data: Any) -> None:
    if isinstance(data, dict) and "clinreg_results" in data:
        read_clinreg_results(reading, name, text, data)
    elif isinstance(data, dict) and isinstance(data.get("eval"), dict) and "version" in data:
        read_inspect_log(reading, name, text, data, samples=data.get("samples"))
    elif isinstance(data, dict) and isinstance(data.get("results"), dict):
        read_lm_eval(reading, name, text, data)
    else:
        reading.error("CLR962", name, 1, 1, "not a results file clinreg knows: expected a clinreg results file "
                      "(`clinreg_results`), an lm-eval results_*.json (`results`) or an Inspect log (`eval`)")


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
        try:
            spec_text = read_text(spec_file)
            spec = parse_json(spec_text)
        except Unreadable as exc:
            reading.error("CLR961", str(spec_file), exc.line, exc.column, str(exc))
            continue
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
        try:
            stats_text = read_text(stats_file)
            stats = parse_json(stats_text)
        except Unreadable as exc:
            reading.error("CLR961", str(stats_file), exc.line, exc.column, str(exc))
            continue
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


# --------------------------------------------------------------------------------------------- lm-eval


def read_lm_eval(reading: Reading, name: str, text: str, data: dict[str, Any]) -> None:
    """lm-eval's results_<date>.json: `results` maps each task to `<metric>,<filter>` values."""
    model = _lm_eval_model(data)
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
        b = _task_benchmark(reading, task, name, where)
        if b is None:
            continue
        found = {}
        for key, value in metrics.items():
            metric, _, filt = key.partition(",")
            if b.accepts_metric(metric) and not metric.endswith("_stderr"):
                found[(metric, filt)] = value
        if len(found) > 1:
            found = {k: v for k, v in found.items() if k[1] in ("none", "")} or found
        if not found:
            reading.error("CLR965", name, *where, f"task {task!r} has no value for {b.key}'s main metric "
                          f"{b.mapping.metric.name}", _stand_in_hint(b) or
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
                                        "where": f"results.{task}.{metric},{filt}" if filt else f"results.{task}.{metric}"},
                      n=n, stderr=stderr if stderr is not None and stderr >= 0 else None)


def _stand_in_hint(b: Benchmark) -> str | None:
    if b.mapping.metric.range and list(b.mapping.metric.range) == [1, 5]:
        return ("this benchmark is scored by MedHELM's 1-5 LLM jury; a token-overlap score from an export is a "
                "stand-in on another scale, so it is not ranked as the jury score")
    return None


def _lm_eval_model(data: dict[str, Any]) -> str | None:
    if isinstance(data.get("model_name"), str) and data["model_name"].strip():
        return data["model_name"].strip()
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    args = config.get("model_args")
    if isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            if key.strip() in ("pretrained", "model") and value.strip():
                return value.strip()
    if isinstance(config.get("model"), str) and config["model"].strip():
        return config["model"].strip()
    return None


def _task_benchmark(reading: Reading, task: str, file: str, where: tuple[int, int]) -> Benchmark | None:
    try:
        b = reading.index.by_task_name(task)
    except Ambiguous as exc:
        reading.error("CLR964", file, *where, f"task {task!r} matches several benchmarks: {exc}")
        return None
    if b is None:
        reading.error("CLR963", file, *where, f"task {task!r} is no benchmark of the registry",
                      "task names are the mapping id, optionally prefixed clinreg_ (e.g. clinreg_med_qa)")
    return b


# --------------------------------------------------------------------------------------------- Inspect


def read_inspect_eval(reading: Reading, path: Path) -> None:
    """An Inspect `.eval` log: a zip holding header.json (eval, results) and per-sample scores.

    Per-sample scores come from summaries.json when the archive has it (small), else from samples/*.json.
    Current Inspect versions compress members with Zstandard (zip method 93), which Python's zipfile reads
    only from 3.14; on older Pythons the optional `zstandard` package decompresses them.
    """
    name = str(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise Unreadable(f"cannot read it: {exc.strerror or exc}") from None
    if size > MAX_ZIP_BYTES:
        raise Unreadable(f"larger than {MAX_ZIP_BYTES // (1024 * 1024)} MiB; refusing to read it")
    try:
        with zipfile.ZipFile(path) as archive, path.open("rb") as raw:
            infos = archive.infolist()
            if len(infos) > MAX_ZIP_MEMBERS:
                raise Unreadable(f"more than {MAX_ZIP_MEMBERS} members")
            members = {i.filename: i for i in infos}
            if "header.json" not in members:
                raise Unreadable("no header.json in the archive: not an Inspect .eval log")
            budget = [MAX_ZIP_TOTAL]

            def member(info: zipfile.ZipInfo) -> Any:
                limit = min(MAX_ZIP_MEMBER, budget[0])
                if info.file_size > limit:
                    raise Unreadable(f"{info.filename} is too large ({info.file_size} bytes)")
                data = _zip_member(archive, raw, info, limit)
                budget[0] -= len(data)
                try:
                    return parse_json(decode(data))
                except Unreadable as exc:
                    raise Unreadable(f"{info.filename}: {exc}") from None

            header = member(members["header.json"])
            if "summaries.json" in members:
                samples = member(members["summaries.json"])
            else:
                samples = [member(info) for fname, info in sorted(members.items())
                           if fname.startswith("samples/") and fname.endswith(".json")]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError, OSError,
            ValueError) as exc:
        raise Unreadable(f"not a readable zip archive: {exc}") from None
    if not isinstance(header, dict):
        reading.error("CLR962", name, 1, 1, "header.json must be an object")
        return
    read_inspect_log(reading, name, "", header, samples=samples)


ZIP_ZSTANDARD = 93


def _zip_member(archive: zipfile.ZipFile, raw: Any, info: zipfile.ZipInfo, limit: int) -> bytes:
    """A member's bytes, never more than `limit`, checked against its CRC."""
    if info.compress_type != ZIP_ZSTANDARD:
        with archive.open(info) as handle:
            data = handle.read(limit + 1)
        if len(data) > limit:
            raise Unreadable(f"{info.filename} is larger than it says")
        return data
    raw.seek(info.header_offset)
    local = raw.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise Unreadable(f"{info.filename}: bad local header")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    raw.seek(info.header_offset + 30 + name_len + extra_len)
    data = _zstd_decompress(raw.read(info.compress_size), limit, info.filename)
    if zlib.crc32(data) != info.CRC:
        raise Unreadable(f"{info.filename}: checksum mismatch")
    return data


def _zstd_decompress(data: bytes, limit: int, member: str) -> bytes:
    """Zstandard-decompress at most `limit` + 1 bytes, so a small member cannot expand without bound."""
    try:
        from compression import zstd  # Python 3.14+

        def run() -> bytes:
            return zstd.ZstdDecompressor().decompress(data, max_length=limit + 1)
    except ImportError:
        try:
            import zstandard
        except ImportError:
            raise Unreadable(f"{member} is Zstandard-compressed; install the optional `zstandard` package "
                             "(pip install 'clinreg[inspect]') or convert the log: inspect log convert --to json") \
                from None

        def run() -> bytes:
            chunks, total = [], 0
            with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True) as stream:
                while total <= limit:
                    chunk = stream.read(min(1 << 20, limit + 1 - total))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    total += len(chunk)
            return b"".join(chunks)
    try:
        out = run()
    except Exception as exc:  # each decompressor raises its own error type on a corrupt frame
        raise Unreadable(f"{member}: cannot decompress it ({type(exc).__name__})") from None
    if len(out) > limit:
        raise Unreadable(f"{member} is larger than it says")
    return out


def read_inspect_log(reading: Reading, name: str, text: str, log: dict[str, Any], samples: Any) -> None:
    """An Inspect eval log (the `.json` form, or a `.eval` archive's header): task, model, status and scores."""
    info = log.get("eval") if isinstance(log.get("eval"), dict) else {}
    task, model = info.get("task"), info.get("model")
    where = locate(text, '"task"') if text else (1, 1)
    if not isinstance(task, str) or not isinstance(model, str) or not task or not model.strip():
        reading.error("CLR962", name, *where, "an Inspect log needs eval.task and eval.model")
        return
    if log.get("status") != "success":
        reading.error("CLR962", name, *locate(text, '"status"') if text else (1, 1),
                      f"the log's status is {str(log.get('status'))[:40]!r}, not success: its scores are incomplete")
        return
    b = _task_benchmark(reading, task, name, where)
    if b is None:
        return
    results = log.get("results") if isinstance(log.get("results"), dict) else {}
    scores = results.get("scores") if isinstance(results.get("scores"), list) else []
    candidates = []
    for score in scores:
        if not isinstance(score, dict) or not isinstance(score.get("metrics"), dict):
            continue
        scorer = str(score.get("name") or score.get("scorer") or "")
        for metric_name, metric in score["metrics"].items():
            value = finite_number(metric.get("value")) if isinstance(metric, dict) else None
            own = scorer == b.mapping.metric.name and metric_name in ("mean", "accuracy")
            if value is not None and (b.accepts_metric(metric_name) or b.accepts_metric(f"{scorer}/{metric_name}")
                                      or own):
                stderr = score["metrics"].get("stderr")
                stderr = finite_number(stderr.get("value")) if isinstance(stderr, dict) else None
                candidates.append((scorer, metric_name, value, stderr))
    rwhere = locate(text, '"results"') if text else (1, 1)
    if not candidates:
        reading.error("CLR965", name, *rwhere, f"no scorer reports {b.key}'s main metric {b.mapping.metric.name}",
                      _stand_in_hint(b))
        return
    if len({c[2] for c in candidates}) > 1:
        reading.error("CLR962", name, *rwhere, "several scorers report the main metric with different values: "
                      + ", ".join(f"{c[0]}/{c[1]}" for c in candidates))
        return
    scorer, metric_name, value, stderr = candidates[0]
    per_instance = _inspect_samples(samples, scorer)
    n = per_instance["n"] if per_instance else (count(results.get("completed_samples"))
                                                 or count(results.get("total_samples")))
    reading.score(b, model.strip(), value, {"format": "inspect", "file": name, "line": rwhere[0], "column": rwhere[1],
                                            "where": f"results.scores.{scorer}.{metric_name}"},
                  n=n, stderr=stderr if stderr is not None and stderr >= 0 else None, per_instance=per_instance)


def _inspect_samples(samples: Any, scorer: str) -> dict[str, Any] | None:
    """Per-sample scores averaged over epochs; None unless every sample has a numeric score."""
    if not isinstance(samples, list) or not samples:
        return None
    by_id: dict[str, list[float]] = {}
    for sample in samples:
        scores = sample.get("scores") if isinstance(sample, dict) else None
        entry = scores.get(scorer) if isinstance(scores, dict) else None
        raw = entry.get("value") if isinstance(entry, dict) else None
        value = INSPECT_LETTERS.get(raw) if isinstance(raw, str) else \
            (float(raw) if isinstance(raw, bool) else finite_number(raw))
        if value is None:
            return None
        by_id.setdefault(str(sample.get("id")), []).append(value)
    return summarise([math.fsum(v) / len(v) for v in by_id.values()])


# --------------------------------------------------------------------------------------------- clinreg results file


SCORE_FIELDS = ("model", "record", "mapping", "metric", "value")


def read_clinreg_results(reading: Reading, name: str, text: str, data: dict[str, Any]) -> None:
    """A file `clinreg results import` wrote: checked again, since it may have been edited by hand."""
    if data.get("clinreg_results") != RESULTS_FORMAT or not isinstance(data.get("scores"), list):
        reading.error("CLR962", name, *locate(text, '"clinreg_results"'),
                      f"expected clinreg_results: {RESULTS_FORMAT} and a list of scores")
        return
    offset = 0
    for i, entry in enumerate(data["scores"]):
        # Scores are written one object after another, so the i-th `"model"` key is (close to) entry i.
        at = text.find('"model"', offset)
        offset = at + 1 if at >= 0 else offset
        where = position(text, at) if at >= 0 else (1, 1)
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) and entry.get(k) for k in SCORE_FIELDS[:4]):
            reading.error("CLR962", name, *where, f"scores[{i}] needs text fields {', '.join(SCORE_FIELDS[:4])}")
            continue
        b = reading.index.get(entry["record"], entry["mapping"])
        if b is None:
            reading.error("CLR963", name, *where, f"scores[{i}]: {entry['record']}/{entry['mapping']} is no benchmark "
                          "of the registry")
            continue
        if entry["metric"] != b.mapping.metric.name:
            reading.error("CLR965", name, *where, f"scores[{i}]: metric {entry['metric']!r} is not {b.key}'s main "
                          f"metric {b.mapping.metric.name}")
            continue
        value = finite_number(entry.get("value"))
        if value is None:
            reading.error("CLR966", name, *where, f"scores[{i}]: value must be a finite number")
            continue
        n = entry.get("n_instances")
        if n is not None and count(n) is None:
            reading.error("CLR966", name, *where, f"scores[{i}]: n_instances must be a whole number >= 1 or null")
            continue
        stderr = entry.get("stderr")
        if stderr is not None and (finite_number(stderr) is None or stderr < 0):
            reading.error("CLR966", name, *where, f"scores[{i}]: stderr must be a finite number >= 0 or null")
            continue
        per_instance = _checked_per_instance(entry.get("per_instance"))
        if per_instance is False:
            reading.error("CLR966", name, *where, f"scores[{i}]: per_instance needs n >= 1, finite mean and sd >= 0, "
                          "and binary true or false")
            continue
        source = entry.get("source") if isinstance(entry.get("source"), dict) else {}
        reading.score(b, entry["model"], value, {**source, "via": name, "line": where[0], "column": where[1]},
                      n=count(n) if n is not None and entry.get("n_instances_from") != "registry" else None,
                      stderr=stderr, per_instance=per_instance)
    for entry in data.get("reported_win_rates") or []:
        if isinstance(entry, dict) and isinstance(entry.get("model"), str) and finite_number(entry.get("value")) \
                is not None and isinstance(entry.get("benchmarks"), list):
            reading.reported.append(ReportedWinRate(entry["model"], float(entry["value"]),
                                                    [str(k) for k in entry["benchmarks"]], {"via": name}))


def _checked_per_instance(value: Any) -> dict[str, Any] | None | bool:
    if value is None:
        return None
    if not isinstance(value, dict):
        return False
    n, mean, sd, binary = count(value.get("n")), finite_number(value.get("mean")), finite_number(value.get("sd")), \
        value.get("binary")
    if n is None or mean is None or sd is None or sd < 0 or not isinstance(binary, bool):
        return False
    return {"n": n, "mean": mean, "sd": sd, "binary": binary}


__all__ = ["MAX_TEXT_BYTES", "Reading", "read_source"]
