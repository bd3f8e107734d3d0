"""Checking a jury against clinicians: from per-instance ratings (clinreg.scoring.ratings: instance_id, rater,
rater_kind, axis, score; a rater is a judge model, or a clinician when the row's rater_kind says so), the intraclass
correlation between the judges and between the jury mean and the clinicians' mean, Krippendorff's alpha
(interval), each judge's bias, and, when the ratings name the model that was rated, how the ranking of models
changes with one judge left out.

Every statistic is accumulated target by target from sums (clinreg.scoring.agreement's streaming forms), so memory
is the ratings table and a few numbers per judge, axis and model, however many ratings there are. A statistic that
cannot be computed is None, with the reason beside it (`<name>_undefined`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from clinreg.scoring.agreement import IntervalAlpha, TwoWay, kendall_tau_why
from clinreg.scoring.ratings import Rating, RatingTable

if TYPE_CHECKING:
    from clinreg.core.store import Registry

MAX_JUDGES = 1000


def _summary(values: list[float]) -> tuple[int, float, float]:
    """(count, mean, squared deviations from the mean) of a few values."""
    m = len(values)
    if not m:
        return 0, 0.0, 0.0
    mu = sum(values) / m
    return m, mu, sum((v - mu) * (v - mu) for v in values)


class _Scope:
    """The sums behind every statistic of one set of targets (an axis, or every axis): a few numbers per judge."""

    def __init__(self, judges: int, shift: float) -> None:
        self.targets = self.complete = 0
        self.between = TwoWay(judges, shift)  # the targets every judge scored
        self.versus = TwoWay(2, shift)  # (jury mean, clinicians' mean) where both rated
        self.alpha_judges, self.alpha_clinicians, self.alpha_all = IntervalAlpha(), IntervalAlpha(), IntervalAlpha()
        self.bias = [[0.0, 0, 0.0, 0] for _ in range(judges)]  # per judge: sum and count against judges, clinicians

    def add(self, judged: dict[int, float], clinicians: list[float], n_judges: int) -> None:
        self.targets += 1
        if n_judges and len(judged) == n_judges:
            self.complete += 1
            if n_judges >= 2:
                self.between.add([judged[j] for j in range(n_judges)])
        mj, muj, ssj = _summary(list(judged.values()))
        mc, muc, ssc = _summary(clinicians)
        if mj and mc:
            self.versus.add([muj, muc])
        if mj >= 2:
            self.alpha_judges.unit(mj, muj, ssj)
        if mc >= 2:
            self.alpha_clinicians.unit(mc, muc, ssc)
        if mj + mc >= 2:  # the two groups pooled (Chan's formula for the combined squared deviations)
            m, d = mj + mc, muj - muc
            self.alpha_all.unit(m, (mj * muj + mc * muc) / m, ssj + ssc + d * d * mj * mc / m)
        if not self.bias:  # no judge, or too many to follow each
            return
        total = muj * mj
        for j, score in judged.items():
            entry = self.bias[j]
            if mj > 1:
                entry[0] += score - (total - score) / (mj - 1)
                entry[1] += 1
            if mc:
                entry[2] += score - muc
                entry[3] += 1

    def merge(self, other: _Scope) -> None:
        self.targets += other.targets
        self.complete += other.complete
        self.between.merge(other.between)
        self.versus.merge(other.versus)
        self.alpha_judges.merge(other.alpha_judges)
        self.alpha_clinicians.merge(other.alpha_clinicians)
        self.alpha_all.merge(other.alpha_all)
        for mine, theirs in zip(self.bias, other.bias):
            for i in range(4):
                mine[i] += theirs[i]

    def report(self, judges: list[str], too_many: str | None) -> dict[str, Any]:
        between, versus = self.between.icc(), self.versus.icc()
        bias = []
        for name, (against_judges, n_judges, against_clinicians, n_clinicians) in zip(judges, self.bias):
            bias.append({"judge": name, "targets": n_judges,
                         "minus_other_judges": against_judges / n_judges if n_judges else None,
                         "minus_other_judges_undefined": None if n_judges else
                         "no target rated by this judge and another",
                         "minus_clinicians": against_clinicians / n_clinicians if n_clinicians else None,
                         "minus_clinicians_undefined": None if n_clinicians else
                         "no target rated by this judge and a clinician"})
        return {
            "targets": self.targets,
            "judges": {"targets_scored_by_every_judge": None if too_many else self.complete,
                       **_icc(between, too_many or (len(judges) < 2 and "fewer than two judges")),
                       **_alpha(self.alpha_judges)},
            "jury_vs_clinicians": {"targets": self.versus.n, **_icc(versus)},
            "clinicians": _alpha(self.alpha_clinicians),
            "all_raters": _alpha(self.alpha_all),
            "bias": bias,
        }


def _icc(result: dict[str, Any], why: str | None | bool = None) -> dict[str, Any]:
    out = {}
    for name in ("icc2_1", "icc2_k"):
        out[name] = result[name]
        out[f"{name}_undefined"] = None if result[name] is not None else (why or result["undefined"])
    return out


def _alpha(acc: IntervalAlpha) -> dict[str, Any]:
    value, why = acc.alpha()
    return {"alpha_interval": value, "alpha_interval_undefined": why}


def _leave_one_out(ranks: dict[str, list[list[float]]], judges: list[str]) -> dict[str, Any] | None:
    """From each model's sums (the jury's mean per target, and the mean without each judge), the models' jury
    scores and, per judge, Kendall's tau between the ranking with and without it."""
    full = {m: sums[0][0] / sums[0][1] for m, sums in sorted(ranks.items()) if sums[0][1]}
    if len(full) < 2 or len(judges) < 2:
        return None
    out = []
    for j, judge in enumerate(judges, 1):
        without = {m: ranks[m][j][0] / ranks[m][j][1] for m in full if ranks[m][j][1]}
        models = [m for m in full if m in without]
        tau, why = kendall_tau_why([full[m] for m in models], [without[m] for m in models])
        out.append({"judge": judge, "models": len(models), "kendall_tau": tau, "kendall_tau_undefined": why,
                    "scores_without": {m: without[m] for m in models}})
    return {"models": len(full), "scores": full, "left_out": out}


