"""No export drops a record in silence (issue 54 item 2, issue 50 class 5): what was asked for is written, or the
command names each record it did not write, with why, and exits 1; nothing is half-written."""

from __future__ import annotations

import json

import pytest
from clirunner import invoke

from record_fixtures import hub_folder
from trees import DATASET2, replace_in, write_tree
from clinreg.cli.export import export

HARNESSES = ["lm-eval", "inspect", "helm"]


@pytest.fixture
def data(tmp_path):
    folder = tmp_path / "data"
    hub_folder(folder, "owner/qa_set", {"test": [{"question": f"q{i}", "answer": "yes"} for i in range(3)]})
    (folder / "plans").mkdir(parents=True)
    (folder / "plans" / "plans.csv").write_text("note,plan\nn0,rest\n", encoding="utf-8")
    return folder


@pytest.fixture
def broken_tree(tmp_path):
    """The good tree with `plans.yaml` unreadable as YAML: that record does not load."""
    return write_tree(tmp_path / "broken", {"registry/datasets/plans.yaml": replace_in(DATASET2, "name: Plans",
                                                                                       "name: [unclosed")})


def run(*args):
    return invoke(export, [str(a) for a in args])


@pytest.mark.parametrize("harness", [*HARNESSES, "medhelm"])
def test_a_record_that_fails_to_load_stops_the_export_with_its_error(harness, broken_tree, data, tmp_path):
    out = tmp_path / "out"
    for named in ((), ("qa_set",)) if harness != "medhelm" else (("qa_set",),):
        result = run(harness, *named, "--root", broken_tree, "--data-dir", data, "-o", out)
        assert result.exit_code == 1, result.output
        assert "registry/datasets/plans.yaml" in result.stderr and "run `clinreg validate`" in result.stderr
        assert not out.exists() and not list(tmp_path.glob(".out.*"))  # nothing written, not even half


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_record_without_its_data_is_named_and_the_exit_is_1(harness, tree, data, tmp_path):
    (data / "plans").rename(tmp_path / "elsewhere")  # no folder for the record: its data is not at hand
    out = tmp_path / "out"
    result = run(harness, "--root", tree, "--data-dir", data, "-o", out)
    assert result.exit_code == 1, result.output
    assert "not exported plans:" in result.stderr and "exported 1 mapping(s)" in result.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert [m["dataset"] for m in manifest["mappings"]] == ["qa_set"] and list(manifest["skipped"]) == ["plans"]
    assert "- plans: " in (out / "README.md").read_text()
    assert run(harness, "qa_set", "--root", tree, "--data-dir", data, "-o", tmp_path / "one").exit_code == 0


def test_croissant_names_a_record_that_fails_to_load(broken_tree, tmp_path):
    result = run("croissant", "--root", broken_tree, "-o", tmp_path / "c", "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)["data"]
    assert [f["dataset"] for f in report["files"]] == ["qa_set"] and list(report["not_written"]) == ["plans"]
    assert "registry/datasets/plans.yaml" in report["not_written"]["plans"]


@pytest.mark.parametrize("harness, code", [("lm-eval", "CLR983"), ("croissant", "CLR983")])
def test_an_output_in_the_way_is_named_with_its_code(harness, code, tree, data, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "qa_set.croissant.json").write_text("{}", encoding="utf-8")
    args = ["--data-dir", data] if harness != "croissant" else []
    result = run(harness, "qa_set", "--root", tree, *args, "-o", out, "--format", "json")
    assert result.exit_code == 2
    assert json.loads(result.stderr)["data"]["code"] == code
