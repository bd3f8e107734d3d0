"""Every reader on good and malformed input: located, rule-coded findings and exit codes, never a traceback."""

from __future__ import annotations

import json
import zipfile
import zlib
from pathlib import Path

import pytest


from results.helpers import DATA, ROOT, invoke, lm_eval_results, needs_zstandard, write


def imported(*sources, expect: int = 0) -> tuple[dict | None, str]:
    """Import SOURCES; a test that expects a refusal imports with --strict, where any finding stops the import."""
    result = invoke("results", "import", "--root", ROOT, *sources, *(["--strict"] if expect else []))
    assert result.exit_code == expect, result.output
    return (json.loads(result.stdout) if expect == 0 else None), result.output


def scores_by(doc: dict) -> dict[tuple[str, str], dict]:
    return {(s["model"], s["mapping"]): s for s in doc["scores"]}


# --------------------------------------------------------------------------------------------- HELM leaderboard CSV


def test_csv_columns_map_through_helm_names_ignoring_case_and_truncation(tmp_path):
    board = write(tmp_path / "b.csv", "\ufeffModel,Mean win rate,MIMIC-BHC - Jury Score,mimic-iv billing code - MIM...,"
                                      "N2C2-CT - EM,CLEAR-AD - Exact match,Medec - MedecFlagAcc\n"
                                      "M1,0.5,3.25,0.4,0.9,0.7,0.6\n")
    doc, _ = imported(board)
    got = scores_by(doc)
    assert set(got) == {("M1", m) for m in ("mimic_bhc", "mimiciv_billing_code", "n2c2_ct_matching", "clear", "medec")}
    bhc = got[("M1", "mimic_bhc")]
    assert (bhc["value"], bhc["range"], bhc["metric"], bhc["n_instances"], bhc["n_instances_from"]) == \
        (3.25, [1.0, 5.0], "mimic_bhc_accuracy", 1000, "registry")
    assert (bhc["source"]["line"], bhc["source"]["column"]) == (2, 8)
    assert doc["reported_win_rates"][0]["value"] == 0.5


def test_csv_unmapped_columns_are_each_located_errors(tmp_path):
    board = write(tmp_path / "b.csv", "Model,MedQA - EM,Nonsense - EM,Other\nM1,0.5,0.5,0.5\n")
    _, out = imported(board, expect=1)
    assert f"{board}:1:18: CLR963" in out
    assert f"{board}:1:32: CLR963" in out
    assert "Traceback" not in out


def test_csv_metric_other_than_the_main_one_is_refused(tmp_path):
    board = write(tmp_path / "b.csv", "Model,MedAlign - BERTScore (F1)\nM1,0.8\n")
    _, out = imported(board, expect=1)
    assert f"{board}:1:7: CLR965" in out and "medalign_accuracy" in out


def test_csv_ambiguous_truncated_prefix_is_refused(tmp_path):
    board = write(tmp_path / "b.csv", "Model,MTSampl...\nM1,3\n")
    _, out = imported(board, expect=1)
    assert "CLR964" in out and "mtsamples_procedures" in out and "mtsamples_replicate" in out


@pytest.mark.parametrize(("cell", "code"), [("nan", "CLR966"), ("inf", "CLR966"), ("1e999", "CLR966"),
                                            ("0x10", "CLR966"), ("7", "CLR966"), ("0.5%", "CLR966")])
def test_csv_bad_values_are_located(tmp_path, cell, code):
    board = write(tmp_path / "b.csv", f"Model,MedQA - EM\nM1,{cell}\n")
    _, out = imported(board, expect=1)
    assert f"{board}:2:" in out and code in out


def test_csv_missing_values_are_skipped_not_zero(tmp_path):
    board = write(tmp_path / "b.csv", "Model,MedQA - EM,PubMedQA - EM\nM1,-,0.5\nM2,,0.25\n")
    doc, _ = imported(board)
    assert set(scores_by(doc)) == {("M1", "pubmed_qa"), ("M2", "pubmed_qa")}


