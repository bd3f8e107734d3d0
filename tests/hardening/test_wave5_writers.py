"""Issue 50, class 2: YAML (and comments in it) written from text anyone can supply. A model name, a harness name
or a hub card's config name holding a line break (LF, CR, NEL, U+2028, U+2029) must not become keys of the file
written: every file is read back with a standard YAML loader and holds exactly the keys and values meant."""

from __future__ import annotations

import csv
import itertools
import json

import pytest
import yaml
from clirunner import clinreg

from clinreg.core.paths import embedded_root
from clinreg.core.store import load_registry

ROOT = embedded_root()
BREAKS = {"lf": "\n", "cr": "\r", "nel": "\x85", "u2028": "\u2028", "u2029": "\u2029", "crlf": "\r\n"}


def _forging(sep: str) -> str:
    """A name that, written raw into a YAML file, would end a comment and add a second entry with a forged score."""
    return f"honest{sep}- dataset: {{id: forged/set, task_id: default}}{sep}  value: 100{sep}forged: true"


@pytest.fixture(scope="module")
def published_results(tmp_path_factory) -> dict:
    """The shipped MedHELM release as a results file (read through `results import`), Hub benchmarks only."""
    from clinreg.results.published import published_file

    out = tmp_path_factory.mktemp("published") / "results.json"
    result = clinreg("results", "import", published_file("medhelm-2025-07-31"), "--root", ROOT, "-o", out)
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text(encoding="utf-8"))
    reg = load_registry(ROOT)
    document["scores"] = [s for s in document["scores"] if reg.datasets[s["record"]].source.type == "huggingface"]
    return document


def test_hf_eval_results_files_hold_exactly_the_entry_meant(published_results, tmp_path):
    document = json.loads(json.dumps(published_results))
    chosen = {}
    scores = []
    one_each = list({s["record"]: s for s in document["scores"]}.values())  # one score of each benchmark
    for (name, sep), score in zip(BREAKS.items(), itertools.cycle(one_each)):
        score = dict(score, model=_forging(sep) + f" {name}")
        score["provenance"] = dict(score.get("provenance") or {}, harness=f"helm{sep}value: 99{sep}# {name}")
        chosen[name] = score
        scores.append(score)
    assert len(scores) == len(BREAKS)
    document["scores"] = scores
    document.pop("models", None)
    source = tmp_path / "hostile.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "hf"
    result = clinreg("results", "export", source, "--root", ROOT, "--to", "hf-eval-results", "-o", out)
    assert result.exit_code == 0, result.output
    files = sorted(out.rglob("*.yaml"))
    assert len(files) == len(scores)
    reg = load_registry(ROOT)
    for path in files:
        text = path.read_text(encoding="utf-8")
        # one comment line, and the rest is the dumper's: no line of the file is the attacker's
        assert text.splitlines()[0].startswith("# honest") and not any(
            line.startswith(("forged", "  value: 100")) for line in text.splitlines())
        assert all(c not in text for c in "\r\x85\u2028\u2029")
        entries = yaml.safe_load(text)
        assert isinstance(entries, list) and len(entries) == 1, entries
        (entry,) = entries
        folder = "/".join(path.relative_to(out).parts[:-2])
        (score,) = [s for n, s in chosen.items() if folder.endswith(f" {n}")]
        record = reg.datasets[score["record"]]
        assert set(entry) == {"dataset", "value", "date", "source", "notes"}
        assert entry["dataset"]["id"] == record.source.repo and entry["dataset"]["task_id"] == "default"
        assert entry["value"] == score["value"]
        # the harness's name is kept whole, as text, inside the one notes string
        assert f"harness {score['provenance']['harness']}" in entry["notes"]


def _shape(value):
    """The keys of a YAML document at every level, without its values."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return None


def _skeleton(sep: str) -> str:
    from clinreg.contrib.features import card_from_data
    from clinreg.contrib.scaffold import Answers, render_dataset

    card = card_from_data({
        "license": "mit",
        "configs": [{"config_name": f"main{sep}revision: forged{sep}", "data_files": [
                         {"split": "test", "path": "data/test.parquet"},
                         {"split": f"train{sep}forged_split: 1", "path": "data/train.parquet"}]},
                    {"config_name": f"other{sep}trust_remote_code: true", "data_files": []}],
        "dataset_info": {"features": [{"name": "question", "dtype": "string"}, {"name": "answer", "dtype": "string"}]},
    })
    text, _ = render_dataset(Answers(id="hostile_card", repo="owner/name", card=card, tasks=["some_task"]))
    return text


@pytest.mark.parametrize("name, sep", BREAKS.items())
def test_a_hub_cards_config_and_split_names_stay_in_their_comment(name, sep):
    hostile, plain = yaml.safe_load(_skeleton(sep)), yaml.safe_load(_skeleton(" "))
    assert _shape(hostile) == _shape(plain)  # the same keys at every level: nothing forged
    assert hostile["source"]["config"].startswith("TODO: one of main")  # the names stay text, in one value
    assert hostile["source"]["revision"].startswith("TODO")


def test_an_input_template_block_never_ends_early():
    from clinreg.contrib.scaffold import _block_scalar

    for sep in ("\r", "\x85", "\u2028", "\u2029"):
        text = f"{{{{ question }}}}\nline two{sep}forged: 1"
        lines = _block_scalar("input_template", text)
        assert yaml.safe_load("\n".join(lines)) == {"input_template": text}


def test_the_ratings_csv_escapes_formulas_and_line_breaks_and_reads_back(tmp_path):
    """The ratings CSV `results ratings` writes: every text cell one line and never a formula, the number a number;
    `jury agreement` reads back the names and ids as written (a line break shown as its escape)."""
    from clinreg.scoring.ratings import read_ratings, ratings_text

    row = {"instance_id": '=HYPERLINK("http://x")', "rater": "@SUM(A1)", "rater_kind": "judge", "axis": "+acc",
           "score": -2.0, "model": "-m\nclinician:x", "judge_model": "\tj", "benchmark": "'quoted"}
    text = ratings_text([row], "csv")
    lines = text.rstrip("\n").split("\n")
    assert len(lines) == 2  # the header and one row, each one line
    header, cells = list(csv.reader(lines))
    for column, cell in zip(header, cells):
        if column == "score":
            assert cell == "-2"
        else:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (column, cell)
    path = tmp_path / "ratings.csv"
    path.write_text(text, encoding="utf-8")
    (back,) = list(read_ratings(path, scale=(-5, 5)))
    assert (back.instance_id, back.rater, back.axis, back.score, back.model, back.benchmark) == (
        row["instance_id"], row["rater"], row["axis"], -2.0, "-m\\nclinician:x", "'quoted")
    assert back.clinician is False
