"""Every score's provenance, filled from what each harness really wrote (the recorded runs in data/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirunner import invoke as run_command

from record_fixtures import distribution_mirror
from results.helpers import DATA, ROOT, invoke, lm_eval_results, write



def imported(*args) -> list[dict]:
    result = invoke("results", "import", "--root", ROOT, *map(str, args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["scores"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    return helm_export(tmp_path_factory.mktemp("export"))


def helm_export(base: Path) -> Path:
    """`clinreg export helm` of the two records the recorded HELM suite ran, as tests/results/data/helm/record.py
    made it (files as distributed, from tests/distributions)."""
    from clinreg.cli.export import export

    distribution_mirror(base / "mirror", ["pubmed_qa", "medcalc_bench"])
    out = base / "export"
    result = run_command(export, ["helm", "pubmed_qa", "medcalc_bench", "--root", str(ROOT), "--data-dir",
                                  str(base / "mirror"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_inspect_logs_record_harness_version_and_instance_set():
    for log in ("inspect_mockllm_med_qa.json",):
        (score,) = imported(DATA / log)
        assert score["provenance"]["harness"] == "inspect"
        assert score["provenance"]["harness_version"] == "0.3.285"
        assert score["provenance"]["instance_set"].startswith("ids:")
        assert "export" not in score["provenance"]  # unknown: no export given or named


def test_helm_runs_record_generation_settings_and_instances():
    scores = imported(DATA / "helm" / "suite")
    by = {(s["model"], s["record"]): s["provenance"] for s in scores}
    pubmed = by[("clinreg-test/constant-a", "pubmed_qa")]
    assert pubmed["harness"] == "helm"
    assert pubmed["generation"]["method"] == "multiple_choice_joint"
    assert pubmed["generation"]["temperature"] == 0.0
    assert pubmed["data_file"] == "data/pubmed_qa/pubmed_qa.jsonl"
    # both constant models ran the same instances
    assert pubmed["instance_set"] == by[("clinreg-test/constant-b", "pubmed_qa")]["instance_set"]
    assert by[("clinreg-test/constant-a", "medcalc_bench")]["generation"]["method"] == "generation"


def test_the_export_a_run_used_gives_its_id_release_and_instance_set(exported):
    out = exported
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    scores = imported(DATA / "helm" / "suite", "--export", out)
    for score in scores:
        prov = score["provenance"]
        assert prov["export"].startswith("manifest:"), score
        assert prov["registry_release"] == manifest["release"]
    again = imported(DATA / "helm" / "suite")
    # the recorded run's own instance ids are the export's instance set
    assert [s["provenance"]["instance_set"] for s in scores] == [s["provenance"]["instance_set"] for s in again]


def test_lm_eval_records_version_generation_and_finds_its_export(tmp_path, exported):
    out = exported  # any export: the run names its data file by an absolute path
    data_file = out / "data" / "pubmed_qa" / "pubmed_qa.jsonl"
    results = lm_eval_results("clinreg_pubmed_qa", lm_eval_version="0.4.9", **{"n-shot": {"clinreg_pubmed_qa": 0}})
    results["configs"]["clinreg_pubmed_qa"].update({"dataset_kwargs": {"data_files": {"test": str(data_file)}},
                                                    "generation_kwargs": {"until": ["\n\n"], "do_sample": False}})
    results["n-samples"]["clinreg_pubmed_qa"] = {"original": 4, "effective": 4}
    (score,) = imported(write(tmp_path / "results.json", json.dumps(results)))
    prov = score["provenance"]
    assert (prov["harness"], prov["harness_version"]) == ("lm-eval", "0.4.9")
    assert prov["generation"] == {"do_sample": False, "num_fewshot": 0, "until": "\n\n"}
    assert prov["export"].startswith("manifest:")
    helm = {s["record"]: s for s in imported(DATA / "helm" / "suite")}
    assert prov["instance_set"] == helm["pubmed_qa"]["provenance"]["instance_set"]


def test_published_results_record_release_date_source_and_edition():
    from clinreg.results.published import published_file

    scores = imported(published_file("medhelm-2025-07-31"))
    assert len(scores) == 9 * 37
    for score in scores:
        assert score["provenance"] == {
            "harness": "helm", "edition": "helm-63754d05",
            "published": {"id": "medhelm-2025-07-31", "date": "2025-07-31",
                          "source": "som-shahlab/medhelm@94167c5c0298f83639ff7949ee9656062df359f1:"
                                    "data/leaderboard.csv"}}


def test_older_results_files_still_read(tmp_path):
    (score,) = imported(DATA / "inspect_mockllm_med_qa.json")
    del score["provenance"]
    old = {"clinreg_results": 1, "scores": [score]}
    (again,) = imported(write(tmp_path / "old.json", json.dumps(old)))
    assert again["provenance"] == {}
    assert again["value"] == score["value"]