@pytest.mark.parametrize("text", [
    "", "Name,MedQA - EM\nM1,0.5\n", 'Model,MedQA - EM\n"M1,0.5\n', "Model,MedQA - EM\nM1,0.5,0.6\n",
    "Model,MedQA - EM\nM1,0.5\nM1,0.6\n", "Model,MedQA - EM,MedQA - EM\nM1,0.5,0.5\n", "Model,\nM1,0.5\n",
])
def test_csv_shape_problems_are_findings(tmp_path, text):
    board = write(tmp_path / "b.csv", text)
    result = invoke("results", "import", "--root", ROOT, board, "--strict")
    assert result.exit_code in (1, 2), result.output
    assert f"{board}:" in result.output and "CLR96" in result.output
    lenient = invoke("results", "import", "--root", ROOT, board)  # what maps is kept; the rest is located
    assert f"{board}:" in lenient.output and "CLR96" in lenient.output


def test_unreadable_inputs_exit_2(tmp_path):
    assert invoke("results", "import", "--root", ROOT, tmp_path / "nope.csv").exit_code == 2
    binary = write(tmp_path / "b.csv", b"Model,MedQA - EM\n\xff\xfe,0.5\n")
    result = invoke("results", "import", "--root", ROOT, binary)
    assert result.exit_code == 2 and f"{binary}:2:1: CLR961" in result.output
    other = write(tmp_path / "b.xlsx", b"PK")
    assert invoke("results", "import", "--root", ROOT, other).exit_code == 2


# --------------------------------------------------------------------------------------------- HELM run folders


def stat(name, split, count, total, squares, **extra):
    return {"name": {"name": name, "split": split, **extra}, "count": count, "sum": total, "sum_squared": squares,
            "min": 0, "max": 1, "mean": total / count}


def test_helm_runs_of_one_model_on_one_benchmark_merge_by_instances(tmp_path):
    """CLEAR runs once per condition and EHRSHOT once per subject: HELM's runs of one benchmark are merged, their
    instances pooled. Two copies of a recorded run stand for two such runs (data/helm, written by HELM)."""
    import shutil

    recorded = Path(__file__).parent / "data" / "helm" / "suite"
    source = next(recorded.glob("*pubmed_qa*constant-a"))
    suite = tmp_path / "runs" / "s"
    for part in ("one", "two"):
        shutil.copytree(source, suite / f"{source.name}-{part}")
    alone, _ = imported(source)
    merged, _ = imported(tmp_path)
    one, both = alone["scores"][0], merged["scores"][0]
    assert both["n_instances"] == 2 * one["n_instances"] and both["value"] == pytest.approx(one["value"])
    assert len(both["source"]["runs"]) == 2


@pytest.mark.parametrize(("spec", "stats", "code"), [
    ({"adapter_spec": {}, "groups": ["med_qa"]}, [], "CLR962"),
    ({"adapter_spec": {"model": "m"}, "groups": ["not_a_benchmark"]}, [], "CLR963"),
    ({"adapter_spec": {"model": "m"}, "groups": ["med_qa"]}, [stat("bleu", "test", 1, 1, 1)], "CLR965"),
    ({"adapter_spec": {"model": "m"}, "groups": ["med_qa"]}, {"not": "a list"}, "CLR962"),
    ({"adapter_spec": {"model": "m"}, "groups": ["med_qa"]},
     [{"name": {"name": "exact_match", "split": "test"}, "count": 0, "sum": 0, "sum_squared": 0}], "CLR966"),
])
def test_helm_run_problems_are_findings(tmp_path, spec, stats, code):
    write(tmp_path / "run" / "run_spec.json", json.dumps(spec))
    write(tmp_path / "run" / "stats.json", json.dumps(stats))
    _, out = imported(tmp_path / "run", expect=1)
    assert code in out and "run_spec.json" in out or "stats.json" in out


def test_helm_stats_with_nan_are_refused(tmp_path):
    write(tmp_path / "run" / "run_spec.json", json.dumps({"adapter_spec": {"model": "m"}, "groups": ["med_qa"]}))
    write(tmp_path / "run" / "stats.json", '[{"name": {"name": "exact_match", "split": "test"}, "count": 1, '
                                           '"sum": NaN, "sum_squared": 0}]')
    _, out = imported(tmp_path / "run", expect=2)
    assert "stats.json:1:" in out and "CLR961" in out and "NaN" in out


def test_an_empty_folder_is_a_finding(tmp_path):
    (tmp_path / "empty").mkdir()
    _, out = imported(tmp_path / "empty", expect=1)
    assert "CLR962" in out


# --------------------------------------------------------------------------------------------- lm-eval


