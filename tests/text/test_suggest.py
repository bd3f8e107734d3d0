"""Did-you-mean hints: the closest candidate as difflib would rate it."""

from __future__ import annotations

import difflib

from clinreg.text.suggest import Suggester, closest


def test_a_length_exactly_on_the_bound_is_still_compared():
    # difflib rates `ehr` against `ehrshot` exactly 0.6, the cutoff; the length bound (7) must not exclude it.
    assert difflib.get_close_matches("ehr", ["ehrshot"], n=1, cutoff=0.6) == ["ehrshot"]
    assert closest("ehr", ["ehrshot", "medqa"]) == "ehrshot"
    assert Suggester(["ehrshot"]).closest("ehr") == "ehrshot"


def test_a_tie_goes_to_the_first_candidate_in_sorted_order():
    assert closest("mimic", ["mimic_rrs", "mimic_bhc"]) == "mimic_bhc"


def test_nothing_close_gives_no_hint():
    assert closest("zzz", ["ehrshot", "medqa"]) is None
