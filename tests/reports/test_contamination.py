"""Contamination you can see: declared facts and computed split figures on the card, in `clinreg show`, in the
leaderboard's notes and in HELM's contamination.yaml shape; `clinreg overlap` writes the figures and `--check`
reproduces them."""

from __future__ import annotations

import json

import yaml
from clirunner import clinreg

from clinreg.core.store import load_registry
from clinreg.reports.contamination import board_line
from clinreg.results.comparability import board_notes
from record_fixtures import hub_folder
from trees import DATASET, replace_in, write_tree

FACT = """contamination:
  declared:
    - statement: The model card says the model was tuned on the benchmark's training split.
      source: A model card, section Training data (https://example.org/card)
      level: strong
      models: [openai/gpt-4]
      splits: [train]
    - statement: The questions come from another benchmark's test set.
      source: The dataset's paper, section 3
"""
QUESTIONS = ["Does aspirin lower the risk of a second heart attack in adults over sixty",
             "Is metformin linked to lower cancer incidence in people with type two diabetes",
             "Do statins reduce stroke after a transient ischaemic attack in older women"]


def _tree(tmp_path):
    text = replace_in(DATASET, "splits: [test]\n  revision", "splits: [train, test]\n  revision") + FACT
    return write_tree(tmp_path / "reg", {"registry/datasets/qa_set.yaml": text})


def _data(tmp_path, test_first: str = QUESTIONS[0]):
    data = tmp_path / "data"
    test = [{"question": q, "answer": a} for q, a in zip([test_first, *QUESTIONS[1:]], ["yes", "no", "maybe"])]
    train = [{"question": QUESTIONS[1].upper() + "?", "answer": "no"},  # an exact copy of test row 1
             {"question": "An unrelated question about renal stones and hydration in summer months", "answer": "yes"}]
    hub_folder(data, "owner/qa_set", {"train": train, "test": test})
    return data


def _site_card(root, out, record="qa_set") -> str:
    result = clinreg("site", "--root", root, "-o", out, "--format", "json")
    assert result.exit_code == 0, result.output
    return (out / f"dataset-{record}.html").read_text(encoding="utf-8")


def test_without_figures_the_card_and_show_say_not_computed_and_show_the_declared_facts(tmp_path):
    root = _tree(tmp_path)
    shown = clinreg("show", "qa_set", "--root", root)
    assert shown.exit_code == 0, shown.output
    section = " ".join(shown.stdout[shown.stdout.index("Contamination"):].split())  # lines are wrapped at 100
    assert "declared: The model card says the model was tuned" in section
    assert "models openai/gpt-4, splits train, level strong" in section
    assert "source: A model card, section Training data" in section
    assert "not computed: data not readable here" in section and "fingerprint" not in section.replace(
        "fingerprints and overlap", "")
    data = json.loads(clinreg("show", "qa_set", "--root", root, "--format", "json").stdout)["data"]
    assert data["contamination"]["status"] == "not computed" and "computed" not in data["contamination"]
    assert [f["level"] for f in data["contamination"]["declared"]] == ["strong", None]
    card = _site_card(root, tmp_path / "site")
    assert 'id="contamination"' in card and "The questions come from another benchmark" in card
    assert "not computed: data not readable here" in card and "sha256:" not in card
    plans = (tmp_path / "site" / "dataset-plans.html").read_text(encoding="utf-8")
    assert "None: no paper, model card or dataset card read states" in plans
    assert "not computed: data not readable here" in plans


def test_overlap_writes_the_figures_the_card_and_show_read_and_check_reproduces_them(tmp_path):
    root, data = _tree(tmp_path), _data(tmp_path)
    written = clinreg("overlap", "--root", root, "--data-dir", data)
    assert written.exit_code == 0, written.output
    assert "1 record(s) computed, 1 not computed" in written.stdout
    assert "plans: not computed: data not readable here" in written.stdout
    stored = json.loads((root / "clinreg.overlap.json").read_text(encoding="utf-8"))
    (mapping,) = stored["records"]["qa_set"]["mappings"]
    (across,) = mapping["across"]
    assert (across["evaluation"], across["other"], across["exact_pairs"], across["rows"]) == ("test", "train", 1, 1)
    assert across["pairs"] == [{"a": "test/1", "b": "train/0", "exact": True, "jaccard": 1.0}]
    assert stored["records"]["qa_set"]["source"]["kind"] == "mirror" and "plans" in stored["not_computed"]
    check = clinreg("overlap", "--root", root, "--data-dir", data, "--check", "--format", "json")
    assert check.exit_code == 0, check.output
    assert json.loads(check.stdout)["data"]["drift"] == []

    shown = " ".join(clinreg("show", "qa_set", "--root", root).stdout.split())  # lines are wrapped at 100
    fingerprint = mapping["splits"]["test"]["fingerprint"]
    assert f"evaluation split 'test': 3 instance(s), fingerprint {fingerprint}" in shown
    assert "qa_set: 1 of 3 instance(s) of 'test' read like 'train' (1 exact, 0 near-duplicate pair(s))" in shown
    assert "computed figures: stored in clinreg.overlap.json, computed from the mirror folder owner__qa_set" in shown
    card = _site_card(root, tmp_path / "site")
    assert f"<code>{fingerprint}</code>" in card and "1 of 3 instance(s) of &#39;test&#39; read like" in card
    assert "not computed: data not readable here" in (tmp_path / "site" / "dataset-plans.html").read_text()

    # A changed copy of the data, or a hand-edited file, is drift.
    _data(tmp_path, test_first=QUESTIONS[0] + " today")
    drifted = clinreg("overlap", "--root", root, "--data-dir", data, "--check")
    assert drifted.exit_code == 1 and "drift: qa_set: mappings, source changed" in drifted.stdout
    assert json.loads((root / "clinreg.overlap.json").read_text(encoding="utf-8")) == stored  # --check writes nothing


