"""Checking a jury against clinicians: from per-instance ratings (instance_id, rater, axis, score; a rater is a
judge model, or a clinician when its name starts `clinician:`), the intraclass correlation between the judges and
between the jury mean and the clinicians' mean, Krippendorff's alpha (interval), each judge's bias, and, when the
ratings name the model that was rated, how the ranking of models changes with one judge left out."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any

from clinreg.core.agreement import icc2, kendall_tau, krippendorff_alpha

COLUMNS = ("instance_id", "rater", "axis", "score")
CLINICIAN = "clinician:"
MAX_PROBLEMS = 50


class RatingsError(ValueError):
    """The ratings file cannot be read: every problem, each with its line."""

    def __init__(self, problems: list[str]):
        super().__init__(problems[0] if problems else "bad ratings file")
        self.problems = problems


@dataclass(frozen=True)
class Rating:
    instance_id: str
    rater: str
    axis: str
    score: float
    model: str | None = None
    benchmark: str | None = None


def is_clinician(rater: str) -> bool:
    return rater.startswith(CLINICIAN)


def _row(where: str, row: dict[str, Any], problems: list[str]) -> Rating | None:
    bad = False
    values: dict[str, str] = {}
    for column in COLUMNS[:3]:
        value = row.get(column)
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{where}: `{column}` is missing or empty")
            bad = True
        else:
            values[column] = value.strip()
    raw = row.get("score")
    score: float | None = None
    if isinstance(raw, bool) or raw is None or (isinstance(raw, str) and not raw.strip()):
        problems.append(f"{where}: `score` is missing or not a number")
    else:
        try:
            score = float(raw)
        except (TypeError, ValueError):
            problems.append(f"{where}: `score` {str(raw)[:40]!r} is not a number")
        else:
            if not math.isfinite(score):
                problems.append(f"{where}: `score` must be a finite number")
                score = None
    optional: dict[str, str | None] = {}
    for column in ("model", "benchmark"):
        value = row.get(column)
        if value is not None and not (isinstance(value, str) and value.strip()):
            problems.append(f"{where}: `{column}`, when given, must be a non-empty text")
            bad = True
        optional[column] = value.strip() if isinstance(value, str) and value.strip() else None
    if bad or score is None:
        return None
    return Rating(values["instance_id"], values["rater"], values["axis"], score, optional["model"],
                  optional["benchmark"])


def read_ratings(path: Path) -> list[Rating]:
    """The ratings in a CSV file (a header with the columns instance_id, rater, axis, score and optionally
    model and benchmark) or a JSON lines file (one object per line with those keys). Raises RatingsError with every
    problem located by line."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise RatingsError([f"{path}: cannot read it: {exc.strerror or exc}"])
    except UnicodeDecodeError:
        raise RatingsError([f"{path}: not UTF-8 text"])
    problems: list[str] = []
    ratings: list[Rating] = []
    rows: list[tuple[str, dict[str, Any]]] = []
    if text.lstrip().startswith("{"):
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                problems.append(f"{path}:{number}: not a JSON object ({exc.msg})")
                continue
            if not isinstance(obj, dict):
                problems.append(f"{path}:{number}: not a JSON object")
                continue
            rows.append((f"{path}:{number}", obj))
    else:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [h.strip() for h in reader.fieldnames or []]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise RatingsError([f"{path}:1: the header lacks {', '.join(missing)} (it needs {', '.join(COLUMNS)})"])
        reader.fieldnames = header
        for row in reader:
            rows.append((f"{path}:{reader.line_num}", row))
    seen: dict[tuple[str | None, str, str, str, str | None], str] = {}
    for where, row in rows:
        rating = _row(where, row, problems)
        if rating is None:
            continue
        key = (rating.benchmark, rating.instance_id, rating.rater, rating.axis, rating.model)
        if key in seen:
            problems.append(f"{where}: a second score by {rating.rater} for instance {rating.instance_id}, "
                            f"axis {rating.axis} (the first is at line {seen[key].rsplit(':', 1)[-1]})")
            continue
        seen[key] = where
        ratings.append(rating)
    if not problems and not ratings:
        problems.append(f"{path}: no ratings")
    if problems:
        raise RatingsError(problems)
    return ratings


def _mean(values: list[float]) -> float | None:
    return mean(values) if values else None


