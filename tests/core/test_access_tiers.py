"""The access tiers are the model's (core.model.ACCESS_TIERS); every table kept per tier covers exactly those."""

from __future__ import annotations

import pytest

from clinreg.contrib import issueform
from clinreg.core.model import ACCESS_TIERS, RESTRICTED_TIERS, Access
from clinreg.exports import croissant
from clinreg.reports import svg


def test_the_tiers_are_the_access_fields_choices_in_order():
    assert Access.model_json_schema()["properties"]["tier"]["enum"] == list(ACCESS_TIERS)
    assert RESTRICTED_TIERS == tuple(t for t in ACCESS_TIERS if t != "public")


@pytest.mark.parametrize("table", [svg.TIER_COLOURS, svg.TIER_INK, croissant.DUO_TERMS, issueform._TIER_TEXT],
                         ids=["chart colours", "chart ink", "Croissant DUO terms", "issue form text"])
def test_every_table_kept_per_tier_covers_exactly_the_models_tiers(table):
    assert list(table) == list(ACCESS_TIERS)
