"""`clinreg results export --format every-eval-ever` and the import of EEE records: recorded Inspect (a jury score),
lm-eval and HELM outputs go through a results file to EEE records that validate against the shipped 0.3.0 schema,
and come back unchanged."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from clinreg.results.every_eval_ever import eee_schema, schema_errors
from results.helpers import DATA, ROOT, invoke, needs_zstandard

SCHEMAS = Path(__file__).resolve().parents[2] / "src" / "clinreg" / "results" / "schemas" / "every_eval_ever"
HARNESS_OUTPUTS = [DATA / "harnesses" / "inspect", DATA / "harnesses" / "lm_eval", DATA / "helm" / "suite"]
DATASTORE_PATH = re.compile(r"^data/[^/]+/[^/]+/[^/]+/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                            r"[0-9a-f]{12}\.json$")


def _import(tmp_path: Path, *sources, name: str = "results.json") -> dict:
    out = tmp_path / name
    result = invoke("results", "import", *sources, "--root", ROOT, "-o", out, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text(encoding="utf-8"))


def _export(tmp_path: Path, *sources, to: str = "every-eval-ever", name: str = "eee") -> tuple[Path, dict]:
    out = tmp_path / name
    result = invoke("results", "export", *sources, "--root", ROOT, "--to", to, "-o", out, "--format", "json")
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)["data"]


def _records(folder: Path) -> dict[str, dict]:
    return {p.relative_to(folder).as_posix(): json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(folder.rglob("*.json"))}


def _by_key(document: dict) -> dict[tuple[str, str], dict]:
    return {(s["model"], f"{s['record']}/{s['mapping']}"): s for s in document["scores"]}


def _same_scores(before: dict, after: dict) -> None:
    """Every score field by field, its provenance whole; only `source` (where it was read) differs."""
    a, b = _by_key(before), _by_key(after)
    assert sorted(a) == sorted(b)
    for key in a:
        for field in a[key]:
            if field != "source":
                assert b[key][field] == a[key][field], (key, field)


def test_the_shipped_schema_and_licence_are_the_packages_copies():
    readme = (SCHEMAS / "README.md").read_text(encoding="utf-8")
    for name in ("eval.schema.json", "LICENSE"):
        digest = hashlib.sha256((SCHEMAS / name).read_bytes()).hexdigest()
        assert f"`{name}` | `" in readme and digest in readme, name
    assert eee_schema()["version"] == "0.3.0"
    assert "MIT License" in (SCHEMAS / "LICENSE").read_text(encoding="utf-8")


def test_recorded_inspect_lm_eval_and_helm_scores_round_trip_through_eee(tmp_path):
    needs_zstandard()  # the Inspect log is a Zstandard-compressed .eval
    original = _import(tmp_path, *HARNESS_OUTPUTS)
    harnesses = {s["provenance"]["harness"] for s in original["scores"]}
    assert harnesses == {"inspect", "lm-eval", "helm"}
    assert [s["mapping"] for s in original["scores"] if s["jury"]] == ["med_dialog"]

    folder, summary = _export(tmp_path, tmp_path / "results.json")
    records = _records(folder)
    assert sorted(records) == summary["files"] and len(records) == len(original["scores"])
    for path, record in records.items():
        assert DATASTORE_PATH.match(path), path
        assert schema_errors(record) == [], path
        assert path.split("/")[1] == record["evaluation_results"][0]["metric_config"]["additional_details"][
            "clinreg_record"]

    back = _import(tmp_path, folder, name="back.json")
    _same_scores(original, back)
    assert all(s["source"]["format"] == "every_eval_ever" for s in back["scores"])
    # and once more: the records a round trip gives export to the same files
    again, _ = _export(tmp_path, tmp_path / "back.json", name="again")
    assert sorted(_records(again)) == sorted(records)


def test_a_jury_score_carries_its_judges_rubric_and_uncertainty(tmp_path):
    needs_zstandard()
    _import(tmp_path, *HARNESS_OUTPUTS)
    folder, _ = _export(tmp_path, tmp_path / "results.json")
    (record,) = [r for r in _records(folder).values() if r["eval_library"]["name"] == "inspect_ai"]
    (result,) = record["evaluation_results"]
    details = result["metric_config"]["additional_details"]
    assert details["clinreg_record"] == "med_dialog" and details["clinreg_mapping"] == "med_dialog"
    assert details["clinreg_subcategories"] == "patient_provider_messaging"
    jury = result["metric_config"]["llm_scoring"]
    assert {j["additional_details"]["clinreg_judge"]: j["model_info"]["id"] for j in jury["judges"]} == \
        {"gpt": "mockllm/model", "llama": "mockllm/model", "claude": "mockllm/model"}
    assert jury["aggregation_method"] == "average"
    assert jury["additional_details"]["clinreg_jury_from"] == "results"
    assert jury["additional_details"]["clinreg_rubric"].startswith("clinreg:med_dialog/med_dialog@")
    assert jury["additional_details"]["axes"] == "accuracy,completeness,clarity"
    assert result["score_details"]["score"] == 4.0
    uncertainty = result["score_details"]["uncertainty"]
    assert uncertainty["num_samples"] == 2 and uncertainty["standard_deviation"] == 0.0
    assert (result["metric_config"]["min_score"], result["metric_config"]["max_score"]) == (1.0, 5.0)
    assert record["source_metadata"]["source_type"] == "evaluation_run"
    (lm,) = [r for r in _records(folder).values() if r["eval_library"]["name"] == "lm_eval"]
    assert lm["evaluation_results"][0]["score_details"]["uncertainty"]["standard_error"]["value"] == \
        pytest.approx(1 / 3)
    assert lm["model_info"]["developer"] == "dummy"  # lm-eval's model type, as Inspect's provider


@pytest.mark.slow
def test_a_published_release_exports_as_documentation_and_imports_back_unchanged(tmp_path):
    shipped = _import(tmp_path, *_published_path(), name="shipped.json")
    folder, summary = _export(tmp_path, "medhelm-2025-07-31")
    assert {item["what"] for item in summary["left_out"]} >= {"reported mean win rates"}
    records = _records(folder)
    assert all(schema_errors(r) == [] for r in records.values())
    sample = next(r for r in records.values()
                  if r["evaluation_results"][0]["evaluation_name"] == "med_dialog/med_dialog")
    meta = sample["source_metadata"]
    assert meta["source_type"] == "documentation" and meta["evaluator_relationship"] == "third_party"
    assert meta["additional_details"]["clinreg_published_id"] == "medhelm-2025-07-31"
    assert sample["evaluation_results"][0]["source_data"]["additional_details"]["clinreg_edition"] == "helm-63754d05"
    # the leaderboard names no judges: the registry's jury is given, and marked as the registry's
    jury = sample["evaluation_results"][0]["metric_config"]["llm_scoring"]
    assert jury["additional_details"]["clinreg_jury_from"] == "registry" and len(jury["judges"]) == 3
    assert sample["model_info"]["id"].count("/") == 1  # a display name becomes the alias table's model id
    back = _import(tmp_path, folder, name="back.json")
    _same_scores(shipped, back)
    assert all(s["jury"] is None for s in back["scores"])


def _published_path() -> list[Path]:
    from clinreg.results.published import published_file

    return [published_file("medhelm-2025-07-31")]


@pytest.mark.slow
def test_an_existing_output_is_kept_without_force_and_force_replaces_only_an_earlier_export(tmp_path):
    out = tmp_path / "eee"
    args = ("results", "export", *_published_path(), "--root", ROOT, "--format", "every-eval-ever", "-o", out)
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    (out / ".git").mkdir()
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    result = invoke(*args)
    assert result.exit_code == 2 and "--force" in result.stderr
    result = invoke(*args, "--force")  # a folder holding files no export writes is never replaced
    assert (result.exit_code == 2 and ".git/HEAD" in result.stderr
            and "no every-eval-ever export writes" in result.stderr)
    assert sorted(p.name for p in out.iterdir()) == [".git", "keep.txt"]
    (out / "keep.txt").unlink()
    (out / ".git" / "HEAD").unlink()
    (out / ".git").rmdir()
    assert invoke(*args, "--force").exit_code == 0
    first = sorted(p.relative_to(out) for p in out.rglob("*.json"))
    result = invoke(*args, "--force")  # an earlier export is replaced as a whole
    assert result.exit_code == 0, result.output
    assert sorted(p.relative_to(out) for p in out.rglob("*.json")) == first and first
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".eee.")]  # no staging folder left behind


def test_a_record_that_breaks_the_schema_is_refused_at_its_line(tmp_path):
    folder, _ = _export(tmp_path, *_published_path())
    path = sorted(folder.rglob("*.json"))[0]
    record = json.loads(path.read_text(encoding="utf-8"))
    record["evaluation_results"][0]["metric_config"]["min_score"] = "zero"
    text = json.dumps(record, indent=2)
    path.write_text(text, encoding="utf-8")
    result = invoke("results", "import", path, "--root", ROOT, "-o", tmp_path / "bad.json")
    assert result.exit_code == 1
    line = text[: text.index('"min_score"')].count("\n") + 1
    assert f"{path}:{line}:" in result.stderr and "Every Eval Ever 0.3.0" in result.stderr
    assert not (tmp_path / "bad.json").exists()


def test_another_tools_record_is_read_by_its_evaluation_name(tmp_path):
    folder, _ = _export(tmp_path, *_published_path())
    path = next(p for p in sorted(folder.rglob("*.json")) if "/medcalc_bench/" in p.as_posix())
    record = json.loads(path.read_text(encoding="utf-8"))
    result = record["evaluation_results"][0]
    del result["metric_config"]["additional_details"]
    del result["score_details"]["details"]
    del result["source_data"]["additional_details"]
    result["evaluation_name"] = "medcalc_bench"
    path.write_text(json.dumps(record), encoding="utf-8")
    (score,) = _import(tmp_path, path)["scores"]
    assert (score["record"], score["value"]) == ("medcalc_bench", result["score_details"]["score"])
    assert score["model"] == record["model_info"]["name"] and score["provenance"]["harness"] == "helm"


def test_a_record_named_as_helm_names_the_benchmark_is_read(tmp_path):
    folder, _ = _export(tmp_path, *_published_path())
    path = next(p for p in sorted(folder.rglob("*.json")) if "/med_dialog/" in p.as_posix())
    record = json.loads(path.read_text(encoding="utf-8"))
    result = record["evaluation_results"][0]
    del result["metric_config"]["additional_details"]
    result["evaluation_name"], result["metric_config"]["metric_name"] = "MedDialog", "Jury Score"
    result["metric_config"].pop("metric_id")
    path.write_text(json.dumps(record), encoding="utf-8")
    (score,) = _import(tmp_path, path)["scores"]
    assert (score["record"], score["metric"], score["value"]) == ("med_dialog", "med_dialog_accuracy",
                                                                  result["score_details"]["score"])


def test_the_format_written_is_named_by_to_or_by_format_and_json_reports_it(tmp_path):
    base = ("results", "export", *_published_path(), "--root", ROOT)
    alone = invoke(*base, "--format", "json", "-o", tmp_path / "a")
    assert alone.exit_code == 2 and "--to every-eval-ever or --to hf-eval-results" in alone.stderr
    assert not (tmp_path / "a").exists()
    both = invoke(*base, "--to", "hf-eval-results", "--format", "every-eval-ever", "-o", tmp_path / "b")
    assert both.exit_code == 2 and "name two formats" in both.stderr and not (tmp_path / "b").exists()
    text = invoke(*base, "--format", "every-eval-ever", "-o", tmp_path / "c")  # the spelling
    assert text.exit_code == 0 and text.stdout.startswith("wrote ") and "(every-eval-ever)" in text.stdout
    report = json.loads(invoke(*base, "--to", "every-eval-ever", "--format", "json", "-o", tmp_path / "d").stdout)
    assert sorted(report["data"]["files"]) == sorted(p.relative_to(tmp_path / "c").as_posix()
                                                     for p in (tmp_path / "c").rglob("*.json"))
