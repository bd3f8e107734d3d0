"""`clinreg jury agreement`: ICC and alpha reproduce published worked examples; bias and the leave-one-judge-out
ranking were worked by hand; a bad ratings file is reported by line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from clirunner import invoke

from clinreg.cli.main import main

REPO = Path(__file__).resolve().parents[2]

# Shrout, P. E. & Fleiss, J. L. (1979), Psychological Bulletin 86(2), 420-428, Table 2: six targets rated by four
# judges. Published: ICC(2,1) = .29 and ICC(2,4) = .62.
SHROUT_FLEISS = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]

# Krippendorff, K. (2011), Computing Krippendorff's Alpha-Reliability, section C data (4 observers x 12 units,
# None missing); section D gives alpha (interval) = 0.849 for them.
N = None
KRIPPENDORFF = [[1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
                [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N], [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N]]


def _agreement(path, *args):
    return invoke(main, ["jury", "agreement", str(path), *args])


def test_shrout_fleiss_table_2_between_judges(tmp_path):
    path = tmp_path / "ratings.csv"
    lines = ["instance_id,rater,axis,score"]
    for i, row in enumerate(SHROUT_FLEISS, 1):
        lines += [f"t{i},judge-{j},accuracy,{score}" for j, score in enumerate(row, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = _agreement(path, "--format", "json")
    assert out.exit_code == 0, out.output
    judges = json.loads(out.output)["data"]["overall"]["judges"]
    assert judges["icc2_1"] == pytest.approx(0.29, abs=5e-3)  # Shrout and Fleiss (1979), Table 2
    assert judges["icc2_k"] == pytest.approx(0.62, abs=5e-3)  # Shrout and Fleiss (1979), Table 2
    assert judges["targets_scored_by_every_judge"] == 6
    text = _agreement(path)
    assert "judges: ICC(2,1) 0.290, ICC(2,k) 0.620" in text.output


def test_krippendorff_interval_alpha_from_json_lines(tmp_path):
    path = tmp_path / "ratings.jsonl"
    rows = [{"instance_id": f"u{u}", "rater": f"judge-{o}", "axis": "a", "score": value}
            for o, observer in enumerate(KRIPPENDORFF, 1) for u, value in enumerate(observer, 1) if value is not None]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    data = json.loads(_agreement(path, "--format", "json").output)["data"]
    assert data["overall"]["judges"]["alpha_interval"] == pytest.approx(0.849, abs=5e-4)  # Krippendorff (2011)


def test_jury_against_clinicians_and_bias_worked_by_hand(tmp_path):
    # Two judges agree exactly (1, 2, 3 on three instances); the clinician scores each one higher (2, 3, 4).
    # Jury mean vs clinicians' mean: rows (1,2) (2,3) (3,4); grand mean 2.5. BMS = 2 * (1 + 0 + 1) / 2 = 2;
    # column means 2 and 3: JMS = 3 * (0.25 + 0.25) / 1 = 1.5; the residual is 0, so EMS = 0.
    # ICC(2,1) = 2 / (2 + 0 + 2 * 1.5 / 3) = 2/3; ICC(2,k) = 2 / (2 + 1.5 / 3) = 0.8.
    # Each judge's bias: 0 against the other judge, -1 against the clinician.
    path = tmp_path / "ratings.csv"
    rows = ["instance_id,rater,axis,score"]
    for i, score in enumerate([1, 2, 3], 1):
        rows += [f"q{i},gpt-judge,overall,{score}", f"q{i},claude-judge,overall,{score}",
                 f"q{i},clinician:dr-a,overall,{score + 1}"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    data = json.loads(_agreement(path, "--format", "json").output)["data"]
    assert data["clinicians"] == ["clinician:dr-a"] and data["judges"] == ["claude-judge", "gpt-judge"]
    versus = data["overall"]["jury_vs_clinicians"]
    assert versus["targets"] == 3
    assert versus["icc2_1"] == pytest.approx(2 / 3) and versus["icc2_k"] == pytest.approx(0.8)
    for bias in data["overall"]["bias"]:
        assert bias["minus_other_judges"] == pytest.approx(0) and bias["minus_clinicians"] == pytest.approx(-1)
    assert data["leave_one_judge_out"] is None


def test_leave_one_judge_out_kendall_tau_worked_by_hand(tmp_path):
    # Three models, one instance each, three judges. Jury scores (judges' mean): m1 (4,1,1) 2.0, m2 (1,2,2) 1.667,
    # m3 (2,3,3) 2.667. Without j1: 1.0, 2.0, 3.0: the pair (m1, m2) reverses, the other two keep their order:
    # tau = (2 - 1) / 3 = 1/3. Without j2 (or j3): 2.5, 1.5, 2.5: m1 and m3 tie; 2 concordant pairs, 0
    # discordant, 1 pair tied in the second ranking: tau-b = 2 / sqrt(3 * 2) = 0.8165.
    scores = {"m1": (4, 1, 1), "m2": (1, 2, 2), "m3": (2, 3, 3)}
    path = tmp_path / "ratings.jsonl"
    path.write_text("".join(json.dumps({"instance_id": "x1", "model": m, "rater": f"j{j}", "axis": "overall",
                                        "score": s}) + "\n"
                            for m, triple in scores.items() for j, s in enumerate(triple, 1)), encoding="utf-8")
    loo = json.loads(_agreement(path, "--format", "json").output)["data"]["leave_one_judge_out"]
    taus = {j["judge"]: j["kendall_tau"] for j in loo["left_out"]}
    assert taus["j1"] == pytest.approx(1 / 3)
    assert taus["j2"] == pytest.approx(2 / 6 ** 0.5) and taus["j3"] == pytest.approx(2 / 6 ** 0.5)
    assert loo["scores"]["m3"] == pytest.approx(8 / 3)


@pytest.mark.parametrize("content, expected", [
    ("instance_id,rater,score\nq1,j,3\n", ":1: the header lacks axis"),
    ("instance_id,rater,axis,score\nq1,j,a,3\nq1,j,a,4\n", "ratings.csv:3: a second score by j for instance q1"),
    ("instance_id,rater,axis,score\nq1,j,a,high\n", "ratings.csv:2: `score` 'high' is not a number"),
    ("instance_id,rater,axis,score\nq1,,a,3\n", "ratings.csv:2: `rater` is missing or empty"),
    ("instance_id,rater,axis,score\n", "no ratings"),
    ('{"instance_id": "q1", "rater": "j", "axis": "a", "score": 1}\nnot json\n', "ratings.csv:2: not a JSON object"),
    ('{"instance_id": "q1", "rater": "j", "axis": "a", "score": NaN}\n', "ratings.csv:1: `score` must be a finite"),
])
def test_bad_ratings_are_located_exit_2_without_traceback(tmp_path, content, expected):
    path = tmp_path / "ratings.csv"
    path.write_text(content, encoding="utf-8")
    out = _agreement(path)
    assert out.exit_code == 2
    assert expected in out.output and "Traceback" not in out.output


def test_missing_file_is_exit_2(tmp_path):
    out = _agreement(tmp_path / "absent.csv")
    assert out.exit_code == 2 and "cannot read it" in out.output


@pytest.mark.slow
def test_a_jury_validation_is_shown_on_the_card(tmp_path):
    from trees import GOOD_TREE, write_tree

    rel = "registry/datasets/plans.yaml"
    text = GOOD_TREE[rel].replace(
        '        axes: [{id: accuracy, question: "Is it right?"}, {id: clarity, question: "Is it clear?"}]\n',
        '        axes: [{id: accuracy, question: "Is it right?"}, {id: clarity, question: "Is it clear?"}]\n'
        '        validation:\n'
        '          - {kind: published, statistic: ICC between the jury and clinicians, value: 0.47,\n'
        '             citation: {text: A validation paper, doi: 10.1000/xyz}}\n'
        '          - {kind: ratings, ratings: registry/validation/plans.csv}\n')
    assert text != GOOD_TREE[rel]
    root = write_tree(tmp_path / "tree", {rel: text})
    assert invoke(main, ["validate", "--root", str(root)]).exit_code == 0
    site = tmp_path / "site"
    out = invoke(main, ["site", "--root", str(root), "-o", str(site)])
    assert out.exit_code == 0, out.output
    [page] = [p for p in site.rglob("*.html") if "plans" in p.name]
    html = page.read_text(encoding="utf-8")
    assert "ICC between the jury and clinicians: 0.47" in html and "https://doi.org/10.1000/xyz" in html
    assert "registry/validation/plans.csv" in html
    assert "jury not validated" not in html  # the record's own evidence: no mark, and no general figure in its place
    # Without evidence of its own, the card marks the jury and gives MedHELM's figure for its jury in general
    # (registry/medhelm_editions.yaml's `jury_agreement`), with where it was read and that it is unverified.
    general = yaml.safe_load((REPO / "registry/medhelm_editions.yaml").read_text(encoding="utf-8"))["jury_agreement"]
    editions = {"default": "e1", "jury_agreement": general,
                "editions": [{"id": "e1", "title": "One", "description": "One edition.", "date": "2025-01-01",
                              "source": {"kind": "paper", "name": "A paper"}, "benchmarks": ["plans"]}]}
    plain = tmp_path / "plain-site"
    tree = write_tree(tmp_path / "plain", {"registry/medhelm_editions.yaml": json.dumps(editions)})
    assert invoke(main, ["site", "--root", str(tree), "-o", str(plain)]).exit_code == 0
    [page] = [p for p in plain.rglob("*.html") if "plans" in p.name]
    html = page.read_text(encoding="utf-8")
    assert '<span class="badge stale">jury not validated</span>' in html
    assert ("MedHELM&#39;s LLM-jury method in general" in html
            and "ICC between MedHELM&#39;s LLM jury and clinicians&#39; ratings 0.47" in html)
    assert "arXiv:2505.23802v1" in html and '<span class="unverified">unverified</span>' in html
    # A tree that cites no such figure still marks the jury, without a figure.
    bare = tmp_path / "bare-site"
    done = invoke(main, ["site", "--root", str(write_tree(tmp_path / "bare", {})), "-o", str(bare)])
    assert done.exit_code == 0, done.output
    [page] = [p for p in bare.rglob("*.html") if "plans" in p.name]
    html = page.read_text(encoding="utf-8")
    assert '<span class="badge stale">jury not validated</span>' in html and "0.47" not in html
    assert "jury agreement</code>).</p>" in html
    # a published figure without its source is refused
    bad = text.replace(",\n             citation: {text: A validation paper, doi: 10.1000/xyz}", "")
    broken = write_tree(tmp_path / "bad", {rel: bad})
    assert invoke(main, ["validate", "--root", str(broken)]).exit_code == 1


def test_medhelms_jury_figure_is_registry_data_with_its_source(tmp_path):
    """The figure is read from registry/medhelm_editions.yaml, not a constant: the leaderboard's legend gives it
    where the registry cites it, and leaves it out where a tree cites none."""
    from trees import write_tree

    from clinreg.core.store import load_registry
    from clinreg.results.leaderboard import jury_unvalidated_legend
    from clinreg.scoring import medhelm_jury_agreement

    cited = yaml.safe_load((REPO / "registry" / "medhelm_editions.yaml").read_text(encoding="utf-8"))["jury_agreement"]
    general = medhelm_jury_agreement(load_registry(REPO))
    assert general == cited and general["source"].startswith("the abstract of the MedHELM paper")
    legend = jury_unvalidated_legend(general)
    assert f"MedHELM reports an ICC of {cited['value']} with clinicians ({cited['source']}; unverified" in legend
    assert medhelm_jury_agreement(load_registry(write_tree(tmp_path / "tree", {}))) is None
    assert "MedHELM reports" not in jury_unvalidated_legend(None)
    assert jury_unvalidated_legend(None).endswith("`clinreg jury agreement` measures it from ratings.")
