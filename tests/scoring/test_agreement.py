"""The agreement statistics against published worked examples (the source of each expected value is named)."""

from __future__ import annotations

import pytest

from clinreg.scoring.agreement import icc2, kendall_tau, krippendorff_alpha, percent_agreement

N = None
# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for Communication,
# University of Pennsylvania, section C (nominal data, any number of observers, missing data): 4 observers
# (rows) x 12 units (columns), "." for a missing value, written here as None.
KRIPPENDORFF_C = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]
KRIPPENDORFF_C_UNITS = list(zip(*KRIPPENDORFF_C))

# Krippendorff (2011), section A (binary data, two observers, no missing data): 10 units.
KRIPPENDORFF_A_UNITS = list(zip([0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]))

# Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater reliability.
# Psychological Bulletin 86(2), 420-428. Table 2: four judges (columns) rate six targets (rows).
SHROUT_FLEISS = [
    [9, 2, 5, 8],
    [6, 1, 3, 2],
    [8, 4, 6, 8],
    [7, 1, 2, 6],
    [10, 5, 6, 9],
    [6, 2, 4, 7],
]


def test_alpha_nominal_krippendorff_2011_section_c():
    # Krippendorff (2011), section C: alpha (nominal) = 0.743
    assert krippendorff_alpha(KRIPPENDORFF_C_UNITS, "nominal") == pytest.approx(0.743, abs=5e-4)


def test_alpha_interval_krippendorff_2011_section_c():
    # Krippendorff (2011), section D (any metric, the same reliability data as section C): interval alpha = 0.849
    assert krippendorff_alpha(KRIPPENDORFF_C_UNITS, "interval") == pytest.approx(0.849, abs=5e-4)


def test_alpha_binary_krippendorff_2011_section_a():
    # Krippendorff (2011), section A: alpha = 0.095
    assert krippendorff_alpha(KRIPPENDORFF_A_UNITS) == pytest.approx(0.095, abs=5e-4)


def test_alpha_undefined_without_variation_and_ignores_lone_values():
    assert krippendorff_alpha([(1, 1), (1, 1, N)]) is None
    assert krippendorff_alpha([(1, N), (N, 2)]) is None  # no unit has two values: nothing pairable
    # a unit with one value is not pairable and changes nothing
    assert krippendorff_alpha(KRIPPENDORFF_A_UNITS + [(1, N)]) == krippendorff_alpha(KRIPPENDORFF_A_UNITS)


def test_percent_agreement_worked_by_hand():
    # Krippendorff (2011) section A data: the two observers agree on units 2, 4, 5, 7, 8 and 10: 6 of 10 pairs.
    assert percent_agreement(KRIPPENDORFF_A_UNITS) == pytest.approx(0.6)
    # Three raters on one unit give 3 pairs; (a, a, b) agrees on 1 of them. With a second unit (a, a): 2 of 4.
    assert percent_agreement([("a", "a", "b"), ("a", N, "a")]) == pytest.approx(2 / 4)
    assert percent_agreement([("a", N)]) is None


def test_icc_shrout_fleiss_1979_table_2():
    result = icc2(SHROUT_FLEISS)
    # Shrout and Fleiss (1979), Table 2 ("ICC(2,1) .29", "ICC(2,4) .62") and the ANOVA of Table 1 for these
    # data (BMS 11.24, JMS 32.49, EMS 1.02).
    assert result["icc2_1"] == pytest.approx(0.29, abs=5e-3)
    assert result["icc2_k"] == pytest.approx(0.62, abs=5e-3)
    assert result["bms"] == pytest.approx(11.24, abs=5e-3)
    assert result["jms"] == pytest.approx(32.49, abs=5e-3)
    assert result["ems"] == pytest.approx(1.02, abs=5e-3)
    assert (result["targets"], result["judges"]) == (6, 4)


def test_icc_needs_a_complete_matrix():
    with pytest.raises(ValueError):
        icc2([[1, 2], [3]])
    assert icc2([[1, 2]])["icc2_1"] is None


def test_kendall_tau_worked_by_hand():
    # x = 1..5 against y = (3, 4, 1, 2, 5): of the 10 pairs, (1,3) (1,4) (2,3) (2,4) are discordant and the
    # other 6 concordant, so tau = (6 - 4) / 10 = 0.2.
    assert kendall_tau([1, 2, 3, 4, 5], [3, 4, 1, 2, 5]) == pytest.approx(0.2)
    # With ties (tau-b): x = (1, 2, 2, 3), y = (1, 3, 2, 3). Of 6 pairs, 4 are concordant, none discordant,
    # one tied in x (positions 2, 3) and one tied in y (positions 2, 4): 4 / sqrt(5 * 5) = 0.8.
    assert kendall_tau([1, 2, 2, 3], [1, 3, 2, 3]) == pytest.approx(0.8)
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert kendall_tau([1, 1], [1, 2]) is None
