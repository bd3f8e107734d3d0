"""Mean win rate as HELM computes it, checked against hand-computed examples: ties, a missing value, groups."""

from __future__ import annotations

import json

import pytest

from clinreg.core.model import Metric
from clinreg.results.leaderboard import column_win_rates, normalised
from results.helpers import (
    BOARD,
    EXPECTED_CDS,
    EXPECTED_CNG,
    EXPECTED_MACRO,
    EXPECTED_OVERALL,
    ROOT,
    invoke,
    leaderboard_json,
    rows_by_model,
    write,
)


def test_column_win_rate_counts_ties_as_half_and_divides_by_the_other_models():
    assert column_win_rates({"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}) == {"a": 1.0, "b": 0.5, "c": 0.5, "d": 0.0}
    assert column_win_rates({"a": 2.0, "b": 2.0}) == {"a": 0.5, "b": 0.5}
    assert column_win_rates({"a": 1.0, "b": 3.0}, lower_is_better=True) == {"a": 1.0, "b": 0.0}


def test_a_column_with_one_score_is_skipped():
    assert column_win_rates({"a": 0.3}) == {}


def test_rescaling_uses_the_declared_range():
    assert normalised(3.0, 1, 5) == 0.5
    assert normalised(0.25, 0, 1) == 0.25


def test_overall_mean_win_rate_matches_the_hand_computed_example(tmp_path):
    board = write(tmp_path / "board.csv", BOARD)
    rows = rows_by_model(leaderboard_json(board))
    assert {m: r["mean_win_rate"] for m, r in rows.items()} == pytest.approx(EXPECTED_OVERALL)
    assert [r["rank"] for r in sorted(rows.values(), key=lambda r: r["rank"])] == [1, 2, 3, 4]
    assert rows["A"]["macro_average"] == pytest.approx(EXPECTED_MACRO["A"])
    assert rows["C"]["macro_average"] == pytest.approx(EXPECTED_MACRO["C"])
    # C has no MedCalc-Bench score: listed as missing, out of that column, and its mean is over its 2 columns.
    assert rows["C"]["missing_benchmarks"] == ["medcalc_bench/medcalc_bench"]
    assert rows["C"]["win_rate_columns"] == 2 and rows["A"]["win_rate_columns"] == 3
    assert (rows["A"]["benchmarks_total"], rows["A"]["instances"]) == (3, 3000)


def test_a_metric_declared_lower_is_better_ranks_its_column_the_other_way(tmp_path, monkeypatch):
    """The direction is the metric's: declaring MedCalc-Bench's metric lower-is-better reverses that column only."""
    board = write(tmp_path / "board.csv", BOARD)
    monkeypatch.setattr(Metric, "LOWER_IS_BETTER", frozenset({"medcalc_bench_accuracy"}))
    assert Metric(name="medcalc_bench_accuracy").lower_is_better and not Metric(name="exact_match").lower_is_better
    data = leaderboard_json(board)
    assert {b["key"]: b["lower_is_better"] for b in data["benchmarks"]} == {
        "med_qa/med_qa": False, "medcalc_bench/medcalc_bench": True, "mimic_bhc/mimic_bhc": False}
    # MedCalc:   B 2/2, A 1/2, D 0 (lowest first); the other columns as in EXPECTED_OVERALL.
    expected = {"A": (2.5 / 3 + 0.5 + 1) / 3, "B": (2.5 / 3 + 1 + 0.5) / 3, "C": (1 / 3 + 0.5) / 2, "D": 0.0}
    assert {m: r["mean_win_rate"] for m, r in rows_by_model(data).items()} == pytest.approx(expected)


def test_category_rows_use_the_benchmarks_placed_in_each_category(tmp_path):
    board = write(tmp_path / "board.csv", BOARD)
    data = leaderboard_json(board, "--by", "category")
    assert {r["group"] for r in data["rows"]} == {"clinical_decision_support", "clinical_note_generation"}
    cds = rows_by_model(data, "clinical_decision_support")
    cng = rows_by_model(data, "clinical_note_generation")
    assert {m: r["mean_win_rate"] for m, r in cds.items()} == pytest.approx(EXPECTED_CDS)
    assert {m: r["mean_win_rate"] for m, r in cng.items()} == pytest.approx(EXPECTED_CNG)
    assert cng["A"]["thin"] is True and cds["A"]["thin"] is False


def test_subcategory_rows_flag_a_single_benchmark_as_thin_and_count_tasks(tmp_path):
    board = write(tmp_path / "board.csv", BOARD)
    data = leaderboard_json(board, "--by", "subcategory")
    knowledge = rows_by_model(data, "providing_clinical_knowledge_support")
    assert knowledge["A"]["thin"] is True
    assert knowledge["A"]["benchmarks"] == ["med_qa/med_qa"]
    assert knowledge["A"]["mean_win_rate"] == pytest.approx(2.5 / 3)
    assert knowledge["A"]["tasks_covered"] == 1
    from clinreg.core.store import load_registry

    sub = next(s for s, *_ in load_registry(ROOT).subcategories() if s.id == "providing_clinical_knowledge_support")
    assert knowledge["A"]["tasks_total"] == len(sub.tasks) == sub.tasks_expected.count
    diagnostic = rows_by_model(data, "supporting_diagnostic_decisions")
    assert diagnostic["C"]["mean_win_rate"] is None and diagnostic["C"]["rank"] is None
    assert diagnostic["C"]["missing_benchmarks"] == ["medcalc_bench/medcalc_bench"]


def test_drafted_tasks_behind_a_row_are_counted(tmp_path):
    from clinreg.core.store import load_registry

    reg = load_registry(ROOT)
    task = reg.tasks()["write_brief_hospital_course"]
    board = write(tmp_path / "board.csv", BOARD)
    row = rows_by_model(leaderboard_json(board, "--by", "subcategory"), "documenting_patient_visits")["A"]
    assert row["tasks_drafted"] == (1 if task.task.provenance.kind == "drafted" else 0)


def test_rounded_scores_tie_exactly_as_written(tmp_path):
    """HELM's front end rounds to 3 decimals; 0.812 and 0.8120 are the same score and tie."""
    board = write(tmp_path / "board.csv", "Model,MedQA - EM\nA,0.812\nB,0.8120\nC,0.811\n")
    rows = rows_by_model(leaderboard_json(board))
    assert (rows["A"]["mean_win_rate"], rows["B"]["mean_win_rate"], rows["C"]["mean_win_rate"]) == (0.75, 0.75, 0.0)


def test_reported_mean_win_rate_is_shown_beside_ours_when_the_columns_match(tmp_path):
    board = write(tmp_path / "board.csv",
                  "Model,Mean win rate,MedQA - EM,PubMedQA - EM\nA,0.9,0.8,0.7\nB,0.1,0.6,0.5\n")
    rows = rows_by_model(leaderboard_json(board))
    assert (rows["A"]["mean_win_rate"], rows["A"]["reported_mean_win_rate"]) == (1.0, 0.9)
    by_category = leaderboard_json(board, "--by", "category")
    assert all(r["reported_mean_win_rate"] is None for r in by_category["rows"]), "different columns, no comparison"


def test_access_and_release_filters_leave_scores_out_and_say_so(tmp_path):
    # mimic_bhc is gated and joined in release 1.1.0; med_qa is public and joined in 1.3.0.
    board = write(tmp_path / "board.csv", BOARD)
    public = leaderboard_json(board, "--access", "public")
    assert {e["benchmark"] for e in public["excluded"]} == {"mimic_bhc/mimic_bhc"}
    assert rows_by_model(public)["A"]["benchmarks_total"] == 2
    old = leaderboard_json(board, "--release", "1.2.0")
    assert {e["benchmark"] for e in old["excluded"]} == {"med_qa/med_qa"}
    assert old["release"] == "1.2.0"


def test_intervals_come_from_instance_data_and_are_absent_without_it(tmp_path):
    board = write(tmp_path / "board.csv", BOARD)
    data = leaderboard_json(board)
    assert all(s["interval"] is None for b in data["benchmarks"] for s in b["scores"])
    assert all(r["macro_interval"] is None for r in data["rows"])
    results = {
        "results": {"clinreg_med_qa": {"exact_match,none": 0.5, "exact_match_stderr,none": 0.05}},
        "n-samples": {"clinreg_med_qa": {"original": 100, "effective": 100}},
        "model_name": "m1",
    }
    path = write(tmp_path / "results_1.json", json.dumps(results))
    other = write(tmp_path / "results_2.json", json.dumps({**results, "model_name": "m2"}))
    data = leaderboard_json(path, other)
    interval = data["benchmarks"][0]["scores"][0]["interval"]
    assert interval["method"] == "normal (reported stderr)"
    assert interval["low"] == pytest.approx(0.5 - 1.959964 * 0.05, abs=1e-6)
    assert data["rows"][0]["instances"] == 100


def test_wilson_interval_for_zero_one_instance_scores():
    from clinreg.results.leaderboard import score_interval
    from clinreg.results.score import Score

    score = Score("m", "r", "m", "exact_match", 0.5, [0.0, 1.0], 100, "results", {},
                  per_instance={"n": 100, "mean": 0.5, "sd": 0.5, "binary": True})
    iv = score_interval(score)
    assert iv["method"] == "wilson"
    assert (iv["low"], iv["high"]) == pytest.approx((0.4038, 0.5962), abs=1e-4)


def test_every_format_renders_the_same_rows(tmp_path):
    board = write(tmp_path / "board.csv", BOARD)
    md = invoke("leaderboard", board, "--root", ROOT, "--format", "markdown")
    assert md.exit_code == 0 and "| 1 | A | All benchmarks | 0.778 |" in md.output
    csv_out = invoke("leaderboard", board, "--root", ROOT, "--format", "csv", "--by", "category")
    lines = [line for line in csv_out.output.splitlines() if not line.startswith("# ")]
    assert lines[0].startswith("rank,model,source,group,")
    assert sum(1 for line in lines[1:] if ",clinical_note_generation," in line) == 4
    table = invoke("leaderboard", board, "--root", ROOT)
    assert table.exit_code == 0 and "0.778" in table.output and "missing 1" in table.output


def test_spreadsheet_formulas_in_model_names_stay_text(tmp_path):
    board = write(tmp_path / "board.csv", "Model,MedQA - EM\n=HYPERLINK(1),0.8\nB,0.7\n")
    out = invoke("leaderboard", board, "--root", ROOT, "--format", "csv").output
    assert "'=HYPERLINK(1)" in out


# ------------------------------------------------------------------ the fast paths agree with the plain definitions

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _pairwise_win_rates(values: dict[str, float], lower_is_better: bool = False) -> dict[str, float]:
    """HELM's definition, pair by pair: the share of the other models beaten, a tie counting half."""
    if len(values) < 2:
        return {}
    out = {}
    for model, v in values.items():
        wins = 0.0
        for other, w in values.items():
            if other == model:
                continue
            better = v < w if lower_is_better else v > w
            wins += 1.0 if better else 0.5 if v == w else 0.0
        out[model] = wins / (len(values) - 1)
    return out


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=4),
                       st.sampled_from([0.0, 0.25, 0.5, 1.0, 3.0, 4.5]) | st.floats(0, 5), max_size=30), st.booleans())
