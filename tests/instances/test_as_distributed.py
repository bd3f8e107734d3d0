"""Every record builds from small files shaped like its real distribution, with its gold answers asserted.

The writers in `distributions/` were shaped from the facts file, the HELM scenario code and upstream docs, not
from our records: each writes a source's files at the paths and in the formats the source is distributed in and
returns the instances HELM would build (gold answer, strings the input must or must not hold, dropped rows).
"""

from __future__ import annotations

import gzip
import json
import zipfile
from pathlib import Path

import pytest

from clinreg.core.store import load_registry
from clinreg.core.builderrors import SourceUnavailable
from clinreg.instances.build import BuildReport, build_instances
from clinreg.sources.mirror import folder_name

from record_fixtures import DISTRIBUTIONS, distribution_writer

REPO = Path(__file__).resolve().parents[2]
RECORDS = sorted(p.stem for p in (REPO / "registry" / "datasets").glob("*.yaml"))

# Where HELM runs once per value of a run parameter, the column our record keeps that value in.
CONFIG_COLUMN = {"n2c2_ct_matching": "criterion", "med_dialog": "subset"}
# Where the expectations cover one HELM run of several the record builds: (run parameter, our column).
PARAM_COLUMN = {"ehrshot": ("subject", "task")}
# Our split names where they differ from HELM's: {record: {our split: HELM split}}.
SPLITS = {
    "ehr_sql": {"validation": "test", "test": "test"},
    "aci_bench": {"test1": "test", "test3": "test", "test2": "test"},
    "med_mcqa": {"validation": "valid"},
    "pubmed_qa": {"train": "test"},
    "medhallu": {"train": "test"},
    "healthqa_br": {"train": "test"},
}


@pytest.fixture(scope="module")
def registry():
    return load_registry(REPO)


def raw_text(folder: Path) -> str:
    """Every text the files hold, decoded, so that an expected string can be told apart from a prompt's wording."""
    parts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        name = path.name.lower()
        if name.endswith(".gz"):
            data = gzip.decompress(data)
            name = name[:-3]
        if name.endswith((".parquet", ".feather")):
            import pyarrow.feather as feather
            import pyarrow.parquet as pq

            table = pq.read_table(path) if name.endswith(".parquet") else feather.read_table(path)
            parts.append(json.dumps(table.to_pylist(), ensure_ascii=False, default=str))
            continue
        if name.endswith(".xlsx"):
            import openpyxl

            book = openpyxl.load_workbook(path, read_only=True)
            parts.extend(str(v) for sheet in book.worksheets for row in sheet.iter_rows(values_only=True) for v in row
                         if v is not None)
            continue
        if name.endswith(".docx"):
            with zipfile.ZipFile(path) as archive:
                data = archive.read("word/document.xml")
        text = data.decode("utf-8", errors="replace")
        parts.append(text)
        if name.endswith((".json", ".jsonl")):
            for line in (text.splitlines() if name.endswith(".jsonl") else [text]):
                try:
                    parts.append(json.dumps(json.loads(line), ensure_ascii=False))
                except ValueError:
                    pass
    return "\n".join(parts)


def _gold(instance) -> str | None:
    return instance.answer if instance.answer is not None else instance.gold.value


def _same_gold(record, instance, expected) -> bool:
    """The gold as built, or HELM's gold in the source's own encoding (MedHallu's "0") mapped by the scheme."""
    if _gold(instance) == expected:
        return True
    scheme = next(m.label for m in record.mappings if m.id == instance.mapping)
    mapping = getattr(scheme, "map", None) or {}
    return instance.answer is not None and mapping.get(str(expected)) == instance.answer


@pytest.mark.parametrize("record_id", RECORDS)
def test_record_builds_from_its_files_as_distributed(registry, tmp_path, record_id):
    check_builds_as_distributed(registry.datasets[record_id], tmp_path)


def check_builds_as_distributed(record, tmp_path: Path, writers: Path = DISTRIBUTIONS) -> None:
    """The record builds from the files its writer lays out, with the writer's gold, inputs and dropped rows."""
    record_id = record.id
    module, write = distribution_writer(record, writers)
    data_dir = tmp_path / "data"
    folder = data_dir / folder_name(record)
    expected = write(folder)
    if "unbuildable" in expected:
        # The layout is not public (a test set held back by its authors): the writer says so and lays out nothing,
        # and the record says so too, with no read step and the reason CLR711 quotes. Building must fail cleanly.
        assert expected["unbuildable"].strip(), f"{record_id}: the writer gives no reason"
        assert record.source.read is None and getattr(record.source, "read_note", None), (
            f"{record_id}: a writer may say `unbuildable` only for a record without `read` that says why in "
            "`read_note`")
        assert (not any(folder.rglob("*")) if folder.exists()
                else True), f"{record_id}: an unbuildable writer writes no files"
        with pytest.raises(SourceUnavailable):
            list(build_instances(record, data_dir=data_dir, report=BuildReport()))
        return
    report = BuildReport()
    built = list(build_instances(record, data_dir=data_dir, report=report))
    assert built, f"{record_id}: no instances"

    ours_to_helm = SPLITS.get(record_id, {})
    splits = dict.fromkeys(s for m in record.mappings for s in m.splits)
    helm_splits = dict.fromkeys(ours_to_helm.get(s, s) for s in splits)
    want = [instance for h in helm_splits for instance in expected["splits"].get(h, [])]
    if record_id in PARAM_COLUMN:
        # The expectations are for one HELM run; keep our instances of that run's value.
        param, column = PARAM_COLUMN[record_id]
        built = [i for i in built if i.context[column] == expected["params"][param]]
    if "configs" in expected:
        # One HELM run per value: compare our instances of each value, in order, with that run's instances.
        column = CONFIG_COLUMN[record_id]
        built = sorted(built, key=lambda i: list(expected["configs"]).index(i.context[column]))
        want = [i for value in expected["configs"] for h in helm_splits for i in expected["configs"][value].get(h, [])]
    assert len(built) == len(want), f"{record_id}: built {len(built)} instances, HELM builds {len(want)}"
    data = raw_text(folder)
    for got, exp in zip(built, want):
        assert _same_gold(record, got,
                          exp["gold"]), f"{record_id} {got.id}: gold {_gold(got)!r}, expected {exp['gold']!r}"
        assert got.input.strip(), f"{record_id} {got.id}: empty input"
        for text in exp.get("input_must_not_contain", []):
            assert text not in got.prompt, f"{record_id} {got.id}: prompt holds {text[:60]!r}"
        for text in exp.get("input_must_contain", []):
            if text in data:  # a string of the data, not of HELM's prompt wording
                assert text in got.prompt, f"{record_id} {got.id}: prompt lacks {text[:60]!r}"
    dropped = sum(expected.get("dropped", {}).get(h, 0) for h in helm_splits)
    counted = sum(sum(t.dropped.values()) + t.skipped + t.unlabeled for t in report.tallies)
    per_row = max(1, max(len(m.variants) for m in record.mappings))
    assert counted * per_row == dropped, f"{record_id}: {counted} row(s) dropped and counted, HELM drops {dropped}"
