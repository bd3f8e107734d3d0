"""Inspect AI logs: the `.json` form, and `.eval` zip archives (Zstandard members included)."""

from __future__ import annotations

import io
import math
import stat
import struct
import zipfile
import zlib
from pathlib import Path, PurePath
from typing import Any, Iterator

from clinreg.results.accumulate import Reading, checked_jury, stand_in_hint, task_benchmark
from clinreg.results.provenance import instance_set, settings
from clinreg.results.score import summarise
from clinreg.results.strictinput import Unreadable, count, decode, finite_number, locate, parse_json
from clinreg.text.safeio import open_regular

MAX_ZIP_BYTES = 512 * 1024 * 1024  # an Inspect .eval archive on disk
MAX_ZIP_MEMBER = 64 * 1024 * 1024
MAX_ZIP_TOTAL = 256 * 1024 * 1024  # everything read out of one archive, unpacked (a few KB can inflate to it)
MAX_ZIP_MEMBERS = 200_000
# Inspect's letter scores: correct, incorrect, partial, no answer (its `accuracy` metric reads them this way).
INSPECT_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def read_inspect_eval(reading: Reading, path: Path) -> None:
    """An Inspect `.eval` log: a zip holding header.json (eval, results) and per-sample scores.

    Per-sample scores come from summaries.json when the archive has it (small), else from samples/*.json.
    Current Inspect versions compress members with Zstandard (zip method 93), which Python's zipfile reads
    only from 3.14; on older Pythons the optional `zstandard` package decompresses them.
    """
    header: Any = None
    samples: Any = []
    for name, value in eval_members(path):  # one member at a time; each sample kept only as far as it is read
        if name == "header.json":
            header = value
        elif name == "summaries.json":
            samples = value
        else:
            samples.append(_thin(value))
    if not isinstance(header, dict):
        reading.error("CLR962", str(path), 1, 1, "header.json must be an object")
        return
    read_inspect_log(reading, str(path), "", header, samples=samples)


def _thin(sample: Any) -> Any:
    """What the readers below read of a sample (its id and epoch, and each score's value and the jury in its
    metadata), so that an archive's samples, whose messages and outputs are most of it, never pile up whole."""
    if not isinstance(sample, dict):
        return sample
    scores = sample.get("scores")
    thin_scores = {}
    for name, entry in (scores.items() if isinstance(scores, dict) else ()):
        metadata = entry.get("metadata") if isinstance(entry, dict) else None
        kept = {k: metadata[k] for k in ("jury", "unrated") if isinstance(metadata, dict) and k in metadata}
        thin_scores[name] = {"value": entry.get("value"), "metadata": kept} if isinstance(entry, dict) else entry
    return {"id": sample.get("id"), "epoch": sample.get("epoch"),
            **({"scores": thin_scores} if isinstance(scores, dict) else {"scores": scores})}