def test_win_rates_from_ranks_equal_the_pairwise_definition(values, lower):
    from clinreg.results.leaderboard import column_win_rates

    fast, slow = column_win_rates(values, lower), _pairwise_win_rates(values, lower)
    assert fast.keys() == slow.keys()
    for model in fast:
        assert abs(fast[model] - slow[model]) < 1e-12


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab\n", max_size=60), st.lists(st.integers(0, 60), max_size=10))
def test_positions_in_one_pass_equal_counting_from_the_start(text, offsets):
    from clinreg.results.strictinput import Positions, position

    positions = Positions(text)
    for at in sorted(min(o, len(text)) for o in offsets):
        assert positions(at) == position(text, at)


def _jury_results(path, juries):
    """A clinreg results file (our own format) with one ACI-Bench jury score per model, each with its jury."""
    scores = [{"model": model, "record": "aci_bench", "mapping": "aci_bench", "metric": "aci_bench_accuracy",
               "value": value, "range": [1, 5], "n_instances": 120, "n_instances_from": "results", "stderr": None,
               "per_instance": None, "jury": jury, "source": {"format": "inspect", "file": "x.json"}}
              for model, (value, jury) in juries.items()]
    return write(path, json.dumps({"clinreg_results": 1, "scores": scores}))


def test_jury_scores_are_ranked_only_against_the_same_jury_and_rows_say_so(tmp_path):
    medhelm = {"rubric": "clinreg:aci_bench/aci_bench@abc", "judges": {"gpt": "openai/gpt-4o", "claude": "anthropic/c"}}
    other = {"rubric": "clinreg:aci_bench/aci_bench@abc",
             "judges": {"gpt": "openai/gpt-4o-mini", "claude": "anthropic/c"}}
    path = _jury_results(tmp_path / "results.json", {"A": (4.2, medhelm), "B": (3.1, medhelm), "C": (4.9, other),
                                                     "D": (1.5, other)})
    data = leaderboard_json(path)
    rows = rows_by_model(data)
    # A beats B under one jury; C beats D under the other; C's higher number never beats A across juries.
    assert {m: r["mean_win_rate"] for m, r in rows.items()} == {"A": 1.0, "B": 0.0, "C": 1.0, "D": 0.0}
    # with no release on the benchmark, one jury is the reference and only the other side is marked, naming both
    noted = {m: r["jury_differs"] for m, r in rows.items() if r["jury_differs"]}
    assert len(noted) == 2 and all("ranked only against 1 model(s) with the same jury" in n[0] and "gpt-4o" in n[0]
                                   and "from the majority's (" in n[0] for n in noted.values())
    bench = next(b for b in data["benchmarks"] if b["key"] == "aci_bench/aci_bench")
    assert sorted(map(sorted, bench["juries"].values())) == [["A", "B"], ["C", "D"]]
    table = invoke("leaderboard", str(path), "--root", str(ROOT))
    assert "jury differs on 1" in table.output


