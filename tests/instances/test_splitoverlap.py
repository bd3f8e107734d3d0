"""`check-data` on a tree with planted duplicates inside the evaluation split and copies in the other splits:
the counts, the rows, the fingerprints, the exit codes, and the figures `record_figures` computes."""

from __future__ import annotations

import json

from clirunner import run

from clinreg.cli.build import check_data
from clinreg.core.model import Dataset
from clinreg.instances import record_figures
from clinreg.sources.origin import locate
from record_fixtures import hub_folder, record_dict, write_root

LONG = ("A 54-year-old man presents with crushing chest pain radiating to the left arm for two hours, with "
        "sweating and nausea; the ECG shows ST elevation in leads II, III and aVF. Which artery is occluded {end}")
MCQ = {
    "input_template": "{{ question }}",
    "choices": {"columns": ["opa", "opb"]},
    "label": {"encoding": "index", "column": "cop", "base": 0, "count": 2},
    "splits": ["test"],
}


def _row(question: str, cop: int = 0) -> dict:
    return {"question": question, "opa": "Right coronary artery", "opb": "Left circumflex artery", "cop": cop}


def _distinct(prefix: str, n: int) -> list[dict]:
    return [_row(f"{prefix} question number {i} about {word} and its management", i % 2)
            for i, word in zip(range(n), ["asthma", "gout", "sepsis", "anaemia", "stroke", "psoriasis", "rickets",
                                          "scurvy", "malaria", "measles"])]


def _tree(tmp_path, test, train, validation):
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"train": train, "validation": validation, "test": test})
    root = write_root(tmp_path, [record_dict(MCQ, splits=["train", "validation", "test"])])
    return root, data


def _planted(tmp_path):
    test = _distinct("test", 6)
    test[4] = _row(test[1]["question"].upper() + "!!")  # an exact duplicate of row 1, once normalised
    test.append(_row(LONG.format(end="here?")))  # row 6
    test.append(_row(LONG.format(end="now?")))  # row 7: a near duplicate of row 6 (31 of 33 5-grams shared)
    train = _distinct("train", 5)
    train[3] = _row(test[0]["question"])  # train row 3 is test row 0
    train.append(_row(LONG.format(end="here? Explain.")))  # train row 5 ~ test rows 6 and 7
    validation = _distinct("validation", 3)
    validation[2] = _row(test[2]["question"].replace("number", "Number"))  # validation row 2 is test row 2
    return _tree(tmp_path, test, train, validation)


def test_check_data_reports_duplicates_and_overlaps_with_their_rows(tmp_path):
    root, data = _planted(tmp_path)
    result = run(check_data, "fixture", "--root", root, "--data-dir", data, "--format", "json")
    assert result.exit_code == 0, result.output  # warnings
    payload = json.loads(result.stdout)["data"]
    by_code = {}
    for d in payload["diagnostics"]:
        by_code.setdefault(d["code"], []).append(d)
    (within,) = by_code["CLR914"]
    assert within["severity"] == "warning"
    assert "1 exact and 1 near-duplicate pair(s) (4 row(s))" in within["message"]
    assert "test/1 ~ test/4" in within["message"] and "test/6 ~ test/7 (Jaccard" in within["message"]
    across = {d["message"].split("read like split ")[1].split(" ")[0]: d["message"] for d in by_code["CLR915"]}
    assert set(across) == {"'train'", "'validation'"}
    assert "test/0 ~ train/3" in across["'train'"] and "1 exact and 2 near-duplicate pair(s)" in across["'train'"]
    assert "test/6 ~ train/5" in across["'train'"] and "test/7 ~ train/5" in across["'train'"]
    assert "test/2 ~ validation/2" in across["'validation'"]
    assert "1 exact and 0 near-duplicate pair(s)" in across["'validation'"]
    # the findings are located at the evaluation split in the record
    text = (root / "registry/datasets/fixture.yaml").read_text().splitlines()
    assert text[within["line"] - 1].strip() == "- test"
    overlap = payload["overlap"]
    assert "Jaccard >= 0.8" in overlap["method"]
    (figures,) = overlap["mappings"]
    assert figures["evaluation_splits"] == ["test"]
    assert {s: v["instances"] for s, v in figures["splits"].items()} == {"test": 8, "train": 6, "validation": 3}
    assert figures["within"]["test"]["rows"] == 4  # rows 1, 4, 6 and 7
    train = next(a for a in figures["across"] if a["other"] == "train")
    assert (train["exact_pairs"], train["near_pairs"], train["rows"]) == (1, 2, 3)
    strict = run(check_data, "fixture", "--root", root, "--data-dir", data, "--strict")
    assert strict.exit_code == 1
    assert "CLR914" in strict.stdout and "CLR915" in strict.stdout
    assert "evaluation split 'test': 8 instance(s), fingerprint sha256:" in strict.stderr
    assert "'test' vs 'train': 1 exact and 2 near-duplicate pair(s), 3 evaluation instance(s) involved" in strict.stderr


