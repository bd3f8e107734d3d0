"""`clinreg review agreement` on a panel whose alpha and percent agreement were worked by hand."""

from __future__ import annotations

import json

import pytest
from clirunner import invoke

from clinreg.cli.main import main
from trees import write_tree
from workflow.helpers import run, review, sign

# The panel (a = approved, c = changes requested, r = rejected), on the good tree's two subcategories and three
# tasks. A maintainer's adjudication of answer_questions is not a vote.
#
#   item                        Ann  Ben  Cy     values
#   u1 task answer_questions     a    a    r     a a r
#   u2 task rank_differentials   a    c    -     a c
#   u3 task plan_treatment       a    a    a     a a a
#   u4 subcategory diagnosis     a    a    -     a a
#   u5 subcategory treatment     r    r    r     r r r
#
# Percent agreement (pairs of values on one item, pooled): u1 1 of 3, u2 0 of 1, u3 3 of 3, u4 1 of 1,
# u5 3 of 3: 8 of 11 = 0.7273.
#
# Krippendorff's alpha (nominal). Coincidences, each ordered pair of values on a unit of m values weighing
# 1/(m-1): u1 gives o(a,a) 1, o(a,r) 1, o(r,a) 1; u2 o(a,c) 1, o(c,a) 1; u3 o(a,a) 3; u4 o(a,a) 2; u5 o(r,r) 3.
# So o(a,a) = 6, o(r,r) = 3, o(a,r) = o(r,a) = o(a,c) = o(c,a) = 1; n_a = 8, n_r = 4, n_c = 1, n = 13.
#   D_o = (1 + 1 + 1 + 1) / 13 = 4/13
#   D_e = (2*8*4 + 2*8*1 + 2*4*1) / (13 * 12) = 88/156
#   alpha = 1 - (4/13) / (88/156) = 1 - 624/1144 = 5/11 = 0.4545
#
# Subcategory diagnosis (u4, u1, u2): agreement 1 + 1 + 0 of 1 + 3 + 1 = 2/5 = 0.4. o(a,a) = 2 + 1 = 3,
# o(a,r) = o(r,a) = o(a,c) = o(c,a) = 1; n_a = 5, n_r = 1, n_c = 1, n = 7. D_o = 4/7,
# D_e = (2*5*1 + 2*5*1 + 2*1*1) / (7*6) = 22/42, alpha = 1 - (4/7) / (22/42) = 1 - 168/154 = -1/11 = -0.0909.
# Subcategory treatment (u5, u3): all pairs agree, 6 of 6 = 1.0; D_o = 0, so alpha = 1.


@pytest.fixture
def panel(tmp_path):
    root = write_tree(tmp_path, {})
    decisions = [("answer_questions", "Ann", "approve"), ("answer_questions", "Ben", "approve"),
                 ("answer_questions", "Cy", "reject"), ("rank_differentials", "Ann", "approve"),
                 ("rank_differentials", "Ben", "request-changes"), ("plan_treatment", "Ann", "approve"),
                 ("plan_treatment", "Ben", "approve"), ("plan_treatment", "Cy", "approve"),
                 ("diagnosis", "Ann", "approve"), ("diagnosis", "Ben", "approve"),
                 ("treatment", "Ann", "reject"), ("treatment", "Ben", "reject"), ("treatment", "Cy", "reject")]
    for item, name, verb in decisions:
        assert sign(root, verb, item, "--reviewer", name).exit_code == 0
    # The adjudication closes answer_questions but must not count as a fourth reviewer's vote.
    assert run(review, "adjudicate", "answer_questions", "--decision", "approved", "--reason", "As published.",
               "--maintainer", "Max", "--root", root).exit_code == 0
    return root


def test_agreement_reproduces_the_hand_worked_values(panel):
    out = invoke(main, ["review", "agreement", "--root", str(panel), "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)["data"]
    overall = data["overall"]
    assert overall["reviewers"] == 3 and overall["items"] == 5 and overall["pairable_items"] == 5
    assert {r["reviewer"]: r["items"] for r in overall["items_by_reviewer"]} == {"Ann": 5, "Ben": 5, "Cy": 3}
    assert overall["percent_agreement"] == pytest.approx(8 / 11)
    assert overall["alpha"] == pytest.approx(5 / 11)
    assert [(s["id"], s["adjudicated"]) for s in overall["split"]] == [("answer_questions", True),
                                                                       ("rank_differentials", False)]
    [care] = data["categories"]
    assert care["alpha"] == pytest.approx(5 / 11) and care["percent_agreement"] == pytest.approx(8 / 11)
    subs = {s["id"]: s for s in data["subcategories"]}
    assert subs["diagnosis"]["percent_agreement"] == pytest.approx(0.4)
    assert subs["diagnosis"]["alpha"] == pytest.approx(-1 / 11)
    assert (subs["treatment"]["percent_agreement"] == pytest.approx(1.0)
            and subs["treatment"]["alpha"] == pytest.approx(1.0))
    assert subs["treatment"]["reviewers"] == 3 and subs["treatment"]["items"] == 2


def test_agreement_as_text(panel):
    out = invoke(main, ["review", "agreement", "--root", str(panel)])
    assert out.exit_code == 0, out.output
    assert "panel: 3 reviewer(s), 5 item(s) reviewed" in out.output
    assert "percent agreement 72.7%, alpha 0.455; split on 2" in out.output
    # each statistic explained in one plain line where it is printed
    assert "percent agreement: of all pairs of decisions two reviewers made on the same item" in out.output
    assert "agreement corrected for chance" in out.output and "chance agreement is high" in out.output
    assert "split: task answer_questions" in out.output and "adjudicated" in out.output


def test_no_decisions_give_no_alpha(tmp_path):
    out = invoke(main, ["review", "agreement", "--root", str(write_tree(tmp_path, {})), "--format", "json"])
    data = json.loads(out.output)["data"]["overall"]
    assert data["alpha"] is None and data["percent_agreement"] is None and data["reviewers"] == 0
    assert data["alpha_undefined"] == "no item has decisions from two reviewers"


def test_where_everyone_agrees_alpha_says_why_it_is_undefined_and_unreviewed_groups_take_one_line(tmp_path):
    root = write_tree(tmp_path, {})
    for name in ("Ann", "Ben"):
        assert sign(root, "approve", "plan_treatment", "--reviewer", name).exit_code == 0
    out = invoke(main, ["review", "agreement", "--root", str(root)])
    assert out.exit_code == 0, out.output
    first = out.output.splitlines()[0]
    assert "percent agreement 100.0%" in first
    assert "alpha n/a (every decision is the same, so there is no disagreement to set against chance)" in first
    assert "0 reviewer(s)" not in out.output
    [nobody] = [line for line in out.output.splitlines() if line.startswith("nobody reviewed")]
    assert nobody == "nobody reviewed 0 categories and 1 subcategory (each listed in --format json)"
