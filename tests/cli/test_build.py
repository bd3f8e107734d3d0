"""CliRunner tests of `clinreg build`, `check-data` and `lock`: outputs, exit codes and one-line errors."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from clirunner import run

from record_fixtures import hub_folder, record_dict, write_root
from clinreg.cli.build import build, check_data, lock

KEYS = {"id", "dataset", "mapping", "tasks", "split", "variant", "prompt", "input", "choices", "answer", "gold",
        "references", "context", "provenance", "source_index"}
MCQ = {
    "input_template": "{{ question }}",
    "choices": {"columns": ["opa", "opb"]},
    "label": {"encoding": "index", "column": "cop", "base": 0, "count": 2, "unlabeled": -1, "positive": "B"},
    "metadata_columns": ["qid"],
}


def _rows(n, cop=lambda i: i % 2):
    return [{"question": f"q{i}", "opa": "x", "opb": "y", "cop": cop(i), "qid": i} for i in range(n)]


@pytest.fixture
def setup(tmp_path):
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"test": _rows(30)})
    root = write_root(tmp_path, [record_dict(MCQ)])
    return root, data


def _lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_build_jsonl_to_stdout(setup):
    root, data = setup
    result = run(build, "fixture", "--root", root, "--data-dir", data, "--quiet")
    assert result.exit_code == 0, result.output
    rows = _lines(result.stdout)
    assert len(rows) == 30 and KEYS == set(rows[0])
    assert rows[3]["answer"] == "B" and rows[3]["choices"] == ["x", "y"] and rows[3]["context"] == {"qid": 3}
    assert rows[3]["gold"] == {"kind": "choice", "letter": "B", "index": 1, "value": "y", "lower": None, "upper": None}
    assert rows[0]["id"] == "fixture/fixture/test/0"


def test_build_formats_agree(setup, tmp_path):
    root, data = setup
    assert run(build, "fixture", "--root", root, "--data-dir", data, "-o", tmp_path / "i.jsonl").exit_code == 0
    assert run(build, "fixture", "--root", root, "--data-dir", data, "--format", "parquet", "-o",
               tmp_path / "pq").exit_code == 0
    assert run(build, "fixture", "--root", root, "--data-dir", data, "--format", "hf", "-o",
               tmp_path / "hf").exit_code == 0
    lines = _lines((tmp_path / "i.jsonl").read_text())
    import pyarrow.dataset as ds

    table = ds.dataset(tmp_path / "pq", format="parquet").to_table().to_pylist()
    assert [r["id"] for r in table] == [r["id"] for r in lines]
    assert json.loads(table[5]["context"]) == lines[5]["context"]
    assert table[5]["gold"] == lines[5]["gold"] and table[5]["provenance"] == lines[5]["provenance"]
    import datasets

    saved = datasets.load_from_disk(str(tmp_path / "hf"))
    assert list(saved) == ["test"]
    row = saved["test"][5]
    assert (json.loads(row["context"]) == {"qid": 5} and row["answer"] == lines[5]["answer"]
            and row["gold"] == lines[5]["gold"])


def test_build_json_array_equals_the_jsonl_lines(setup, tmp_path):
    root, data = setup
    lines = _lines(run(build, "fixture", "--root", root, "--data-dir", data, "--quiet").stdout)
    to_stdout = run(build, "fixture", "--root", root, "--data-dir", data, "--quiet", "--format", "json")
    assert to_stdout.exit_code == 0 and json.loads(to_stdout.stdout) == lines
    assert run(build, "fixture", "--root", root, "--data-dir", data, "--format", "json", "-o",
               tmp_path / "i.json").exit_code == 0
    assert json.loads((tmp_path / "i.json").read_text()) == lines
    empty = run(build, "fixture", "--root", root, "--data-dir", data, "--quiet", "--format", "json", "--split", "test",
                "--limit", "1")
    assert len(json.loads(empty.stdout)) == 1


def test_parquet_needs_an_output(setup):
    root, data = setup
    result = run(build, "fixture", "--root", root, "--data-dir", data, "--format", "parquet")
    assert result.exit_code == 2 and "-o PATH" in result.stderr


def test_limit_sample_is_seeded_and_same_when_streaming(setup):
    root, data = setup
    args = ("fixture", "--root", root, "--data-dir", data, "--limit", 7, "-q")
    plain = _lines(run(build, *args, "--seed", 3).stdout)
    streamed = _lines(run(build, *args, "--seed", 3, "--streaming").stdout)
    other = _lines(run(build, *args, "--seed", 4).stdout)
    assert len(plain) == 7 and plain == streamed
    assert [r["source_index"] for r in plain] == sorted(r["source_index"] for r in plain)
    assert [r["id"] for r in other] != [r["id"] for r in plain]


def test_streaming_build_equals_plain_build(setup):
    root, data = setup
    args = ("fixture", "--root", root, "--data-dir", data, "-q")
    assert run(build, *args).stdout == run(build, *args, "--streaming").stdout


def test_bad_labels_error_or_counted_skip(tmp_path):
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"test": _rows(5, cop=lambda i: 7 if i == 3 else 0)})
    root = write_root(tmp_path, [record_dict(MCQ)])
    failed = run(build, "fixture", "--root", root, "--data-dir", data)
    assert failed.exit_code == 1
    assert failed.stderr.count("\n") == 1 and "split 'test', row 3" in failed.stderr
    skipped = run(build, "fixture", "--root", root, "--data-dir", data, "--on-bad-label", "skip", "--quiet")
    assert skipped.exit_code == 0 and len(_lines(skipped.stdout)) == 4
    assert "skipped 1 row(s)" in skipped.stderr and "rows 3" in skipped.stderr


def test_unknown_dataset_mapping_and_split_are_usage_errors(setup):
    root, data = setup
    for args in (("nope",), ("fixture", "--mapping", "nope"), ("fixture", "--split", "nope")):
        result = run(build, *args, "--root", root, "--data-dir", data)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_offline_without_data_dir_fails_fast_in_one_line(setup, monkeypatch):
    root, _ = setup
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    asked = []
    monkeypatch.setattr(socket.socket, "connect", lambda *a: asked.append(a))
    result = run(build, "fixture", "--root", root)
    assert asked == []  # fast because it asks nobody
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "fixture" in result.stderr and "--data-dir" in result.stderr


def test_offline_failure_as_a_process(setup):
    root, _ = setup
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    code = "import sys; from clinreg.cli.build import build; build(sys.argv[1:])"
    proc = subprocess.run([sys.executable, "-c", code, "fixture", "--root", str(root)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_check_data_clean_and_corrupted(tmp_path):
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"test": _rows(10)})
    root = write_root(tmp_path, [record_dict(MCQ)])
    clean = run(check_data, "fixture", "--root", root, "--data-dir", data)
    assert clean.exit_code == 0, clean.output
    hub_folder(data, "owner/fixture", {"test": _rows(10, cop=lambda i: 5 if i == 4 else 1)})
    broken = run(check_data, "fixture", "--root", root, "--data-dir", data, "--format", "json")
    assert broken.exit_code == 1
    (diag,) = json.loads(broken.stdout)["data"]["diagnostics"]
    text = (root / "registry/datasets/fixture.yaml").read_text().splitlines()
    assert diag["code"] == "CLR904" and diag["file"] == "registry/datasets/fixture.yaml"
    assert "column: cop" in text[diag["line"] - 1] and "row 4" in diag["message"]


def test_check_data_compares_the_scheme_letters_with_the_options_of_the_rows(tmp_path):
    # Issue 40, item 7: `letters: [A, B, C, D]` against a 10-option struct passed every check.
    data = tmp_path / "data"
    options = {letter: f"option {letter}" for letter in "ABCDEFGHIJ"}
    hub_folder(data, "owner/fixture",
               {"test": [{"question": f"q{i}", "options": options, "label": "B"} for i in range(5)]})
    mapping = {"input_template": "{{ question }}", "choices": {"struct": "options"},
               "label": {"encoding": "letter", "column": "label", "letters": ["A", "B", "C", "D"]}}
    root = write_root(tmp_path, [record_dict(mapping)])
    result = run(check_data, "fixture", "--root", root, "--data-dir", data, "--format", "json")
    assert result.exit_code == 1, result.output
    (diag,) = json.loads(result.stdout)["data"]["diagnostics"]
    assert diag["code"] == "CLR909", diag
    assert "4 letters (A-D)" in diag["message"] and "up to 10 options" in diag["message"]
    mapping["label"]["letters"] = list("ABCDEFGHIJ")
    root = write_root(tmp_path, [record_dict(mapping)])
    assert run(check_data, "fixture", "--root", root, "--data-dir", data).exit_code == 0


def test_check_data_reports_missing_split_and_columns(tmp_path):
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"train": _rows(3)})
    mapping = {**MCQ, "input_template": "{{ question }} {{ nope }} {{ row['Missing Col'] }}",
               "splits": ["train", "dev"]}
    root = write_root(tmp_path, [record_dict(mapping, splits=["train", "dev"])])
    result = run(check_data, "fixture", "--root", root, "--data-dir", data, "--format", "github")
    assert result.exit_code == 1
    assert "CLR902" in result.stdout and "'dev'" in result.stdout
    assert result.stdout.count("title=CLR903") == 2 and "nope" in result.stdout and "Missing Col" in result.stdout


def test_check_data_without_mirror_folder_is_unreadable(setup, tmp_path):
    root, _ = setup
    result = run(check_data, "fixture", "--root", root, "--data-dir", tmp_path / "elsewhere")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1


def test_lock_and_check_drift(tmp_path):
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"test": _rows(6)})
    other = record_dict(MCQ, id="other", repo="owner/other")
    root = write_root(tmp_path, [record_dict(MCQ), other])
    lock_file = tmp_path / "clinreg.lock.json"
    written = run(lock, "--root", root, "--data-dir", data, "-o", lock_file)
    assert written.exit_code == 0, written.output
    content = json.loads(lock_file.read_text())
    entry = content["mappings"]["fixture/fixture"]
    assert entry["instances"] == 6 and entry["source"]["kind"] == "mirror" and len(entry["instances_sha256"]) == 64
    assert "other/other" in content["skipped"] and str(data) not in content["skipped"]["other/other"]
    assert run(lock, "--check", "--root", root, "--data-dir", data, "-o", lock_file).exit_code == 0
    hub_folder(data, "owner/fixture", {"test": _rows(6, cop=lambda i: 1)})
    drifted = run(lock, "--check", "--root", root, "--data-dir", data, "-o", lock_file)
    assert (drifted.exit_code == 1 and "drift: fixture/fixture" in drifted.stdout
            and "instances_sha256" in drifted.stdout)
    unchecked = run(lock, "--check", "--root", root, "-o", lock_file, "--format", "json")
    # nothing could be built without the mirror: the check names what it skipped, and does not pass
    assert unchecked.exit_code == 1 and "fixture/fixture" in json.loads(unchecked.stdout)["data"]["unchecked"]


def test_lock_hash_is_the_sha256_of_the_jsonl_build(setup, tmp_path):
    import hashlib

    root, data = setup
    run(build, "fixture", "--root", root, "--data-dir", data, "-q", "-o", tmp_path / "i.jsonl")
    run(lock, "--root", root, "--data-dir", data, "-o", tmp_path / "lock.json")
    entry = json.loads((tmp_path / "lock.json").read_text())["mappings"]["fixture/fixture"]
    assert entry["instances_sha256"] == hashlib.sha256((tmp_path / "i.jsonl").read_bytes()).hexdigest()


def test_lock_check_without_lock_file(setup, tmp_path):
    root, data = setup
    result = run(lock, "--check", "--root", root, "--data-dir", data, "-o", tmp_path / "none.json")
    assert result.exit_code == 1 and "no lock file" in result.stderr


def test_build_refuses_to_overwrite_without_force(setup, tmp_path):
    root, data = setup
    target = tmp_path / "out.jsonl"
    target.write_text("keep me\n")
    refused = run(build, "fixture", "--root", root, "--data-dir", data, "-o", target)
    assert refused.exit_code == 2 and "use --force" in refused.stderr
    assert target.read_text() == "keep me\n"
    forced = run(build, "fixture", "--root", root, "--data-dir", data, "-o", target, "--force")
    assert forced.exit_code == 0 and len(_lines(target.read_text())) == 30
    folder_over_file = run(build, "fixture", "--root", root, "--data-dir", data, "--format", "hf", "-o", target,
                           "--force")
    assert folder_over_file.exit_code == 2 and "not a folder" in folder_over_file.stderr and target.is_file()


def test_lock_with_a_missing_data_dir_keeps_the_lock(setup, tmp_path):
    root, data = setup
    path = tmp_path / "l.json"
    assert run(lock, "--root", root, "--data-dir", data, "-o", path).exit_code == 0
    before = path.read_bytes()
    result = run(lock, "--root", root, "--data-dir", tmp_path / "typo", "-o", path)
    assert result.exit_code == 2 and "is not a folder" in result.stderr
    assert path.read_bytes() == before


def test_lock_check_that_checks_nothing_fails(setup, tmp_path):
    root, data = setup
    path = tmp_path / "l.json"
    assert run(lock, "--root", root, "--data-dir", data, "-o", path).exit_code == 0
    result = run(lock, "--check", "--root", root, "-o", path, "--data-dir", tmp_path)
    assert result.exit_code == 1 and "nothing was checked" in result.stderr


def test_build_refuses_a_record_that_validate_refuses(tmp_path):
    # CLR713: a join that names a table the read step does not have. Without the rule run, the build would go on.
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"test": _rows(4)})
    broken = record_dict(MCQ)
    broken["source"]["read"] = {"splits": {"test": {"files": "data/test-*.parquet",
                                                    "steps": [{"join": {"table": "answers", "keys": ["qid"],
                                                                        "cardinality": "one_to_one"}}]}}}
    root = write_root(tmp_path, [broken])
    result = run(build, "fixture", "--root", root, "--data-dir", data)
    assert result.exit_code == 1, result.output
    assert "CLR713" in result.stderr and "registry/datasets/fixture.yaml:" in result.stderr
    assert "that `clinreg validate` refuses" in result.stderr and result.stdout == ""


QUIET_PROBE = """
import sys
from clinreg.cli.common_build import quiet_datasets
quiet_datasets()
assert "datasets" not in sys.modules, "quieting datasets imported it"
import datasets, logging
from datasets.utils.tqdm import are_progress_bars_disabled
from huggingface_hub.utils import are_progress_bars_disabled as hub_disabled
print(datasets.logging.get_verbosity() == logging.ERROR, are_progress_bars_disabled(), hub_disabled())
"""


def test_quieting_datasets_does_not_import_it_yet_quiets_it_once_imported():
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if k not in ("DATASETS_VERBOSITY", "HF_DATASETS_DISABLE_PROGRESS_BARS", "HF_HUB_DISABLE_PROGRESS_BARS")}
    done = subprocess.run([sys.executable, "-c", QUIET_PROBE], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"]