def test_lm_eval_results_map_task_names_to_mappings(tmp_path):
    doc, _ = imported(write(tmp_path / "results_2026.json", json.dumps(lm_eval_results())))
    s = doc["scores"][0]
    assert (s["model"], s["record"], s["mapping"], s["value"], s["stderr"], s["n_instances"]) == \
        ("EleutherAI/pythia-14m", "med_qa", "med_qa", 0.7, 0.05, 100)
    assert s["source"]["where"] == "results.clinreg_med_qa.exact_match,none"


@pytest.mark.parametrize("task", ["med_qa", "clinreg_med_qa", "clinreg_med_qa_med_qa", "CLINREG_med_qa"])
def test_task_name_lookup_is_tolerant(tmp_path, task):
    doc, _ = imported(write(tmp_path / "r.json", json.dumps(lm_eval_results(task=task))))
    assert doc["scores"][0]["mapping"] == "med_qa"


def test_lm_eval_acc_is_read_as_exact_match_and_group_rows_are_skipped(tmp_path):
    data = lm_eval_results()
    data["results"]["clinreg_med_qa"] = {"acc,none": 0.4, "acc_stderr,none": "N/A"}
    data["results"]["clinreg"] = {"acc,none": 0.4}
    data["groups"] = {"clinreg": {"acc,none": 0.4}}
    doc, _ = imported(write(tmp_path / "r.json", json.dumps(data)))
    assert [(s["mapping"], s["value"], s["stderr"]) for s in doc["scores"]] == [("med_qa", 0.4, None)]


@pytest.mark.parametrize(("mutate", "code"), [
    (lambda d: d["results"].update({"clinreg_unknown_thing": {"exact_match,none": 0.1}}), "CLR963"),
    (lambda d: d["results"].update({"clinreg_med_qa": {"bleu,none": 0.1}}), "CLR965"),
    (lambda d: d["results"].update({"clinreg_med_qa": {"exact_match,none": "high"}}), "CLR966"),
    (lambda d: d["results"].update({"clinreg_med_qa": {"exact_match,none": 1.5}}), "CLR966"),
    (lambda d: d["results"].update({"clinreg_med_qa": [1]}), "CLR962"),
    (lambda d: (d.pop("config"), d.pop("model_name", None)), "CLR962"),
])
def test_lm_eval_problems_are_located_findings(tmp_path, mutate, code):
    data = lm_eval_results()
    mutate(data)
    path = write(tmp_path / "r.json", json.dumps(data, indent=2))
    _, out = imported(path, expect=1)
    assert code in out and f"{path}:" in out


@pytest.mark.parametrize("text", ['{"results": {"a": Infinity}}', '{"results": {}, "results": {}}',
                                  "[" * 200 + "]" * 200, '{"results": {"clinreg_med_qa": {"exact_match,none": 0.5}'])
def test_hostile_json_is_refused(tmp_path, text):
    path = write(tmp_path / "r.json", text)
    _, out = imported(path, expect=2)
    assert "CLR961" in out and "Traceback" not in out


def test_oversized_files_are_refused_before_reading(tmp_path, monkeypatch):
    import clinreg.results.strictinput as strictinput

    monkeypatch.setattr(strictinput, "MAX_TEXT_BYTES", 100)
    monkeypatch.setattr(strictinput.read_text, "__defaults__", (100,))
    path = write(tmp_path / "r.json", json.dumps(lm_eval_results()))
    _, out = imported(path, expect=2)
    assert "larger than" in out


# --------------------------------------------------------------------------------------------- Inspect


def test_real_inspect_eval_log_with_zstandard_members():
    needs_zstandard()
    doc, _ = imported(DATA / "inspect_mockllm_med_qa.eval")
    s = doc["scores"][0]
    assert (s["model"], s["mapping"], s["value"], s["n_instances"]) == ("mockllm/model", "med_qa", 0.6, 5)
    assert s["per_instance"] == {"n": 5, "mean": 0.6, "sd": pytest.approx(0.4899, abs=1e-4), "binary": True}


def test_real_inspect_json_log():
    doc, _ = imported(DATA / "inspect_mockllm_med_qa.json")
    s = doc["scores"][0]
    assert (s["value"], s["stderr"], s["per_instance"]["n"]) == (0.6, pytest.approx(0.2449, abs=1e-4), 5)
    assert s["source"]["line"] > 1, "the location points into the log"