def _check(targets: dict[Any, dict[str, float]], judges: list[str], clinicians: list[str]) -> dict[str, Any]:
    """The statistics over one set of targets (an axis, or every axis), each target {rater: score}."""
    complete = [t for t in targets.values() if all(j in t for j in judges)]
    between = icc2([[t[j] for j in judges] for t in complete]) if len(judges) >= 2 else icc2([])
    paired = [(mean([s for r, s in t.items() if r in judges]), mean([s for r, s in t.items() if r in clinicians]))
              for t in targets.values()
              if any(r in judges for r in t) and any(r in clinicians for r in t)]
    jury_clin = icc2([list(p) for p in paired])
    raters = judges + clinicians
    bias = []
    for judge in judges:
        diffs = [t[judge] - mean([t[o] for o in judges if o != judge and o in t])
                 for t in targets.values() if judge in t and any(o != judge and o in t for o in judges)]
        versus = [t[judge] - mean([t[c] for c in clinicians if c in t])
                  for t in targets.values() if judge in t and any(c in t for c in clinicians)]
        bias.append({"judge": judge, "targets": len(diffs), "minus_other_judges": _mean(diffs),
                     "minus_clinicians": _mean(versus)})
    return {
        "targets": len(targets),
        "judges": {"targets_scored_by_every_judge": len(complete), "icc2_1": between["icc2_1"],
                   "icc2_k": between["icc2_k"],
                   "alpha_interval": krippendorff_alpha([[t.get(j) for j in judges] for t in targets.values()],
                                                        "interval")},
        "jury_vs_clinicians": {"targets": len(paired), "icc2_1": jury_clin["icc2_1"], "icc2_k": jury_clin["icc2_k"]},
        "clinicians": {"alpha_interval": krippendorff_alpha([[t.get(c) for c in clinicians] for t in targets.values()],
                                                            "interval")},
        "all_raters": {"alpha_interval": krippendorff_alpha([[t.get(r) for r in raters] for t in targets.values()],
                                                            "interval")},
        "bias": bias,
    }


def _ranking(ratings: list[Rating], judges: list[str]) -> dict[str, float]:
    """Each model's jury score: the mean over its instances and axes of the judges' mean score."""
    by_target: dict[tuple[str, str | None, str, str], list[float]] = {}
    for r in ratings:
        if r.model is not None and r.rater in judges:
            by_target.setdefault((r.model, r.benchmark, r.instance_id, r.axis), []).append(r.score)
    per_model: dict[str, list[float]] = {}
    for (model, _, _, _), scores in by_target.items():
        per_model.setdefault(model, []).append(mean(scores))
    return {m: mean(v) for m, v in sorted(per_model.items())}


def leave_one_judge_out(ratings: list[Rating], judges: list[str]) -> dict[str, Any] | None:
    """With a `model` column naming the rated model: the models' jury scores with every judge, and for each
    judge Kendall's tau between that ranking and the ranking without the judge. None without models."""
    full = _ranking(ratings, judges)
    if len(full) < 2 or len(judges) < 2:
        return None
    out = []
    for judge in judges:
        without = _ranking(ratings, [j for j in judges if j != judge])
        models = [m for m in full if m in without]
        out.append({"judge": judge, "models": len(models),
                    "kendall_tau": kendall_tau([full[m] for m in models], [without[m] for m in models]),
                    "scores_without": {m: without[m] for m in models}})
    return {"models": len(full), "scores": full, "left_out": out}


def jury_agreement(ratings: list[Rating]) -> dict[str, Any]:
    """Every statistic per axis and over all axes (each instance and axis a target). Ratings of different models
    on the same instance are different targets, and so are instances of different benchmarks that share an id."""
    judges = sorted({r.rater for r in ratings if not is_clinician(r.rater)})
    clinicians = sorted({r.rater for r in ratings if is_clinician(r.rater)})
    targets: dict[tuple[str | None, str | None, str, str], dict[str, float]] = {}
    for r in ratings:
        targets.setdefault((r.model, r.benchmark, r.instance_id, r.axis), {})[r.rater] = r.score
    axes = sorted({r.axis for r in ratings})
    return {
        "judges": judges, "clinicians": clinicians, "axes": axes,
        "instances": len({(r.model, r.benchmark, r.instance_id) for r in ratings}),
        "benchmarks": sorted({r.benchmark for r in ratings if r.benchmark}),
        "overall": _check(targets, judges, clinicians),
        "by_axis": [{"axis": axis, **_check({k: v for k, v in targets.items() if k[3] == axis}, judges, clinicians)}
                    for axis in axes],
        "leave_one_judge_out": leave_one_judge_out(ratings, judges),
    }