def test_a_clean_tree_has_no_findings_and_no_overlap_skips_the_check(tmp_path):
    root, data = _tree(tmp_path, _distinct("test", 6), _distinct("train", 6), _distinct("validation", 3))
    result = run(check_data, "fixture", "--root", root, "--data-dir", data, "--strict", "--format", "json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)["data"]
    assert payload["diagnostics"] == []
    assert all(a["exact_pairs"] == a["near_pairs"] == 0 for a in payload["overlap"]["mappings"][0]["across"])
    root, data = _planted(tmp_path / "again")
    off = run(check_data, "fixture", "--root", root, "--data-dir", data, "--no-overlap", "--strict", "--format", "json")
    assert off.exit_code == 0 and "overlap" not in json.loads(off.stdout)["data"]


def test_fingerprints_follow_content_not_row_order(tmp_path):
    rows = _distinct("test", 6)
    root, data = _tree(tmp_path / "a", rows, _distinct("train", 2), _distinct("validation", 2))
    record = Dataset.model_validate(record_dict(MCQ, splits=["train", "validation", "test"]))
    first = record_figures(record, locate(record, data, root))
    root, data = _tree(tmp_path / "b", list(reversed(rows)), _distinct("train", 2), _distinct("validation", 2))
    second = record_figures(record, locate(record, data, root))
    fp = lambda f: {s: v["fingerprint"] for s, v in f["mappings"][0]["splits"].items()}  # noqa: E731
    assert fp(first) == fp(second) and first["source"]["kind"] == "mirror"
    changed = [dict(r) for r in rows]
    changed[2]["question"] += " twice"
    root, data = _tree(tmp_path / "c", changed, _distinct("train", 2), _distinct("validation", 2))
    third = record_figures(record, locate(record, data, root))
    assert fp(third)["test"] != fp(first)["test"] and fp(third)["train"] == fp(first)["train"]


def test_an_empty_evaluation_split_has_figures_and_no_findings(tmp_path):
    root, data = _tree(tmp_path, [], _distinct("train", 3), _distinct("validation", 2))
    record = Dataset.model_validate(record_dict(MCQ, splits=["train", "validation", "test"]))
    figures = record_figures(record, locate(record, data, root))["mappings"][0]
    assert figures["splits"]["test"]["instances"] == 0
    assert figures["within"]["test"]["pairs"] == [] and all(not a["pairs"] for a in figures["across"])


def test_overlap_without_the_data_keeps_the_figures_the_file_holds(tmp_path):
    """Review finding: a second `clinreg overlap` without --data-dir rewrote the file with no record in it."""
    from clinreg.cli.contamination import overlap

    root, data = _planted(tmp_path)
    first = run(overlap, "--root", root, "--data-dir", data, "--format", "json")
    assert first.exit_code == 0, first.output
    figures = root / "clinreg.overlap.json"
    held = json.loads(figures.read_text(encoding="utf-8"))["records"]
    assert "fixture" in held
    again = run(overlap, "--root", root, "--format", "json")  # no data at hand now
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["data"]["kept"] == ["fixture"]
    after = json.loads(figures.read_text(encoding="utf-8"))
    assert after["records"]["fixture"] == held["fixture"] and "fixture" not in after["not_computed"]


def test_check_data_text_states_the_method_and_what_it_did_not_check(tmp_path):
    """Review finding: the text output never said its method, and a record with one split looked checked."""
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"test": _distinct("test", 4)})
    root = write_root(tmp_path, [record_dict(MCQ)])
    result = run(check_data, "fixture", "--root", root, "--data-dir", data)
    assert result.exit_code == 0, result.output
    assert "method: exact: equal normalised text" in result.stderr and "Jaccard >= 0.8" in result.stderr
    assert "overlap across splits not checked: the record names no other split" in result.stderr