def inspect_log(status="success", task="med_qa", metrics=None, samples=None):
    return {"version": 2, "status": status, "eval": {"task": task, "model": "mockllm/model"},
            "results": {"total_samples": 2, "completed_samples": 2, "scores": [
                {"name": "match", "scorer": "match", "metrics": metrics or {
                    "accuracy": {"name": "accuracy", "value": 0.5}, "stderr": {"name": "stderr", "value": 0.5}}}]},
            **({"samples": samples} if samples is not None else {})}


def test_inspect_deflate_eval_built_by_hand(tmp_path):
    path = tmp_path / "log.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(inspect_log(task="clinreg/med_qa")))
        for i, v in enumerate(["C", "I"]):
            z.writestr(f"samples/{i}_epoch_1.json",
                       json.dumps({"id": i, "epoch": 1, "scores": {"match": {"value": v}}}))
    doc, _ = imported(path)
    assert doc["scores"][0]["per_instance"] == {"n": 2, "mean": 0.5, "sd": 0.5, "binary": True}


def test_a_nan_is_read_as_null_in_an_inspect_log_only(tmp_path):
    log = json.dumps(inspect_log(metrics={"accuracy": {"name": "accuracy", "value": 0.5},
                                          "stderr": {"name": "stderr", "value": "NAN_HERE"}}))
    doc, _ = imported(write(tmp_path / "log.json", log.replace('"NAN_HERE"', "NaN")))
    assert (doc["scores"][0]["value"], doc["scores"][0]["stderr"]) == (0.5, None)
    other = write(tmp_path / "r.json", '{"results": {"clinreg_med_qa": {"exact_match,none": NaN}}}')
    _, out = imported(other, expect=2)
    assert "CLR961" in out and "NaN is not a number JSON allows" in out


def test_a_refused_json_constant_says_so_as_data():
    from clinreg.results.strictinput import JSON_CONSTANT, Unreadable, parse_json

    for text, kind in [("[NaN]", JSON_CONSTANT), ("[-Infinity]", JSON_CONSTANT), ("[1,]", None),
                       ('{"a":1,"a":2}', None)]:
        with pytest.raises(Unreadable) as caught:
            parse_json(text)
        assert caught.value.kind == kind, text


@pytest.mark.parametrize(("log", "code"), [
    (inspect_log(status="error"), "CLR962"),
    (inspect_log(task="clinreg_nothing"), "CLR963"),
    (inspect_log(metrics={"bleu": {"name": "bleu", "value": 0.5}}), "CLR965"),
    ({"version": 2, "eval": {"model": "m"}}, "CLR962"),
])
def test_inspect_problems_are_findings(tmp_path, log, code):
    path = write(tmp_path / "log.json", json.dumps(log))
    _, out = imported(path, expect=1)
    assert code in out


def test_a_scorer_that_rated_no_sample_says_no_judge_rated_any(tmp_path):
    # Issue 40, item 12: the scorer did report the main metric, with no value, as every sample was unrated.
    log = json.dumps(inspect_log(metrics={"accuracy": {"name": "accuracy", "value": "NAN_HERE"}}))
    _, out = imported(write(tmp_path / "log.json", log.replace('"NAN_HERE"', "NaN")), expect=1)
    assert "CLR965" in out and "no judge rated any sample" in out and "no scorer reports" not in out


@pytest.mark.parametrize("build", [
    lambda z: z.writestr("other.json", "{}"),
    lambda z: z.writestr("header.json", "{not json"),
])
def test_bad_eval_archives_are_unreadable(tmp_path, build):
    path = tmp_path / "log.eval"
    with zipfile.ZipFile(path, "w") as z:
        build(z)
    _, out = imported(path, expect=2)
    assert "CLR961" in out


def test_an_eval_that_is_not_a_zip_or_expands_too_far_is_refused(tmp_path, monkeypatch):
    _, out = imported(write(tmp_path / "junk.eval", b"not a zip at all"), expect=2)
    assert "not a readable zip" in out
    import clinreg.results.inspect_logs as inspect_logs

    monkeypatch.setattr(inspect_logs, "MAX_ZIP_MEMBER", 1000)
    path = tmp_path / "big.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(inspect_log()) + " " * 100_000)
    _, out = imported(path, expect=2)
    assert "too large" in out