def test_one_jury_ranks_everyone_together(tmp_path):
    jury = {"rubric": "r", "judges": {"gpt": "openai/gpt-4o"}}
    path = _jury_results(tmp_path / "results.json", {"A": (4.0, jury), "B": (3.0, jury), "C": (2.0, jury)})
    rows = rows_by_model(leaderboard_json(path))
    assert {m: r["mean_win_rate"] for m, r in rows.items()} == {"A": 1.0, "B": 0.5, "C": 0.0}
    assert all(r["jury_differs"] == [] for r in rows.values())


def test_a_malformed_jury_in_a_results_file_is_refused_at_its_line(tmp_path):
    path = _jury_results(tmp_path / "results.json", {"A": (4.0, {"rubric": "r", "judges": ["not", "a", "map"]}),
                                                     "B": (3.0, None)})
    result = invoke("results", "import", str(path), "--root", str(ROOT), "--strict")
    assert result.exit_code == 1
    assert "CLR966" in result.output + result.stderr and "jury needs a rubric" in result.output + result.stderr


def test_the_help_gives_the_macro_average_in_the_tables_unit(tmp_path):
    """The table heads its column `Macro %` and its legend says 0-100; the help must not promise another scale."""
    board = write(tmp_path / "board.csv", BOARD)
    table = invoke("leaderboard", "--root", ROOT, board).stdout
    assert "Macro %" in table and "rescaled to 0-100" in " ".join(table.split())
    help_text = " ".join(invoke("leaderboard", "--help").stdout.split())
    assert "Macro %" in help_text and "rescaled to 0-100" in help_text
    assert "0-1 scale" not in help_text
    value = json.loads(invoke("leaderboard", "--root", ROOT, board, "--format", "json").stdout)["data"]
    assert all(0 <= r["macro_average"] <= 1 for r in value["rows"])  # json keeps the fraction, as said


