"""Build the real-data samples in ../shared/realdata and compare every gold label with the raw files, read
independently."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from clirunner import invoke

from clinreg.cli.build import build, check_data
from clinreg.core.model import LETTERS

REPO = Path(__file__).resolve().parents[2]
REALDATA = REPO.parent / "shared" / "realdata"

pytestmark = [
    pytest.mark.realdata,
    pytest.mark.skipif(not REALDATA.is_dir(), reason=f"{REALDATA} is absent"),
]


@pytest.fixture(scope="module")
def registry():
    from clinreg.core.store import load_registry

    return load_registry(REPO)


def _record(registry, dataset_id):
    if dataset_id not in registry.datasets:
        pytest.skip(f"no valid record registry/datasets/{dataset_id}.yaml yet")
    return registry.datasets[dataset_id]


def _build(tmp_path, dataset_id, *extra, data_dir=REALDATA):
    out = tmp_path / f"{dataset_id}.jsonl"
    result = invoke(build, [dataset_id, "--root", str(REPO), "--data-dir", str(data_dir), "--format", "jsonl",
                            "-o", str(out), "--quiet", *extra])
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() and result.exit_code == 0 else []
    return result, rows


def _parquet(folder, pattern):
    (path,) = sorted((REALDATA / folder).glob(pattern))
    return pq.read_table(path).to_pylist()


def _letter(scheme, value):
    return scheme.map[str(value)] if hasattr(scheme, "map") else value


def test_pubmed_qa(registry, tmp_path):
    scheme = _record(registry, "pubmed_qa").mappings[0].label
    raw = _parquet("qiaojin__PubMedQA", "pqa_labeled/*.parquet")
    result, rows = _build(tmp_path, "pubmed_qa")
    assert result.exit_code == 0, result.stderr
    assert len(rows) == len(raw) == 100
    for row, source in zip(rows, raw):
        assert row["answer"] == scheme.map[source["final_decision"]]
        assert row["choices"][LETTERS.index(row["answer"])] == source["final_decision"]
        assert source["question"] in row["input"]


def test_med_qa(registry, tmp_path):
    _record(registry, "med_qa")
    lines = (REALDATA / "GBaker__MedQA-USMLE-4-options" / "phrases_no_exclude_test.jsonl").read_text().splitlines()
    raw = [json.loads(line) for line in lines]
    result, rows = _build(tmp_path, "med_qa")
    assert result.exit_code == 0, result.stderr
    assert len(rows) == len(raw) == 200
    for row, source in zip(rows, raw):
        assert row["answer"] == source["answer_idx"]
        assert row["choices"] == [source["options"][k] for k in sorted(source["options"])]
        assert row["choices"][LETTERS.index(row["answer"])] == source["answer"]


def test_medcalc_bench(registry, tmp_path):
    _record(registry, "medcalc_bench")
    raw = _parquet("ncbi__MedCalc-Bench-v1.0", "data/*.parquet")
    result, rows = _build(tmp_path, "medcalc_bench")
    assert result.exit_code == 0, result.stderr
    assert len(rows) == len(raw) == 110
    for row, source in zip(rows, raw):
        assert row["gold"]["value"] == source["Ground Truth Answer"] and row["answer"] is None
        assert (row["gold"]["lower"], row["gold"]["upper"]) == (source["Lower Limit"], source["Upper Limit"])
        assert row["references"] == [source["Ground Truth Explanation"]]  # extra text, never scored as gold
        assert row["context"]["Row Number"] == source["Row Number"]


def test_medhallu_two_instances_per_row(registry, tmp_path):
    record = _record(registry, "medhallu")
    variants = {v.id: v for v in record.mappings[0].variants}
    raw = _parquet("UTAustin-AIHealth__MedHallu", "pqa_labeled/*.parquet")
    result, rows = _build(tmp_path, "medhallu")
    assert result.exit_code == 0, result.stderr
    assert len(rows) == 2 * len(raw) == 200
    for i, source in enumerate(raw):
        for row in rows[2 * i: 2 * i + 2]:
            variant = variants[row["variant"]]
            assert row["source_index"] == i
            assert row["answer"] == record.mappings[0].label.map[variant.label]
            assert source[variant.columns["answer"]] in row["input"]


def test_aci_bench(registry, tmp_path):
    record = _record(registry, "aci_bench")
    files = {"test1": "clinicalnlp_taskB_test1_full.json", "test2": "clinicalnlp_taskC_test2_full.json",
             "test3": "clef_taskC_test3_full.json"}
    folder = REALDATA / "wyim__aci-bench" / "data" / "challenge_data_json"
    raw = [(split, e) for split in record.mappings[0].splits
           for e in json.loads((folder / files[split]).read_text())["data"]]
    result, rows = _build(tmp_path, "aci_bench")
    assert result.exit_code == 0, result.stderr
    assert len(rows) == len(raw) == 12
    for row, (split, source) in zip(rows, raw):
        assert (row["split"] == split and row["gold"]["value"] == source["tgt"].strip()
                and row["context"]["file"] == source["file"])


def _ehr_sql_data(tmp_path):
    """The EHRSQL sample beside a schema file: the sample holds no eicu.sql (SOURCES.md), which the build reads for
    the prompt's schema; the as-distributed writer's shortened schema stands in for it."""
    from distributions.ehr_sql import SCHEMA_SQL

    folder = tmp_path / "data" / "glee4810__EHRSQL" / "dataset" / "ehrsql" / "eicu"
    folder.mkdir(parents=True)
    for name in ("valid.json", "test.json"):
        shutil.copyfile(REALDATA / "glee4810__EHRSQL" / "dataset" / "ehrsql" / "eicu" / name, folder / name)
    (folder / "eicu.sql").write_text(SCHEMA_SQL + "\n", encoding="utf-8")
    return tmp_path / "data"


def test_ehr_sql(registry, tmp_path):
    _record(registry, "ehr_sql")
    folder = REALDATA / "glee4810__EHRSQL" / "dataset" / "ehrsql" / "eicu"
    raw = [e for name in ("valid.json", "test.json") for e in json.loads((folder / name).read_text())]
    result, rows = _build(tmp_path, "ehr_sql", data_dir=_ehr_sql_data(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert len(rows) == len(raw) == 200
    for row, source in zip(rows, raw):
        assert row["gold"]["value"] == source["query"] and row["context"]["is_impossible"] == source["is_impossible"]
        value = {k: v for k, v in (row["context"]["value"] or {}).items() if v is not None}
        assert value == source.get("value", {})
        assert "-- Database Schema:\nCREATE TABLE patient\n(\nuniquepid VARCHAR(10) NOT NULL," in row["prompt"]
        assert row["prompt"].endswith(f"-- Question:\n{source['question']}")


def test_medec_empty_records(registry, tmp_path):
    _record(registry, "medec")
    path = REALDATA / "abachaa__MEDEC" / "MEDEC-MS" / "MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        raw = list(csv.DictReader(handle))
    labelled = [r for r in raw if r["Error Flag"] != ""]
    assert (len(raw), len(labelled)) == (83, 80)
    # The record's filter drops the empty records and the build summary counts them; no label is skipped.
    result, rows = _build(tmp_path, "medec")
    assert result.exit_code == 0, result.stderr
    assert len(rows) == 80
    loud = invoke(build, ["medec", "--root", str(REPO), "--data-dir", str(REALDATA),
                          "-o", str(tmp_path / "loud.jsonl")])
    assert loud.exit_code == 0, loud.stderr
    assert "split 'test': dropped 3 row(s): The test file ends with all-empty records" in loud.stderr
    assert "skipped" not in loud.stderr
    for row, source in zip(rows, labelled):
        gold = ("CORRECT" if source["Error Flag"] == "0"
                else f"{source['Error Sentence ID']} {source['Corrected Sentence']}")
        assert row["gold"] == {"kind": "text", "letter": None, "index": None, "value": gold, "lower": None,
                               "upper": None}
        assert row["context"]["Text ID"] == source["Text ID"] and row["context"]["Error Flag"] == source["Error Flag"]


@pytest.mark.parametrize("dataset_id", ["pubmed_qa", "med_qa", "medcalc_bench", "medhallu", "aci_bench", "ehr_sql",
                                        "medec"])
def test_check_data_passes_on_samples(registry, dataset_id, tmp_path):
    _record(registry, dataset_id)
    data_dir = _ehr_sql_data(tmp_path) if dataset_id == "ehr_sql" else REALDATA
    result = invoke(check_data, [dataset_id, "--root", str(REPO), "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    assert "0 error(s)" in result.stdout


def test_check_data_locates_a_corrupted_label(registry, tmp_path):
    _record(registry, "pubmed_qa")
    copy = tmp_path / "mirror" / "qiaojin__PubMedQA"
    shutil.copytree(REALDATA / "qiaojin__PubMedQA", copy)
    (path,) = sorted(copy.glob("pqa_labeled/*.parquet"))
    table = pq.read_table(path)
    decisions = table.column("final_decision").to_pylist()
    decisions[5] = "perhaps"
    index = table.schema.get_field_index("final_decision")
    pq.write_table(table.set_column(index, table.schema.field(index), pa.array(decisions, pa.string())), path)
    result = invoke(check_data, ["pubmed_qa", "--root", str(REPO), "--data-dir", str(tmp_path / "mirror")])
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith("registry/datasets/pubmed_qa.yaml:") and "CLR904" in first
    assert "row 5" in first and "'perhaps'" in first
    line = int(first.split(":")[1])
    assert "final_decision" in (REPO / "registry/datasets/pubmed_qa.yaml").read_text().splitlines()[line - 1]


def test_check_data_finds_medecs_paired_notes_and_nothing_in_the_other_samples(registry, tmp_path):
    # MEDEC's test set holds each note twice, once with an injected error and once without (rows 0 and 1 here):
    # near duplicates, read independently from the CSV; the other samples hold none.
    _record(registry, "medec")
    path = REALDATA / "abachaa__MEDEC" / "MEDEC-MS" / "MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        raw = list(csv.DictReader(handle))
    assert raw[0]["Text"][:200] == raw[1]["Text"][:200] and raw[0]["Text"] != raw[1]["Text"]
    result = invoke(check_data, ["medec", "--root", str(REPO), "--data-dir", str(REALDATA), "--format", "json"])
    assert result.exit_code == 0, result.output
    (within,) = [d for d in json.loads(result.stdout)["data"]["diagnostics"] if d["code"] == "CLR914"]
    assert "test/0 ~ test/1 (Jaccard" in within["message"] and "0 exact and" in within["message"]
    for dataset_id in ("pubmed_qa", "med_qa", "medhallu", "aci_bench"):
        quiet = invoke(check_data, [dataset_id, "--root", str(REPO), "--data-dir", str(REALDATA), "--strict"])
        assert quiet.exit_code == 0, (dataset_id, quiet.output)
