"""Checking a jury against clinicians: from per-instance ratings (clinreg.scoring.ratings: instance_id, rater,
axis, score; a rater is a judge model, or a clinician when its name starts `clinician:`), the intraclass
correlation between the judges and between the jury mean and the clinicians' mean, Krippendorff's alpha
(interval), each judge's bias, and, when the ratings name the model that was rated, how the ranking of models
changes with one judge left out."""

from __future__ import annotations

from statistics import mean
from typing import TYPE_CHECKING, Any

from clinreg.scoring.agreement import icc2, kendall_tau, krippendorff_alpha
from clinreg.scoring.ratings import Rating, is_clinician

if TYPE_CHECKING:
    from clinreg.core.store import Registry


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


def medhelm_jury_agreement(reg: Registry) -> dict[str, Any] | None:
    """What MedHELM reports of its LLM-jury method's agreement with clinicians in general (statistic, value, beside,
    covers, source, status, status_note), as registry/medhelm_editions.yaml cites it; None where the tree has none."""
    if reg.editions is None or reg.editions.jury_agreement is None:
        return None
    return reg.editions.jury_agreement.model_dump()