@pytest.mark.parametrize("models, words", [(1, "1 model, 3 benchmarks"), (2, "2 models, 3 benchmarks")])
def test_the_header_counts_read_as_english(tmp_path, models, words):
    rows = BOARD.splitlines()
    board = write(tmp_path / "board.csv", "\n".join(rows[: 1 + models]) + "\n")
    assert f"{words} with scores" in invoke("leaderboard", "--root", ROOT, board).stdout
    html = tmp_path / "board.html"
    invoke("leaderboard", "--root", ROOT, board, "--format", "html", "-o", html)
    assert f"<span>{words.split(', ')[0]}</span>" in html.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------ jury not validated

def test_a_jury_benchmark_without_validation_evidence_is_marked_in_every_format(tmp_path):
    """MIMIC-BHC's record has no `scoring.jury.validation`: its column, and every row it counts in, say so, with
    the legend; MedQA and MedCalc-Bench (no jury) are never marked."""
    board = write(tmp_path / "board.csv", BOARD)
    data = json.loads(invoke("leaderboard", board, "--format", "json").stdout)["data"]
    marks = {b["key"]: b["jury_validation"] for b in data["benchmarks"]}
    assert marks == {"med_qa/med_qa": None, "medcalc_bench/medcalc_bench": None, "mimic_bhc/mimic_bhc": []}
    assert data["jury_unvalidated"]["benchmarks"] == ["mimic_bhc/mimic_bhc"]
    assert data["jury_unvalidated"]["medhelm_in_general"]["status"] == "unverified"
    assert {r["model"]: r["jury_unvalidated"] for r in data["rows"]} == {m: ["mimic_bhc/mimic_bhc"] for m in "ABCD"}
    rows = json.loads(invoke("leaderboard", board, "--by", "category", "--format", "json").stdout)["data"]["rows"]
    by_cds = {r["model"]: r["jury_unvalidated"] for r in rows if r["group"] == "clinical_decision_support"}
    assert by_cds == {m: [] for m in "ABCD"}  # a category without the jury benchmark carries no mark
    table = invoke("leaderboard", board).stdout
    assert "C      0.417" in table and "missing 1; jury not validated on 1" in table
    flat = " ".join(table.split())
    assert "jury not validated on N = the benchmark is scored by an" in flat and "unverified" in table
    markdown = invoke("leaderboard", board, "--format", "markdown").stdout
    assert "`mimic_bhc/mimic_bhc` · jury not validated †" in markdown and "\n† Jury not validated: " in markdown
    assert "| Jury not validated † |" in markdown
    csv_text = invoke("leaderboard", board, "--format", "csv").stdout
    assert "# jury not validated: Jury not validated on 1 benchmark(s): mimic_bhc/mimic_bhc" in csv_text
    header = next(line for line in csv_text.splitlines() if line.startswith("rank,"))
    assert header.endswith(",jury_not_validated")
    html = invoke("leaderboard", board, "--format", "html").stdout
    assert 'id="jury-unvalidated" data-benchmarks="mimic_bhc/mimic_bhc"' in html
    assert 'data-jury-validation="none">jury not validated</span>' in html
    assert html.count("jury not validated on 1</span>") == 4