def eval_members(path: Path, whole_samples: bool = False) -> Iterator[tuple[str, Any]]:
    """The members of an Inspect `.eval` archive parsed one at a time, every member bounded (raises Unreadable):
    ("header.json", header) first, then ("summaries.json", its list) when the archive has it, unless
    `whole_samples`, else (name, sample) for each samples/*.json. Only the member being read is held in memory."""
    try:
        info = path.stat()
    except OSError as exc:
        raise Unreadable(f"cannot read it: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):  # a FIFO would block zipfile's open, a device never end
        raise Unreadable("not a regular file")
    size = info.st_size
    if size > MAX_ZIP_BYTES:
        raise Unreadable(f"larger than {MAX_ZIP_BYTES // (1024 * 1024)} MiB; refusing to read it")
    try:
        with open_regular(path) as handle, zipfile.ZipFile(handle) as archive, open_regular(path) as raw:
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
                    return parse_json(decode(data), constants=True)  # Inspect writes NaN metrics
                except Unreadable as exc:
                    raise Unreadable(f"{info.filename}: {exc}") from None

            yield "header.json", member(members["header.json"])
            if "summaries.json" in members and not whole_samples:
                yield "summaries.json", member(members["summaries.json"])
            else:
                for fname, info in sorted(members.items()):
                    if fname.startswith("samples/") and fname.endswith(".json"):
                        yield fname, member(info)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError, OSError,
            ValueError, zlib.error) as exc:  # zlib.error: a deflated member that is corrupt
        raise Unreadable(f"not a readable zip archive: {exc}") from None


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
    except Exception as exc:  # noqa: BLE001 - each decompressor raises its own error type on a corrupt frame
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
    judged = judged_lm_eval(info)
    if judged is not None:  # an lm-eval run judged after it ended: the score is the lm-eval model's
        task, model = task.removesuffix(JUDGED_SUFFIX), judged["model"]
    b = task_benchmark(reading, task, name, where)
    if b is None:
        return
    results = log.get("results") if isinstance(log.get("results"), dict) else {}
    scores = results.get("scores") if isinstance(results.get("scores"), list) else []
    candidates = []
    unrated: list[str] = []
    others = []  # (scorer, metric name, value, stderr, n, metric): a metric of the benchmark's own beside the main one
    for score in scores:
        if not isinstance(score, dict) or not isinstance(score.get("metrics"), dict):
            continue
        scorer = str(score.get("name") or score.get("scorer") or "")
        for metric_name, metric in score["metrics"].items():
            other = b.other_metric(metric_name) or b.other_metric(f"{scorer}/{metric_name}")
            if other is not None:
                value = finite_number(metric.get("value")) if isinstance(metric, dict) else None
                if value is None:
                    unrated.append(f"{scorer}/{metric_name}" if scorer else metric_name)
                else:
                    others.append((scorer, metric_name, value, *_stats_beside(score["metrics"], metric_name), other))
                continue
            value = finite_number(metric.get("value")) if isinstance(metric, dict) else None
            own = scorer == b.mapping.metric.name and metric_name in ("mean", "accuracy")
            main = b.accepts_metric(metric_name) or b.accepts_metric(f"{scorer}/{metric_name}") or own
            if value is None and main:
                unrated.append(f"{scorer}/{metric_name}" if scorer else metric_name)
            if value is not None and main:
                stderr = score["metrics"].get("jury_stderr" if metric_name == "jury_mean" else "stderr")
                stderr = finite_number(stderr.get("value")) if isinstance(stderr, dict) else None
                candidates.append((scorer, metric_name, value, stderr))
    rwhere = locate(text, '"results"') if text else (1, 1)
    if not candidates and len(others) == 1:  # only the benchmark's other metric: a score of its own, named so
        scorer, metric_name, value, stderr, n, other = others[0]
        source = {"format": "inspect", "file": name, "line": rwhere[0], "column": rwhere[1],
                  "where": f"results.scores.{scorer}.{metric_name}"}
        if judged is not None:
            source["judged_lm_eval"] = judged["source"]
        grader = _inspect_grader(info, samples, scorer)
        reading.score(b, model.strip(), value, source, n=n, stderr=stderr, metric=other,
                      jury=checked_jury({"rubric": GRADER_RUBRIC, "judges": {"grader": grader}}) if grader else None,
                      provenance=_inspect_provenance(reading, info, samples))
        return
    if not candidates and unrated:  # the scorer ran, but every sample was left unrated (a mean of nothing)
        reading.error("CLR965", name, *rwhere, f"{', '.join(unrated)} reports {b.key}'s main metric "
                      f"{b.mapping.metric.name} with no value: no judge rated any sample",
                      "check that the judge models ran (names, keys, network), then score the log again")
        return
    if not candidates:
        reading.error("CLR965", name, *rwhere, f"no scorer reports {b.key}'s main metric {b.mapping.metric.name}",
                      stand_in_hint(b))
        return
    if len({c[2] for c in candidates}) > 1:
        reading.error("CLR962", name, *rwhere, "several scorers report the main metric with different values: "
                      + ", ".join(f"{c[0]}/{c[1]}" for c in candidates))
        return
    scorer, metric_name, value, stderr = candidates[0]
    jury = _inspect_jury(info, samples, scorer) if metric_name == "jury_mean" else None
    if jury is False:
        reading.error("CLR962", name, *rwhere, "the jury score does not say which rubric and judges produced it")
        return
    per_instance = _inspect_samples(samples, scorer)
    n = per_instance["n"] if per_instance else (count(results.get("completed_samples"))
                                                 or count(results.get("total_samples")))
    source = {"format": "inspect", "file": name, "line": rwhere[0], "column": rwhere[1],
              "where": f"results.scores.{scorer}.{metric_name}"}
    if judged is not None:
        source["judged_lm_eval"] = judged["source"]
    reading.score(b, model.strip(), value, source,
                  n=n, stderr=stderr if stderr is not None and stderr >= 0 else None, per_instance=per_instance,
                  jury=jury, provenance=_inspect_provenance(reading, info, samples))


