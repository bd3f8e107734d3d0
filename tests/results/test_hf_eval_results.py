"""`clinreg results export --format hf-eval-results`: MedHELM's published results as the Hub's `.eval_results/*.yaml`
files, one per model and benchmark, with the documented fields, read back by huggingface_hub's own parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from clinreg.core.store import load_registry
from clinreg.results.published import published_file
from results.helpers import ROOT, invoke

DOCUMENTED = {"dataset", "value", "verifyToken", "date", "source", "notes"}
DATASET = {"id", "task_id", "revision"}
SOURCE = {"url", "name", "user", "org"}
RELEASE = "medhelm-2025-07-31"


def _export(tmp_path: Path, *sources) -> tuple[Path, dict]:
    out = tmp_path / "hf"
    result = invoke("results", "export", *sources, "--root", ROOT, "--to", "hf-eval-results", "-o", out,
                    "--format", "json")
    data = json.loads(result.stdout)["data"]
    # scores the Hub cannot file (a benchmark with no Hub dataset id) are named, and the exit is then 1
    dropped = any(item.get("dropped") for item in data["left_out"])
    assert result.exit_code == (1 if dropped else 0), result.output
    return out, data


def test_the_published_medhelm_results_become_eval_results_files(tmp_path):
    reg = load_registry(ROOT)
    shipped = json.loads(published_file(RELEASE).read_text(encoding="utf-8"))
    out, summary = _export(tmp_path, RELEASE)
    on_hub = [s for s in shipped["scores"] if reg.datasets[s["record"]].source.type == "huggingface"]
    elsewhere = len(shipped["scores"]) - len(on_hub)
    assert on_hub and elsewhere
    files = sorted(out.rglob("*.yaml"))
    assert len(files) == len(on_hub) == len(summary["files"])
    (left,) = [item for item in summary["left_out"] if item["what"] == "scores of benchmarks with no Hub dataset id"]
    assert left["count"] == elsewhere
    assert left["benchmarks"] == sorted({f"{s['record']}/{s['mapping']}" for s in shipped["scores"]
                                         if reg.datasets[s["record"]].source.type != "huggingface"})
    values = {}
    for path in files:
        rel = path.relative_to(out).parts
        assert rel[-2] == ".eval_results" and path.suffix == ".yaml"
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert isinstance(entries, list) and len(entries) == 1
        (entry,) = entries
        assert {"dataset", "value"} <= set(entry) <= DOCUMENTED
        assert {"id", "task_id"} <= set(entry["dataset"]) <= DATASET
        assert set(entry["source"]) <= SOURCE and entry["source"]["url"].startswith(
            "https://github.com/som-shahlab/medhelm/blob/94167c5c0298f83639ff7949ee9656062df359f1/")
        assert entry["date"] == "2025-07-31"
        values[("/".join(rel[:-2]), entry["dataset"]["id"])] = entry["value"]
    # each published score is the value of the file of its model and its record's Hub dataset
    from clinreg.results.aliases import load_aliases

    aliases = load_aliases()
    for s in on_hub:
        model = aliases[("published", s["model"])]
        assert values[(model, reg.datasets[s["record"]].source.repo)] == s["value"]


def test_huggingface_hubs_parser_reads_every_file_as_written(tmp_path):
    hub = pytest.importorskip("huggingface_hub")
    if not hasattr(hub, "parse_eval_result_entries"):
        pytest.skip("this huggingface_hub has no .eval_results parser (added in 1.x)")
    out, _ = _export(tmp_path, RELEASE)
    for path in sorted(out.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        entries = hub.parse_eval_result_entries(data)
        assert len(entries) == 1 and entries[0].dataset_id == data[0]["dataset"]["id"]
        assert entries[0].value == data[0]["value"] and entries[0].source_url == data[0]["source"]["url"]
        # the client writes back exactly the keys and values we wrote: nothing undocumented, nothing lost
        assert hub.eval_result_entries_to_yaml(entries) == data


def test_the_notes_name_the_metric_its_range_and_the_edition(tmp_path):
    reg = load_registry(ROOT)
    out, _ = _export(tmp_path, RELEASE)
    for path in out.rglob("*.yaml"):
        (entry,) = yaml.safe_load(path.read_text(encoding="utf-8"))
        metric = reg.datasets[path.stem].mappings[0].metric
        lo, hi = metric.range
        assert metric.name in entry["notes"] and f"{lo:g} to {hi:g}" in entry["notes"]
        assert f"clinreg benchmark {path.stem}/" in entry["notes"]
        assert "MedHELM edition helm-63754d05" in entry["notes"]
        assert lo <= entry["value"] <= hi


def test_the_readme_shows_the_exports_real_output(tmp_path, monkeypatch):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    command = "$ clinreg results export medhelm-2025-07-31 --format hf-eval-results -o medhelm-hf\n"
    shown = readme.split(command, 1)[1].split("\n```", 1)[0]
    monkeypatch.chdir(tmp_path)
    result = invoke("results", "export", RELEASE, "--format", "hf-eval-results", "-o", "medhelm-hf")
    assert result.exit_code == 1, result.output  # the private benchmarks' scores have no Hub dataset: named, exit 1
    assert result.stdout.rstrip("\n") == shown


def test_scores_an_export_cannot_write_make_it_exit_1_and_an_aggregate_it_leaves_out_does_not(tmp_path):
    hf = invoke("results", "export", RELEASE, "--root", ROOT, "--to", "hf-eval-results", "-o", tmp_path / "hf",
                "--format", "json")
    left = json.loads(hf.stdout)["data"]["left_out"]
    assert hf.exit_code == 1 and any(i["dropped"] and "no Hub dataset id" in i["what"] for i in left)
    eee = invoke("results", "export", RELEASE, "--root", ROOT, "--to", "every-eval-ever", "-o", tmp_path / "eee",
                 "--format", "json")
    left = json.loads(eee.stdout)["data"]["left_out"]
    # the release's mean win rates are an aggregate, like a standard error: named, not a dropped score
    assert eee.exit_code == 0 and left and not any(i["dropped"] for i in left)
