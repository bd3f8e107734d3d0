"""Agreement statistics in plain Python: Krippendorff's alpha, pairwise percent agreement, the intraclass
correlation ICC(2,1) and ICC(2,k) of Shrout and Fleiss (1979), and Kendall's tau-b.

Reliability data are a list of units (items, instances), each a list of the values its raters gave, with
None for a rater who gave none. No NumPy: the panels and juries clinreg measures are small, and scoring
stays light."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations
from typing import Any, Callable, Hashable, Sequence

Unit = Sequence[Hashable | None]


def _nominal(c, k) -> float:
    return 0.0 if c == k else 1.0


def _interval(c, k) -> float:
    d = float(c) - float(k)
    return d * d  # past a float's range: inf, never OverflowError (the statistic is then undefined)


METRICS: dict[str, Callable] = {"nominal": _nominal, "interval": _interval}


def pairable(units: Sequence[Unit]) -> list[list]:
    """The units with at least two values; missing values (None) are left out."""
    kept = [[v for v in unit if v is not None] for unit in units]
    return [values for values in kept if len(values) >= 2]


def krippendorff_alpha(units: Sequence[Unit], metric: str = "nominal") -> float | None:
    """Krippendorff's alpha = 1 - D_o / D_e, from the coincidence matrix of the pairable values.

    Each unit with m >= 2 values adds 1/(m-1) to o[c][k] for every ordered pair of its values (from different
    raters). D_o = sum o[c][k] d(c,k) / n; D_e = sum n_c n_k d(c,k) / (n (n-1)). None when the data hold no
    variation at all (D_e = 0), where alpha is undefined, or no pairable value."""
    delta = METRICS[metric]
    coincidences: Counter = Counter()
    for values in pairable(units):
        weight = 1.0 / (len(values) - 1)
        for i, j in combinations(range(len(values)), 2):
            coincidences[(values[i], values[j])] += weight
            coincidences[(values[j], values[i])] += weight
    totals: Counter = Counter()
    for (c, _k), o in coincidences.items():
        totals[c] += o
    n = sum(totals.values())
    if n <= 1:
        return None
    observed = sum(o * delta(c, k) for (c, k), o in coincidences.items()) / n
    expected = sum(totals[c] * totals[k] * delta(c, k) for c in totals for k in totals) / (n * (n - 1))
    if expected == 0 or not math.isfinite(expected) or not math.isfinite(observed):
        return None
    return 1.0 - observed / expected


def percent_agreement(units: Sequence[Unit]) -> float | None:
    """Pairwise percent agreement: of all pairs of values given to the same unit by two raters, the share that
    are equal (pooled over units, so a unit with more raters weighs more). None without any pair."""
    agree = pairs = 0
    for values in pairable(units):
        for a, b in combinations(values, 2):
            pairs += 1
            agree += a == b
    return agree / pairs if pairs else None


class TwoWay:
    """The sums of an n x k table (targets x judges, no missing cell) added one row at a time, from which
    ICC(2,1) and ICC(2,k) follow: memory is k numbers, however many targets. Values are shifted by the first one,
    which changes no statistic and keeps the sums of squares small."""

    def __init__(self, k: int, shift: float | None = None) -> None:
        self.k, self.n = k, 0
        self.shift = shift
        self.total = self.squares = self.row_squares = 0.0
        self.columns = [0.0] * k

    def add(self, row: Sequence[float]) -> None:
        if len(row) != self.k:
            raise ValueError("every target needs a score from every judge")
        if self.shift is None:
            self.shift = float(row[0])
        x = [float(v) - self.shift for v in row]
        s = sum(x)
        self.n += 1
        self.total += s
        self.squares += sum(v * v for v in x)
        self.row_squares += s * s
        for j, v in enumerate(x):
            self.columns[j] += v

    def merge(self, other: TwoWay) -> None:
        """Add another table's rows (the same judges, shifted alike)."""
        if other.n and self.n and other.shift != self.shift:
            raise ValueError("tables shifted differently cannot be merged")
        self.shift = self.shift if self.n else other.shift
        self.n += other.n
        self.total += other.total
        self.squares += other.squares
        self.row_squares += other.row_squares
        self.columns = [a + b for a, b in zip(self.columns, other.columns)]

    def icc(self) -> dict[str, Any]:
        """ICC(2,1) and ICC(2,k) (see icc2), each None with the reason in `undefined` when it has no value."""
        n, k = self.n, self.k
        out: dict[str, Any] = {"targets": n, "judges": k, "icc2_1": None, "icc2_k": None, "undefined": None}
        if n < 2 or k < 2:
            out["undefined"] = "fewer than two targets" if n < 2 else "fewer than two judges"
            return out
        correction = self.total * self.total / (n * k)
        ss_rows = self.row_squares / k - correction
        ss_cols = sum(c * c for c in self.columns) / n - correction
        ss_total = self.squares - correction
        ss_error = ss_total - ss_rows - ss_cols
        bms, jms = ss_rows / (n - 1), ss_cols / (k - 1)
        ems = ss_error / ((n - 1) * (k - 1))
        single = bms + (k - 1) * ems + k * (jms - ems) / n
        average = bms + (jms - ems) / n
        out.update({"bms": bms, "jms": jms, "ems": ems})
        if not all(math.isfinite(v) for v in (single, average, bms, ems)):
            out["undefined"] = "the scores are too large to compute with"
        elif ss_total <= 1e-12 * max(abs(self.squares), 1e-300):
            out["undefined"] = "every score is the same: there is no variance to share out"
        else:
            out["icc2_1"] = (bms - ems) / single if single else None
            out["icc2_k"] = (bms - ems) / average if average else None
            if out["icc2_1"] is None or out["icc2_k"] is None:
                out["undefined"] = "the variance terms cancel (a denominator is 0)"
        return out