GRADER_RUBRIC = "simple-evals healthbench grader"  # what graded a rubric score, beside the grader model


def _inspect_grader(info: dict[str, Any], samples: Any, scorer: str) -> str | None:
    """The grader model behind an Inspect rubric score: as the samples' scores recorded it, else (as the scorer picks
    it) the `grader` task argument, the run's model role `grader` or the record's grader in the task's metadata;
    None where none says."""
    for sample in samples if isinstance(samples, list) else []:
        scores = sample.get("scores") if isinstance(sample, dict) else None
        entry = scores.get(scorer) if isinstance(scores, dict) else None
        metadata = entry.get("metadata") if isinstance(entry, dict) else None
        grader = metadata.get("grader") if isinstance(metadata, dict) else None
        if isinstance(grader, dict) and isinstance(grader.get("model"), str) and grader["model"]:
            return grader["model"]
    args = info.get("task_args") if isinstance(info.get("task_args"), dict) else {}
    role = (info.get("model_roles") or {}).get("grader") if isinstance(info.get("model_roles"), dict) else None
    declared: Any = info.get("metadata")
    for key in ("scoring", "rubric", "grader"):
        declared = declared.get(key) if isinstance(declared, dict) else None
    for found in (args.get("grader"), role.get("model") if isinstance(role, dict) else None,
                  (declared.get("inspect_model") or declared.get("model")) if isinstance(declared, dict) else None):
        if isinstance(found, str) and found:
            return found
    return None


def _stats_beside(metrics: dict[str, Any], name: str) -> tuple[float | None, int | None]:
    """(stderr, n) of a metric reported as simple-evals reports it: `NAME:bootstrap_std` (the bootstrap estimate
    of the clipped mean's standard error) and `NAME:n_samples` beside it; None where absent or not a number."""
    found = []
    for statistic in ("bootstrap_std", "n_samples"):
        entry = metrics.get(f"{name}:{statistic}")
        found.append(finite_number(entry.get("value")) if isinstance(entry, dict) else None)
    stderr, n = found
    return (stderr if stderr is not None and stderr >= 0 else None,
            int(n) if n is not None and n >= 1 and float(n).is_integer() else None)


def _inspect_provenance(reading: Reading, info: dict[str, Any], samples: Any) -> dict[str, Any]:
    """Harness and version (`packages`), the samples' ids, the generate config (and epochs), the export's data file."""
    packages = info.get("packages") if isinstance(info.get("packages"), dict) else {}
    dataset = info.get("dataset") if isinstance(info.get("dataset"), dict) else {}
    ids = dataset.get("sample_ids") if isinstance(dataset.get("sample_ids"), list) else None
    if not ids and isinstance(samples, list):
        ids = [s.get("id") for s in samples if isinstance(s, dict) and s.get("id") is not None]
    config = info.get("config") if isinstance(info.get("config"), dict) else {}
    generation = dict(info.get("model_generate_config") or {}) if isinstance(info.get("model_generate_config"), dict) \
        else {}
    if isinstance(config.get("epochs"), int) and config["epochs"] != 1:
        generation["epochs"] = config["epochs"]
    metadata = info.get("metadata") if isinstance(info.get("metadata"), dict) else {}
    task_file = info.get("task_file")
    if isinstance(task_file, str) and isinstance(metadata.get("data_file"), str):
        if PurePath(task_file).is_absolute():
            reading.points_into(str(PurePath(task_file).parent / metadata["data_file"]))
    out = {"harness": "inspect", "harness_version": packages.get("inspect_ai"), "instance_set": instance_set(ids or []),
           "generation": settings(generation), "data_file": metadata.get("data_file")}
    return {k: v for k, v in out.items() if v}


