"""Ratings files (clinreg.scoring.ratings): the one whole-number rule shared by the jury scorer every export carries
and by `results ratings`, which writes exactly the ratings the scorer keeps; problems in ratings files as located
text and as Diagnostics with catalogue codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinreg.core.codes import CODES
from clinreg.results.ratings import collect_ratings
from clinreg.scoring import medhelm
from clinreg.scoring.ratings import RatingsError, ratings_text, read_ratings, whole_rating
from clinreg.errors import ClinregError

JURY = {"scale": [1, 5], "axes": [{"id": "accuracy", "question": "?"}]}
# Judges' scores as a reply may give them: whole, not whole, text, a bool, too large for a float, not a number.
SCORES = [3, 0, -2, 7, 2.5, 4.7, "3", " 4 ", "2.5", "x", True, False, 10 ** 400, -(10 ** 400), 1e300, None, [1],
          {"a": 1}, ""]


def _jury_keeps(score):
    """What the jury scorer every export carries counts for a reply giving `score`: its rating, or None (dropped)."""
    reply = json.dumps({"accuracy": {"score": score, "explanation": "."}})
    ratings, _ = medhelm.read_ratings(JURY, reply)
    return ratings.get("accuracy")


def _helm_run(folder: Path, scores: list) -> Path:
    """A HELM jury run folder whose instance i holds one judge's reply scoring `scores[i]` on accuracy."""
    folder.mkdir(parents=True)
    spec = {"name": "clinreg:mapping=aci_bench,model=m", "adapter_spec": {"model": "m"},
            "annotators": [{"args": {"annotator_models": {"gpt": {"model_name": "openai/gpt"}}}}]}
    states = [{"instance": {"id": f"i{n}"}, "annotations": {"aci_bench": {
        "gpt": {"accuracy": {"score": score, "explanation": "."}}}}} for n, score in enumerate(scores)]
    (folder / "run_spec.json").write_text(json.dumps(spec), encoding="utf-8")
    (folder / "scenario_state.json").write_text(json.dumps({"request_states": states}), encoding="utf-8")
    return folder


def test_the_rule_is_the_jury_scorers():
    for score in SCORES:
        rating, problem = whole_rating(score)
        assert (rating, problem is None) == (_jury_keeps(score), _jury_keeps(score) is not None), score


def test_ratings_written_from_helm_runs_are_exactly_the_ones_the_jury_scorer_keeps(tmp_path):
    """A score the jury scorer drops (a whole number too large for a float, text that is no whole number, None) is
    never written as a rating; every score it keeps is, as the rating it counts (True as 1, 2.5 as 2, "3" as 3)."""
    found = collect_ratings([_helm_run(tmp_path / "run", SCORES)])
    written = {row["instance_id"]: row["score"] for row in found.rows}
    for n, score in enumerate(SCORES):
        kept = _jury_keeps(score)
        assert written.get(f"i{n}") == (None if kept is None else float(kept)), score
    assert {True, 10 ** 400, 2.5, "3"} <= set(map(lambda s: s if not isinstance(s, list | dict) else None, SCORES))
    assert _jury_keeps(10 ** 400) is None and f"i{SCORES.index(10 ** 400)}" not in written
    dropped = [s for s in SCORES if _jury_keeps(s) is None]
    assert len(found.problems) == len(found.diagnostics) == len(dropped)
    assert {d.code for d in found.diagnostics} == {"CLR966"}
    assert all(d.severity == "warning" and d.file.endswith("scenario_state.json") for d in found.diagnostics)
    csv_text = ratings_text(found.rows, "csv")
    benchmark = "clinreg:mapping=aci_bench"
    assert csv_text.splitlines()[1:] == [f"i{n},gpt,judge,accuracy,{int(_jury_keeps(s))},m,openai/gpt,{benchmark}"
                                         for n, s in sorted(enumerate(SCORES), key=lambda p: f"i{p[0]}")
                                         if _jury_keeps(s) is not None]


def test_ratings_from_inspect_logs_never_hold_one_the_jury_scorer_drops(tmp_path):
    """An Inspect log's ratings are the scorer's own (whole numbers); a value in one that the scorer would drop is
    left out, never written."""
    samples = [{"id": f"i{n}", "epoch": 1, "scores": {"jury": {"metadata": {
        "ratings": {"gpt": {"accuracy": score}}, "jury": {"judges": {"gpt": "openai/gpt"}}}}}}
        for n, score in enumerate(SCORES)]
    log = tmp_path / "log.json"
    log.write_text(json.dumps({"eval": {"model": "m", "task": "clinreg_aci_bench"}, "status": "success",
                               "samples": samples}), encoding="utf-8")
    found = collect_ratings([log])
    assert found.rows
    for row in found.rows:
        assert _jury_keeps(SCORES[int(row["instance_id"][1:])]) is not None, row


@pytest.mark.parametrize("content, code, line, text", [
    ("instance_id,rater,score\nq1,j,3\n", "CLR962", 1, ":1: the header lacks axis"),
    ("instance_id,rater,axis,score\nq1,j,a,3\nq1,j,a,4\n", "CLR967", 3, ":3: a second score by j for instance q1"),
    ("instance_id,rater,axis,score\nq1,j,a,high\n", "CLR966", 2, ":2: `score` 'high' is not a number"),
    ("instance_id,rater,axis,score\nq1,,a,3\n", "CLR962", 2, ":2: `rater` is missing or empty"),
    ("instance_id,rater,axis,score\n", "CLR962", 1, ": no ratings"),
    ('{"instance_id": "q1", "rater": "j", "axis": "a", "score": 1}\nnot json\n', "CLR961", 2, ":2: not a JSON object"),
    ('{"instance_id": "q1", "rater": "j", "axis": "a", "score": NaN}\n', "CLR966", 1, ":1: `score` must be a finite"),
])
def test_a_bad_ratings_file_is_diagnostics_with_catalogue_codes(tmp_path, content, code, line, text):
    path = tmp_path / "ratings.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RatingsError) as caught:
        read_ratings(path)
    error = caught.value
    assert isinstance(error, ClinregError) and isinstance(error, ValueError)
    assert error.problems[0] == f"{path}{text}" or error.problems[0].startswith(f"{path}{text}")
    first = error.diagnostics[0]
    assert (first.code, first.file, first.line, first.severity) == (code, str(path), line, "error")
    assert first.code in CODES and error.code == code and error.file == str(path)
    assert len(error.diagnostics) == len(error.problems)


def test_an_unreadable_ratings_file_is_clr961(tmp_path):
    with pytest.raises(RatingsError) as caught:
        read_ratings(tmp_path / "absent.csv")
    assert caught.value.code == "CLR961" and "cannot read it" in caught.value.problems[0]
    (tmp_path / "latin.csv").write_bytes(b"instance_id,rater,axis,score\nq\xe9,j,a,1\n")
    with pytest.raises(RatingsError) as caught:
        read_ratings(tmp_path / "latin.csv")
    assert caught.value.problems == [f"{tmp_path / 'latin.csv'}: not UTF-8 text"]
    assert caught.value.diagnostics[0].code == "CLR961"