def icc2(matrix: Sequence[Sequence[float]]) -> dict[str, Any]:
    """ICC(2,1) and ICC(2,k): two-way random effects, absolute agreement (Shrout and Fleiss 1979, case 2).

    `matrix` has one row per target and one column per judge, with no missing cell. From the two-way ANOVA:
    BMS (between targets), JMS (between judges), EMS (residual):
        ICC(2,1) = (BMS - EMS) / (BMS + (k-1) EMS + k (JMS - EMS) / n)
        ICC(2,k) = (BMS - EMS) / (BMS + (JMS - EMS) / n)
    None where fewer than 2 targets or 2 judges, when every score is the same or a denominator is 0, or when the
    scores are too large to compute with; `undefined` says which."""
    k = len(matrix[0]) if matrix else 0
    sums = TwoWay(k)
    for row in matrix:
        sums.add(row)
    return sums.icc()


class IntervalAlpha:
    """Krippendorff's alpha (interval) added one unit at a time: for the interval metric the coincidence matrix
    reduces to sums. Each unit with m >= 2 values adds 2 m SS_u / (m - 1) to the observed disagreement (SS_u, its
    squared deviations from its mean), and its values to the pooled sum of squared deviations M2 (Welford's update);
    with n the pairable values, D_o = within / n and D_e = 2 M2 / (n - 1), so alpha = 1 - within (n - 1) / (2 n M2),
    the same value krippendorff_alpha(units, "interval") computes."""

    def __init__(self) -> None:
        self.n = 0
        self.mean = self.m2 = self.within = 0.0

    def add(self, values: Sequence[float]) -> None:
        m = len(values)
        if m >= 2:
            mu = sum(values) / m
            self.unit(m, mu, sum((v - mu) * (v - mu) for v in values))

    def unit(self, m: int, mu: float, ss: float) -> None:
        """One unit of m >= 2 values, given by their mean and their squared deviations from it."""
        self.within += 2 * m * ss / (m - 1)
        n = self.n + m  # _pool, written out: this runs once a target
        delta = mu - self.mean
        self.m2 += ss + delta * delta * self.n * m / n
        self.mean += delta * m / n
        self.n = n

    def _pool(self, m: int, mu: float, ss: float) -> None:
        n = self.n + m
        delta = mu - self.mean
        self.m2 += ss + delta * delta * self.n * m / n
        self.mean += delta * m / n
        self.n = n

    def merge(self, other: IntervalAlpha) -> None:
        if other.n:
            self.within += other.within
            self._pool(other.n, other.mean, other.m2)

    def alpha(self) -> tuple[float | None, str | None]:
        """(alpha, None), or (None, why it has no value)."""
        if self.n <= 1:
            return None, "no target has two ratings to compare"
        if not (math.isfinite(self.m2) and math.isfinite(self.within)):
            return None, "the ratings are too large to compute with"
        if self.m2 <= 0:
            return None, "every rating is the same, so there is no disagreement to set against chance"
        return 1.0 - self.within * (self.n - 1) / (2 * self.n * self.m2), None


MAX_RANKED = 2000  # models in one Kendall's tau: pairs grow with the square


def kendall_tau_why(x: Sequence[float], y: Sequence[float]) -> tuple[float | None, str | None]:
    """(Kendall's tau-b, None), or (None, why it has no value)."""
    if len(x) < 2:
        return None, "fewer than two models to rank"
    if len(x) > MAX_RANKED:
        return None, f"more than {MAX_RANKED} models; the ranking is not compared"
    tau = kendall_tau(x, y)
    return (tau, None) if tau is not None else (None, "one of the two rankings is all ties")


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b between two paired lists: (C - D) / sqrt((P - T_x) (P - T_y)), where C and D count the
    concordant and discordant pairs, P all pairs and T_x, T_y the pairs tied in x or in y. Without ties it is
    tau-a, (C - D) / P. None when either list is constant or has fewer than 2 entries."""
    if len(x) != len(y):
        raise ValueError("the two lists must have the same length")
    concordant = discordant = tied_x = tied_y = 0
    for i, j in combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx == 0:
            tied_x += 1
        if dy == 0:
            tied_y += 1
        if dx * dy > 0:
            concordant += 1
        elif dx * dy < 0:
            discordant += 1
    pairs = len(x) * (len(x) - 1) // 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    return (concordant - discordant) / denominator if denominator else None
