"""Issue 39, items 5-6: results files are untrusted input to `clinreg results import`. A whole number too large
for a float (401 digits) and a wrong type where HELM writes a list end in a located finding and exit 1, never a
traceback."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from results.helpers import DATA, ROOT, invoke, lm_eval_results, write

BIG = "5" * 401


def _refused(path) -> str:
    result = invoke("results", "import", "--root", ROOT, path, "--strict")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "OverflowError" not in result.output
    return result.output


def _first_number_replaced(text: str, key: str) -> str:
    replaced, n = re.subn(rf'("{key}": )-?[0-9.]+', rf"\g<1>{BIG}", text, count=1)
    assert n == 1
    return replaced


def test_a_401_digit_value_in_an_lm_eval_results_file(tmp_path):
    text = json.dumps(lm_eval_results(value=0.5)).replace("0.5", BIG, 1)
    output = _refused(write(tmp_path / "results_2025.json", text))
    assert "finite" in output


def test_a_401_digit_value_in_an_inspect_log(tmp_path):
    text = (DATA / "inspect_mockllm_med_qa.json").read_text(encoding="utf-8")
    output = _refused(write(tmp_path / "log.json", _first_number_replaced(text, "value")))
    assert "CLR965" in output and "main metric" in output  # as a NaN there is: no usable value of the metric


def test_a_401_digit_value_in_a_helm_summarize_groups_file(tmp_path):
    text = (DATA / "helm" / "suite" / "groups" / "clinreg.json").read_text(encoding="utf-8")
    output = _refused(write(tmp_path / "groups" / "clinreg.json", _first_number_replaced(text, "value")))
    assert "is not a finite number" in output


def _helm_run(tmp_path):
    run = next((DATA / "helm" / "suite").glob("clinreg__mapping-medcalc_bench*-a"))
    shutil.copytree(run, tmp_path / run.name)
    return tmp_path / run.name


def test_a_401_digit_mean_in_helm_per_instance_stats(tmp_path):
    run = _helm_run(tmp_path)
    stats = run / "per_instance_stats.json"
    stats.write_text(_first_number_replaced(stats.read_text(encoding="utf-8"), "mean"), encoding="utf-8")
    assert "mean must be a finite number" in _refused(run)


@pytest.mark.parametrize("wrong", [5, True, "stats", {"name": "x"}])
def test_stats_of_the_wrong_type_in_helm_per_instance_stats(tmp_path, wrong):
    run = _helm_run(tmp_path)
    stats = run / "per_instance_stats.json"
    entries = json.loads(stats.read_text(encoding="utf-8"))
    entries[0]["stats"] = wrong
    stats.write_text(json.dumps(entries), encoding="utf-8")
    assert f"`stats` must be a list of stats, not {type(wrong).__name__}" in _refused(run)