def test_a_jury_with_validation_evidence_is_not_marked(tmp_path):
    import shutil

    root = tmp_path / "root"
    for part in ("taxonomy", "registry"):
        shutil.copytree(ROOT / part, root / part)
    record = root / "registry" / "datasets" / "mimic_bhc.yaml"
    text = record.read_text(encoding="utf-8")
    validated = text.replace("        shows: [input, response, reference]\n",
                             "        shows: [input, response, reference]\n"
                             "        validation:\n"
                             "          - {kind: ratings, ratings: registry/validation/mimic_bhc.csv}\n", 1)
    assert validated != text
    record.write_text(validated, encoding="utf-8")
    board = write(tmp_path / "board.csv", BOARD)
    data = json.loads(invoke("leaderboard", board, "--root", root, "--format", "json").stdout)["data"]
    marks = {b["key"]: b["jury_validation"] for b in data["benchmarks"]}
    assert marks["mimic_bhc/mimic_bhc"] == [{"kind": "ratings", "ratings": "registry/validation/mimic_bhc.csv"}]
    assert "jury_unvalidated" not in data and all(r["jury_unvalidated"] == [] for r in data["rows"])
    assert "jury not validated" not in invoke("leaderboard", board, "--root", root).stdout
    assert "jury not validated" not in invoke("leaderboard", board, "--root", root, "--format", "markdown").stdout


def test_a_score_on_another_metric_is_marked_beside_the_board_never_ranked(tmp_path):
    """medhelm's configurable jury_score (the raw mean of criterion scores) is kept beside ACI-Bench's jury metric
    in a results file; the board reads it back, lists it as another metric, and ranks only the others."""
    jury = {"rubric": "r", "judges": {"gpt": "openai/gpt-4o"}}
    path = _jury_results(tmp_path / "results.json", {"A": (4.0, jury), "B": (3.0, jury)})
    document = json.loads(path.read_text())
    document["stand_ins"] = [{"model": "C", "record": "aci_bench", "mapping": "aci_bench", "metric": "jury_score",
                              "value": 4.9, "n_instances": 4, "harness": "medhelm-config",
                              "stands_in_for": "aci_bench_accuracy", "source": {"format": "helm_runs"}},
                             {"model": "D", "record": "no_such_record", "mapping": "x", "metric": "jury_score",
                              "value": 1.0}]
    write(path, json.dumps(document))
    data = leaderboard_json(path)
    assert sorted(rows_by_model(data)) == ["A", "B"]  # C's jury_score is not ranked
    assert data["beside"] == [{"model": "C", "benchmark": "aci_bench/aci_bench", "metric": "jury_score", "value": 4.9,
                               "n_instances": 4, "harness": "medhelm-config", "stands_in_for": "aci_bench_accuracy",
                               "ranked": False}]
    table = invoke("leaderboard", str(path), "--root", str(ROOT))
    assert ("Another metric, not ranked (1): C on aci_bench/aci_bench: jury_score 4.9 over 4 instances "
            "(medhelm-config), not aci_bench_accuracy.") in " ".join(table.output.split())