# --------------------------------------------------------------------------------------------- clinreg results files


def test_results_file_round_trips_and_is_checked_again(tmp_path):
    out = tmp_path / "results.json"
    board = write(tmp_path / "b.csv", "Model,MedQA - EM,MIMIC-BHC - Jury Score\nM1,0.5,4\nM2,0.25,2\n")
    result = invoke("results", "import", "--root", ROOT, board, "-o", out, "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["data"]["scores"] == 4
    again, _ = imported(out)
    assert [(s["model"], s["mapping"], s["value"]) for s in again["scores"]] == \
        [(s["model"], s["mapping"], s["value"]) for s in json.loads(out.read_text())["scores"]]
    edited = json.loads(out.read_text())
    edited["scores"][1]["value"] = 9.0
    edited["scores"][2]["mapping"] = "nothing"
    bad = write(tmp_path / "edited.json", json.dumps(edited, indent=2))
    _, text = imported(bad, expect=1)
    assert "CLR966" in text and "CLR963" in text


def test_strict_writes_nothing_when_a_source_has_errors(tmp_path):
    out = tmp_path / "results.json"
    board = write(tmp_path / "b.csv", "Model,MedQA - EM,Unknown - EM\nM1,0.5,0.5\n")
    assert invoke("results", "import", "--root", ROOT, board, "-o", out, "--strict").exit_code == 1
    assert not out.exists()


def test_without_strict_every_score_that_maps_is_written_and_each_refusal_is_a_located_warning(tmp_path):
    out = tmp_path / "results.json"
    board = write(tmp_path / "b.csv", "Model,MedQA - EM,Unknown - EM\nM1,0.5,0.5\n")
    broken = write(tmp_path / "c.csv", "Nope\n")
    result = invoke("results", "import", "--root", ROOT, board, broken, "-o", out, "--format", "json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["data"]
    assert summary["scores"] == 1 and summary["benchmarks"] == ["med_qa/med_qa"]
    assert {(d["code"], d["file"], d["line"], d["column"]) for d in summary["refused"]} == {
        ("CLR963", str(board), 1, 18), ("CLR962", str(broken), 1, 1)}
    assert f"{board}:1:18: CLR963 [warning]" in result.stderr and "--strict" in result.stderr
    assert [s["mapping"] for s in json.loads(out.read_text())["scores"]] == ["med_qa"]
    text = invoke("results", "import", "--root", ROOT, board, broken, "-o", tmp_path / "again.json")
    assert text.exit_code == 0 and "1 score(s) for 1 model(s) on 1 benchmark(s); 2 refused" in text.stdout


def test_nothing_to_import_at_all_still_fails(tmp_path):
    board = write(tmp_path / "b.csv", "Model,Unknown - EM\nM1,0.5\n")
    result = invoke("results", "import", "--root", ROOT, board)
    assert result.exit_code == 1 and "CLR963 [error]" in result.output


def test_json_format_reports_findings_as_data(tmp_path):
    board = write(tmp_path / "b.csv", "Model,Unknown - EM\nM1,0.5\n")
    result = invoke("results", "import", "--root", ROOT, board, "--format", "json")
    assert result.exit_code == 1
    payload = json.loads(result.output)["data"]
    assert payload["diagnostics"][0]["code"] == "CLR963"
    assert (payload["diagnostics"][0]["line"], payload["diagnostics"][0]["column"]) == (1, 7)


def test_the_same_score_from_two_sources_is_a_duplicate(tmp_path):
    board = write(tmp_path / "b.csv", "Model,MedQA - EM\nM1,0.5\n")
    _, out = imported(board, board, expect=1)
    assert "CLR967" in out


def test_codes_are_explained():
    result = invoke("explain", "CLR963")
    assert result.exit_code == 0 and "helm_names" in result.output


def test_a_corrupt_zstandard_member_is_unreadable_not_a_crash(tmp_path):
    data = bytearray((DATA / "inspect_mockllm_med_qa.eval").read_bytes())
    with zipfile.ZipFile(DATA / "inspect_mockllm_med_qa.eval") as z:
        info = z.getinfo("header.json")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 20
    for i in range(start, start + 40):
        data[i] ^= 0x5A
    path = write(tmp_path / "corrupt.eval", bytes(data))
    _, out = imported(path, expect=2)
    assert "CLR961" in out and "header.json" in out


def test_export_stand_ins_number_range_accepted_text_overlap_kept_beside(tmp_path):
    """clinreg's exports score numbers by range (MedCalc-Bench's accuracy); lm-eval scores a jury benchmark only by
    token F1, which is carried beside the scores as a stand-in and never as the jury score."""
    number = {"results": {"clinreg_medcalc_bench": {"range_accuracy,none": 0.3, "score,none": 0.3}}, "model_name": "m"}
    doc, _ = imported(write(tmp_path / "n.json", json.dumps(number)))
    assert [(s["mapping"], s["metric"], s["value"]) for s in doc["scores"]] == \
        [("medcalc_bench", "medcalc_bench_accuracy", 0.3)]
    log = inspect_log(task="clinreg_medcalc_bench")
    log["results"]["scores"][0]["name"] = log["results"]["scores"][0]["scorer"] = "numeric_range"
    doc, _ = imported(write(tmp_path / "n_log.json", json.dumps(log)))
    assert doc["scores"][0]["mapping"] == "medcalc_bench"
    text = {"results": {"clinreg_mimic_bhc": {"reference_f1,none": 0.4, "score,none": 0.4}}, "model_name": "m"}
    doc, _ = imported(write(tmp_path / "t.json", json.dumps(text)))
    assert doc["scores"] == []
    assert [(s["mapping"], s["metric"], s["value"], s["stands_in_for"]) for s in doc["stand_ins"]] == \
        [("mimic_bhc", "reference_f1", 0.4, "mimic_bhc_accuracy")]
    # Without the stand-in, a jury benchmark with no jury metric is still refused, at its line.
    empty = {"results": {"clinreg_mimic_bhc": {"score,none": 0.4}}, "model_name": "m"}
    _, out = imported(write(tmp_path / "e.json", json.dumps(empty)), expect=1)
    assert "CLR965" in out and "jury" in out


def test_a_folder_that_cannot_be_listed_is_unreadable(tmp_path):
    import os

    locked = tmp_path / "locked"
    (locked / "run").mkdir(parents=True)
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as a user that can read any folder")
        _, out = imported(locked, expect=2)
        assert "CLR961" in out
    finally:
        locked.chmod(0o755)


def test_a_benchmark_without_a_metric_range_is_located_in_its_record(tmp_path):
    """The small test tree's qa_set declares `metric: {name: exact_match}` with no range."""
    from trees import write_tree

    root = write_tree(tmp_path / "reg")
    path = write(tmp_path / "r.json", json.dumps(lm_eval_results(task="clinreg_qa_set")))
    result = invoke("results", "import", "--root", root, path)
    assert result.exit_code == 1
    line = next(i for i, text in enumerate((root / "registry/datasets/qa_set.yaml").read_text().splitlines(), 1)
                if text.strip().startswith("metric:"))
    assert f"registry/datasets/qa_set.yaml:{line}:" in result.output and "CLR968" in result.output


def test_every_results_code_is_raised_by_some_test():
    """Each CLR96x code appears in this file's expectations, so none is registered without a case."""
    from pathlib import Path

    from clinreg.core.codes.results import ENTRIES as RESULTS_RULES

    text = Path(__file__).read_text(encoding="utf-8")
    assert [code for code in RESULTS_RULES if f'"{code}"' not in text] == []


def _deflated_then_corrupted(path, member: str, text: str) -> None:
    """A zip whose `member` is deflated and whose compressed bytes are then scrambled, so that reading it raises
    zlib's own error (not the zip module's)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(member, text)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(member)
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start] = 0xFF  # BTYPE 11: a deflate block type that does not exist
    path.write_bytes(bytes(data))
    with zipfile.ZipFile(path) as z, pytest.raises(zlib.error):
        z.read(member)


def test_a_corrupt_deflated_member_is_unreadable_not_a_crash(tmp_path):
    path = tmp_path / "deflated.eval"
    _deflated_then_corrupted(path, "header.json", json.dumps({"version": 2, "eval": {"model": "m"}}) * 20)
    _, out = imported(path, expect=2)
    assert "CLR961" in out and "not a readable zip archive" in out
    ratings = invoke("results", "ratings", path)
    assert ratings.exception is None or isinstance(ratings.exception, SystemExit), ratings.exception
    assert "Traceback" not in ratings.output and str(path.name) in ratings.output + ratings.stderr
