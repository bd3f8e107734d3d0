"""Issue 50, class 7: statistics at the edges. Finite ratings far off any scale are located problems (never an
OverflowError), a statistic that cannot be computed is reported as undefined with the reason (JSON null and a
`<name>_undefined` text; `n/a (why)` in text), never `nan`, and a CSV field over the csv module's limit is a
located problem. For every command that computes or prints these statistics: jury agreement, review agreement."""

from __future__ import annotations

import csv
import json
import math
import random

import pytest
from clirunner import clinreg

from clinreg.scoring.agreement import IntervalAlpha, TwoWay, icc2, krippendorff_alpha

HEADER = "instance_id,rater,rater_kind,axis,score\n"


def _agreement(path, *args):
    return clinreg("jury", "agreement", path, *args)


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    assert "NaN" not in result.output and "Infinity" not in result.output
    return json.loads(result.output)["data"]


@pytest.mark.parametrize("huge", ["1e200", "-1e300", "1.7976931348623157e308", "99999999999999999999999"])
def test_finite_ratings_far_off_the_scale_are_located_problems(tmp_path, huge):
    path = tmp_path / "ratings.csv"
    path.write_text(HEADER + f"q1,a,judge,acc,{huge}\nq1,b,judge,acc,2\nq2,a,judge,acc,3\nq2,b,judge,acc,4\n",
                    encoding="utf-8")
    for fmt in ("text", "json"):
        out = _agreement(path, "--format", fmt)
        assert out.exit_code == 2, out.output
        assert "ratings.csv:2: `score`" in out.output and "outside any rating scale" in out.output
        assert "Traceback" not in out.output and "OverflowError" not in out.output


def test_a_rating_outside_the_scale_given_is_a_located_problem(tmp_path):
    path = tmp_path / "ratings.jsonl"
    rows = [{"instance_id": "q1", "rater": "a", "rater_kind": "judge", "axis": "acc", "score": 3},
            {"instance_id": "q1", "rater": "b", "rater_kind": "judge", "axis": "acc", "score": 6}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = _agreement(path, "--scale", "1:5")
    assert out.exit_code == 2 and "ratings.jsonl:2: `score` 6 is outside the scale 1 to 5" in out.output
    assert _agreement(path, "--scale", "1:6").exit_code == 0
    for bad in ("5:1", "1", "a:b", "nan:5", "1:inf"):
        refused = _agreement(path, "--scale", bad)
        assert refused.exit_code == 2 and "--scale takes LOW:HIGH" in refused.output, bad


def test_the_statistics_never_overflow_even_when_called_with_huge_numbers():
    huge = [[1e200, -1e200], [1e300, 1e-300], [-1e308, 1e308]]
    out = icc2(huge)
    assert out["icc2_1"] is None and out["icc2_k"] is None and out["undefined"]
    assert krippendorff_alpha(huge, "interval") is None
    alpha = IntervalAlpha()
    for row in huge:
        alpha.add(row)
    assert alpha.alpha()[0] is None and alpha.alpha()[1]


def test_undefined_statistics_say_why_in_json_and_text(tmp_path):
    path = tmp_path / "ratings.csv"  # every rating the same; one judge alone on the second axis; no clinician
    path.write_text(HEADER + "q1,a,judge,acc,3\nq1,b,judge,acc,3\nq2,a,judge,acc,3\nq2,b,judge,acc,3\n"
                    "q1,a,judge,style,4\n", encoding="utf-8")
    data = _json(_agreement(path, "--format", "json"))
    judges = data["overall"]["judges"]
    assert judges["icc2_1"] is None and "same" in judges["icc2_1_undefined"]
    assert data["overall"]["jury_vs_clinicians"]["icc2_1_undefined"] == "fewer than two targets"
    assert data["overall"]["clinicians"]["alpha_interval_undefined"] == "no target has two ratings to compare"
    style = next(a for a in data["by_axis"] if a["axis"] == "style")
    assert style["judges"]["alpha_interval"] is None and style["judges"]["alpha_interval_undefined"]
    for bias in data["overall"]["bias"]:
        assert bias["minus_clinicians"] is None and "clinician" in bias["minus_clinicians_undefined"]
    # every null statistic carries its reason
    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if f"{key}_undefined" in node:
                    assert (value is None) == (node[f"{key}_undefined"] is not None), key
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    walk(data)
    text = _agreement(path)
    assert text.exit_code == 0 and "nan" not in text.output.lower().replace("n/a", "")
    assert "ICC(2,1) n/a (every score is the same" in text.output
    assert "n/a (no target rated by this judge and a clinician) against the clinicians" in text.output


def test_a_csv_field_over_the_limit_is_a_located_problem(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text(HEADER + "q1,a,judge,acc,3\n" + f'q2,"{"x" * 200_000}",judge,acc,3\n' + "q3,a,judge,acc,3\n",
                    encoding="utf-8")
    before = csv.field_size_limit()
    out = _agreement(path)
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert "ratings.csv:3: cannot read on from here" in out.output and "at most 65,536 characters" in out.output
    assert csv.field_size_limit() == before  # the module's limit is left as it was
    path.write_text(HEADER + f'q1,"{"x" * 1000}",judge,acc,3\n', encoding="utf-8")
    assert _agreement(path).exit_code == 0


def test_the_streaming_statistics_equal_the_textbook_forms():
    """Alpha from sums equals alpha from the coincidence matrix, and ICC from sums equals ICC from the ANOVA table
    computed with means, on random data with missing values."""
    rng = random.Random(50)
    for _ in range(20):
        units = [[rng.choice([None, 1, 2, 3, 4, 5]) for _ in range(rng.randint(1, 5))] for _ in range(30)]
        alpha = IntervalAlpha()
        for unit in units:
            alpha.add([v for v in unit if v is not None])
        expected = krippendorff_alpha(units, "interval")
        got = alpha.alpha()[0]
        assert (got is None) == (expected is None) and (got is None or math.isclose(got, expected, abs_tol=1e-9))
        k = rng.randint(2, 5)
        matrix = [[rng.uniform(1, 5) for _ in range(k)] for _ in range(rng.randint(2, 12))]
        n = len(matrix)
        grand = sum(map(sum, matrix)) / (n * k)
        rows = [sum(r) / k for r in matrix]
        cols = [sum(r[j] for r in matrix) / n for j in range(k)]
        bms = k * sum((m - grand) ** 2 for m in rows) / (n - 1)
        jms = n * sum((m - grand) ** 2 for m in cols) / (k - 1)
        ems = (sum((x - grand) ** 2 for r in matrix for x in r) - (n - 1) * bms - (k - 1) * jms) / ((n - 1) * (k - 1))
        sums = TwoWay(k)
        for row in matrix:
            sums.add(row)
        out = sums.icc()
        assert math.isclose(out["icc2_1"], (bms - ems) / (bms + (k - 1) * ems + k * (jms - ems) / n), abs_tol=1e-9)
        assert math.isclose(out["icc2_k"], (bms - ems) / (bms + (jms - ems) / n), abs_tol=1e-9)


def test_review_agreement_says_why_percent_agreement_is_undefined(tmp_path):
    from trees import write_tree

    root = write_tree(tmp_path, {})
    data = _json(clinreg("review", "agreement", "--root", root, "--format", "json"))["overall"]
    assert data["percent_agreement"] is None and data["percent_agreement_undefined"]
    text = clinreg("review", "agreement", "--root", root)
    assert text.exit_code == 0 and "percent agreement n/a (no item has decisions from two reviewers)" in text.output
    assert "nan" not in text.output.lower().replace("n/a", "")
