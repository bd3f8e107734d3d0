"""Agreement statistics in plain Python: Krippendorff's alpha, pairwise percent agreement, the intraclass
correlation ICC(2,1) and ICC(2,k) of Shrout and Fleiss (1979), and Kendall's tau-b.

Reliability data are a list of units (items, instances), each a list of the values its raters gave, with
None for a rater who gave none. No NumPy: the panels and juries clinreg measures are small, and scoring
stays light."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations
from typing import Callable, Hashable, Sequence

Unit = Sequence[Hashable | None]


def _nominal(c, k) -> float:
    return 0.0 if c == k else 1.0


def _interval(c, k) -> float:
    return float(c - k) ** 2


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
    if expected == 0:
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


def icc2(matrix: Sequence[Sequence[float]]) -> dict[str, float | int | None]:
    """ICC(2,1) and ICC(2,k): two-way random effects, absolute agreement (Shrout and Fleiss 1979, case 2).

    `matrix` has one row per target and one column per judge, with no missing cell. From the two-way ANOVA:
    BMS (between targets), JMS (between judges), EMS (residual):
        ICC(2,1) = (BMS - EMS) / (BMS + (k-1) EMS + k (JMS - EMS) / n)
        ICC(2,k) = (BMS - EMS) / (BMS + (JMS - EMS) / n)
    None where fewer than 2 targets or 2 judges, or when the denominator is 0."""
    n = len(matrix)
    k = len(matrix[0]) if n else 0
    if any(len(row) != k for row in matrix):
        raise ValueError("every target needs a score from every judge")
    out: dict[str, float | int | None] = {"targets": n, "judges": k, "icc2_1": None, "icc2_k": None}
    if n < 2 or k < 2:
        return out
    grand = sum(sum(row) for row in matrix) / (n * k)
    row_means = [sum(row) / k for row in matrix]
    col_means = [sum(row[j] for row in matrix) / n for j in range(k)]
    ss_rows = k * sum((m - grand) ** 2 for m in row_means)
    ss_cols = n * sum((m - grand) ** 2 for m in col_means)
    ss_total = sum((x - grand) ** 2 for row in matrix for x in row)
    ss_error = ss_total - ss_rows - ss_cols
    bms, jms = ss_rows / (n - 1), ss_cols / (k - 1)
    ems = ss_error / ((n - 1) * (k - 1))
    single = bms + (k - 1) * ems + k * (jms - ems) / n
    average = bms + (jms - ems) / n
    out.update({"bms": bms, "jms": jms, "ems": ems,
                "icc2_1": (bms - ems) / single if single else None,
                "icc2_k": (bms - ems) / average if average else None})
    return out


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