JUDGED_SUFFIX = "_lm_eval_judged"


def judged_lm_eval(info: dict[str, Any]) -> dict[str, Any] | None:
    """The lm-eval run an Inspect log judged after it ended (the export's clinreg_lm_eval_judged task): the model
    that answered, named as clinreg names an lm-eval run's model, and the samples and results files it read."""
    from clinreg.results.lm_eval import lm_eval_model

    metadata = info.get("metadata") if isinstance(info.get("metadata"), dict) else {}
    judged = metadata.get("judged_lm_eval_samples")
    if not isinstance(judged, dict) or not str(info.get("task", "")).endswith(JUDGED_SUFFIX):
        return None
    model = lm_eval_model({"config": judged.get("config"), "model_name": judged.get("model_name")})
    if model is None:
        return None
    return {"model": model, "source": {k: judged[k] for k in ("file", "sha256", "results_file")
                                       if isinstance(judged.get(k), str)}}


def _inspect_jury(info: dict[str, Any], samples: Any, scorer: str) -> dict[str, Any] | bool:
    """The rubric and judges behind an Inspect jury score: as each sample's score recorded them, else as the task's
    metadata declares them with the run's model roles (`judge_<name>`) and `judges` task argument applied."""
    for sample in samples if isinstance(samples, list) else []:
        scores = sample.get("scores") if isinstance(sample, dict) else None
        entry = scores.get(scorer) if isinstance(scores, dict) else None
        metadata = entry.get("metadata") if isinstance(entry, dict) else None
        if isinstance(metadata, dict) and "jury" in metadata:
            return checked_jury(metadata["jury"]) or False
    scoring = (info.get("metadata") or {}).get("scoring") if isinstance(info.get("metadata"), dict) else None
    jury = scoring.get("jury") if isinstance(scoring, dict) else None
    if not isinstance(jury, dict) or not isinstance(jury.get("judges"), list):
        return False
    roles = info.get("model_roles") if isinstance(info.get("model_roles"), dict) else {}
    args = info.get("task_args") if isinstance(info.get("task_args"), dict) else {}
    override = [j.strip() for j in args["judges"].split(",")] if isinstance(args.get("judges"), str) else []
    judges = {}
    for i, judge in enumerate(j for j in jury["judges"] if isinstance(j, dict)):
        role = roles.get(f"judge_{judge.get('name')}")
        model = (override[i if len(override) > 1 else 0] if override and len(override) in (1, len(jury["judges"]))
                 else role.get("model") if isinstance(role, dict) else judge.get("inspect_model") or judge.get("model"))
        judges[str(judge.get("name"))] = model
    return checked_jury({"rubric": scoring.get("rubric_id"), "judges": judges}) or False


def _inspect_samples(samples: Any, scorer: str) -> dict[str, Any] | None:
    """Per-sample scores averaged over epochs; None unless every sample has a numeric score."""
    if not isinstance(samples, list) or not samples:
        return None
    by_id: dict[str, list[float]] = {}
    for sample in samples:
        scores = sample.get("scores") if isinstance(sample, dict) else None
        entry = scores.get(scorer) if isinstance(scores, dict) else None
        if isinstance(entry, dict) and isinstance(entry.get("metadata"), dict) and entry["metadata"].get("unrated"):
            continue  # no judge rated it: left out of the jury's mean, and so out of the instance statistics
        raw = entry.get("value") if isinstance(entry, dict) else None
        value = INSPECT_LETTERS.get(raw) if isinstance(raw, str) else \
            (float(raw) if isinstance(raw, bool) else finite_number(raw))
        if value is None:
            return None
        by_id.setdefault(str(sample.get("id")), []).append(value)
    return summarise([math.fsum(v) / len(v) for v in by_id.values()])
