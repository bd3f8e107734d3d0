"""The walk-through of adding a dataset, as a new contributor meets it: each rough edge found there, fixed."""

from __future__ import annotations

from clirunner import invoke
from record_fixtures import build, hub_folder, record, record_dict, write_root

from clinreg.cli.main import main

PLAIN_ITEMS = {
    "input_template": "{{ question }}",
    "choices": {"items": "options"},
    "label": {"encoding": "letter", "column": "answer", "letters": ["A", "B", "C"]},
}


def test_items_choices_accept_a_plain_list_of_strings(tmp_path):
    rows = [{"question": "Which?", "options": ["Aspirin", "Heparin", "Warfarin"], "answer": "B"}]
    hub_folder(tmp_path / "data", "owner/fixture", {"test": rows})
    instances, _ = build(record(PLAIN_ITEMS), tmp_path / "data")
    assert [(i.choices, i.answer) for i in instances] == [(["Aspirin", "Heparin", "Warfarin"], "B")]
    root = write_root(tmp_path, [record_dict(PLAIN_ITEMS)])
    result = invoke(main, ["validate", "--root", str(root), "registry/datasets/fixture.yaml"])
    assert "CLR505" not in result.output


def test_a_label_of_minus_one_suggests_unlabeled(tmp_path):
    mapping = {"choices": {"columns": ["a", "b"]},
               "label": {"encoding": "index", "column": "cop", "base": 0, "count": 2, "positive": "B"}}
    rows = [{"question": "Q", "a": "x", "b": "y", "cop": 0}, {"question": "Q", "a": "x", "b": "y", "cop": -1}]
    hub_folder(tmp_path / "data", "owner/fixture", {"test": rows})
    root = write_root(tmp_path, [record_dict(mapping)])
    result = invoke(main, ["build", "fixture", "--root", str(root), "--data-dir", str(tmp_path / "data"),
                           "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 1
    assert "row 1" in result.stderr and "declare it with `unlabeled:`" in result.stderr


def test_an_unquoted_colon_in_a_value_suggests_quoting(tmp_path):
    root = write_root(tmp_path, [record_dict(PLAIN_ITEMS)])
    path = root / "registry" / "datasets" / "fixture.yaml"
    text = path.read_text().replace("name: Fixture", "name: Fixture: the sequel")
    path.write_text(text)
    result = invoke(main, ["validate", "--root", str(root)])
    assert result.exit_code == 1
    line = next(text for text in result.output.splitlines() if "CLR001" in text)
    assert line.startswith("registry/datasets/fixture.yaml:")
    assert "must be quoted" in result.output


def test_check_data_prints_row_counts_per_split(tmp_path):
    mapping = {"choices": {"columns": ["a", "b"]},
               "label": {"encoding": "index", "column": "cop", "base": 0, "count": 2, "unlabeled": -1, "positive": "B"},
               "filters": [{"keep": "question != 'skip me'", "why": "a test filter"}]}
    rows = [{"question": "Q", "a": "x", "b": "y", "cop": 0}, {"question": "Q", "a": "x", "b": "y", "cop": -1},
            {"question": "skip me", "a": "x", "b": "y", "cop": 1}]
    hub_folder(tmp_path / "data", "owner/fixture", {"test": rows})
    root = write_root(tmp_path, [record_dict(mapping)])
    result = invoke(main, ["check-data", "fixture", "--root", str(root), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    assert ("fixture/fixture: split 'test': 3 row(s) checked, 1 labelled, 1 unlabelled, 1 dropped by filters"
            in result.stderr)


def test_validate_paths_limits_the_output_to_those_files(tmp_path):
    good = record_dict(PLAIN_ITEMS, id="good", repo="owner/good")
    bad = record_dict(PLAIN_ITEMS, id="bad", repo="owner/bad")
    bad["licence"] = {"spdx": "unknown", "note": "Not found."}  # a warning: errors show whatever the paths
    root = write_root(tmp_path, [good, bad])
    everything = invoke(main, ["validate", "--root", str(root)])
    assert "registry/datasets/bad.yaml" in everything.output
    only_good = invoke(main, ["validate", "--root", str(root), str(root / "registry/datasets/good.yaml")])
    assert "registry/datasets/bad.yaml" not in only_good.output
    assert "in 1 file(s)" in only_good.output
    missing = invoke(main, ["validate", "--root", str(root), "registry/datasets/nope.yaml"])
    assert missing.exit_code == 2 and "not a file of the registry" in missing.output