def jury_agreement(ratings: RatingTable | Iterable[Rating]) -> dict[str, Any]:
    """Every statistic per axis and over all axes (each instance and axis a target). Ratings of different models
    on the same instance are different targets, and so are instances of different benchmarks that share an id."""
    table = ratings if isinstance(ratings, RatingTable) else RatingTable.of(ratings)
    judges = sorted(name for name, human in zip(table.raters, table.clinician) if not human)
    clinicians = sorted(name for name, human in zip(table.raters, table.clinician) if human)
    index = {name: i for i, name in enumerate(table.raters)}
    judge_at = {index[name]: i for i, name in enumerate(judges)}  # rater index -> judge position
    del index
    # Per-judge statistics cost a few numbers per judge, axis and model: a "jury" of thousands of judges is a file
    # that lies; its per-judge statistics are left undefined, and the rest is computed.
    too_many = (f"more than {MAX_JUDGES} judges; the statistics of each judge are not computed"
                if len(judges) > MAX_JUDGES else None)
    detail = 0 if too_many else len(judges)
    axes = sorted({t[3] for t in table.targets})
    shift = table.score[0] if len(table) else 0.0  # one shift for every sum, so that the axes' sums add up
    by_axis = {axis: _Scope(detail, shift) for axis in axes}
    ranks: dict[str, list[list[float]]] = {}  # model -> [[sum, count] with every judge, then without each judge]
    instances = set()
    head, chain = table.chains()
    position = [judge_at.get(r, -1) for r in range(len(table.raters))]  # rater index -> judge position, or -1
    rater_of, score_of = table.rater, table.score
    for t, (model, benchmark, instance, axis) in enumerate(table.targets):
        instances.add((model, benchmark, instance))
        judged: dict[int, float] = {}
        clinician_scores: list[float] = []
        i = head[t]
        while i != -1:  # the target's ratings, latest first (a rater rates a target once: read_ratings sees to it)
            p = position[rater_of[i]]
            if p >= 0:
                judged[p] = score_of[i]
            else:
                clinician_scores.append(score_of[i])
            i = chain[i]
        by_axis[axis].add(judged, clinician_scores, detail)
        if model is not None and judged and not too_many:
            sums = ranks.setdefault(model, [[0.0, 0] for _ in range(len(judges) + 1)])
            total = sum(judged.values())
            sums[0][0] += total / len(judged)
            sums[0][1] += 1
            for j, score in judged.items():
                if len(judged) > 1:
                    sums[j + 1][0] += (total - score) / (len(judged) - 1)
                    sums[j + 1][1] += 1
            for j in range(len(judges)):  # a judge who did not rate the target leaves the same mean
                if j not in judged:
                    sums[j + 1][0] += total / len(judged)
                    sums[j + 1][1] += 1
    overall = _Scope(detail, shift)
    for scope in by_axis.values():
        overall.merge(scope)
    return {
        "judges": judges, "clinicians": clinicians, "axes": axes,
        "rater_kinds_from": table.kinds_from,
        "instances": len(instances),
        "benchmarks": sorted({t[1] for t in table.targets if t[1]}),
        "overall": overall.report(judges if detail else [], too_many),
        "by_axis": [{"axis": axis, **by_axis[axis].report(judges if detail else [], too_many)} for axis in axes],
        "leave_one_judge_out": None if too_many else _leave_one_out(ranks, judges),
        **({"max_judges": MAX_JUDGES} if too_many else {}),
    }


def leave_one_judge_out(ratings: Iterable[Rating], judges: list[str]) -> dict[str, Any] | None:
    """With a `model` column naming the rated model: the models' jury scores with every judge, and for each
    judge Kendall's tau between that ranking and the ranking without the judge. None without models."""
    table = RatingTable.of(r for r in ratings if r.rater in judges or r.clinician)
    return jury_agreement(table)["leave_one_judge_out"]


def medhelm_jury_agreement(reg: Registry) -> dict[str, Any] | None:
    """What MedHELM reports of its LLM-jury method's agreement with clinicians in general (statistic, value, beside,
    covers, source, status, status_note), as registry/medhelm_editions.yaml cites it; None where the tree has none."""
    if reg.editions is None or reg.editions.jury_agreement is None:
        return None
    return reg.editions.jury_agreement.model_dump()