def test_a_figures_file_for_another_record_version_is_stale_on_the_card(tmp_path):
    root, data = _tree(tmp_path), _data(tmp_path)
    assert clinreg("overlap", "--root", root, "--data-dir", data).exit_code == 0
    path = root / "registry/datasets/qa_set.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("version: 1.0.0", "version: 1.0.1"), encoding="utf-8")
    view = json.loads(clinreg("show", "qa_set", "--root", root, "--format", "json").stdout)["data"]["contamination"]
    assert view["status"] == "stale" and "computed for record version 1.0.0, not this version 1.0.1" in view["note"]
    assert 'class="badge stale"' in _site_card(root, tmp_path / "site")


def test_check_without_a_figures_file_or_any_data_fails(tmp_path):
    root = _tree(tmp_path)
    missing = clinreg("overlap", "--root", root, "--check", "--data-dir", tmp_path)
    assert missing.exit_code == 1 and "no figures file" in missing.output
    assert clinreg("overlap", "--root", root, "--data-dir", tmp_path).exit_code == 0  # every record not computed
    nothing = clinreg("overlap", "--root", root, "--check", "--data-dir", tmp_path)
    assert nothing.exit_code == 1 and "nothing was checked" in nothing.output


def test_declared_facts_in_helm_shape_and_the_ones_left_out(tmp_path):
    root = _tree(tmp_path)
    result = clinreg("contamination", "--root", root, "--format", "helm")
    assert result.exit_code == 0, result.output
    (point,) = yaml.safe_load(result.stdout)["points"]
    assert point == {"models": ["openai/gpt-4"], "groups": ["qa_set"], "level": "strong",
                     "description": "The model card says the model was tuned on the benchmark's training split. "
                                    "See A model card, section Training data (https://example.org/card)."}
    assert "left out of HELM's shape: qa_set: names no model" in result.stderr
    listed = json.loads(clinreg("contamination", "--root", root, "--format", "json").stdout)["data"]
    assert {r["record"]: len(r["declared"]) for r in listed["records"]} == {"plans": 0, "qa_set": 2}


def test_leaderboard_notes_name_the_facts_the_models_on_the_board_and_found_overlaps(tmp_path):
    root, data = _tree(tmp_path), _data(tmp_path)
    reg = load_registry(root)
    notes = board_notes(reg, ["qa_set/qa_set", "plans/plans"], ["gpt-4", "another-model"])
    (note,) = notes  # plans declares nothing and has no figures: no note
    assert [f["on_board"] for f in note["declared"]] == [["gpt-4"], []] and note["overlap"] == []
    assert clinreg("overlap", "--root", root, "--data-dir", data).exit_code == 0
    (note,) = board_notes(load_registry(root), ["qa_set/qa_set"], ["gpt-4"])
    assert note["overlap"] == ["qa_set: 1 of 3 instance(s) of 'test' read like 'train' (1 exact, 0 near-duplicate "
                               "pair(s))"]
    line = board_line([note])
    assert line.startswith("Contamination: qa_set: declared: The model card says")
    assert "names gpt-4 on this board" in line and "read like 'train'" in line


def test_an_unreadable_figures_file_is_a_located_usage_error_not_a_traceback(tmp_path):
    root = _tree(tmp_path)
    (root / "clinreg.overlap.json").write_text("{not json", encoding="utf-8")
    result = clinreg("show", "qa_set", "--root", root, "--format", "json")
    assert result.exit_code == 2
    error = json.loads(result.stderr)["data"]
    assert error["code"] == "CLR985" and "not a readable overlap figures file" in error["message"]
    (root / "clinreg.overlap.json").write_text('{"records": []}', encoding="utf-8")
    again = clinreg("site", "--root", root, "-o", tmp_path / "site")
    assert again.exit_code == 2 and "not a clinreg overlap figures file (no `records` object)" in again.stderr
