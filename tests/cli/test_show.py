"""`clinreg show RECORD` on every record of the registry, as text and JSON: the sections a user reads before a
build, the mirror folder the loaders read (derived from the record), and did-you-mean for an unknown id."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from clinreg.cli.main import main
from clinreg.core.store import load_registry
from clinreg.sources.mirror import mirror_folder

REPO = Path(__file__).resolve().parents[2]
REG = load_registry(REPO)
SECTIONS = ("What it measures", "Where it sits in the taxonomy", "Access and how to get the data",
            "Files expected under --data-dir DIR", "MedHELM editions: ")


@pytest.mark.parametrize("record_id", sorted(REG.datasets))
def test_show_every_record_as_text_and_json(record_id, tmp_path):
    record = REG.datasets[record_id]
    text = CliRunner().invoke(main, ["show", record_id, "--root", str(REPO)])
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert lines[0].startswith(f"{record_id}: {record.name} ")
    for section in SECTIONS:
        assert any(line.startswith(section) for line in lines), section
    assert f"access: {record.access.tier}" in text.output
    assert f"then: clinreg build {record_id} --data-dir DIR -o OUT" in text.output
    # Wrapped text keeps a hyphenated word whole (`lm-eval`, ids, paths): no line ends inside one.
    assert [line for line in lines if re.search(r"\w-$", line)] == []
    for mapping in record.mappings:
        assert f"Benchmark {mapping.id} " in text.output and f"scoring: {mapping.metric.name}" in text.output

    out = CliRunner().invoke(main, ["show", record_id, "--root", str(REPO), "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)["data"]
    assert data["id"] == record_id and [b["id"] for b in data["benchmarks"]] == [m.id for m in record.mappings]
    editions = [e.id for e in REG.editions.editions if record_id in e.benchmarks and e.released]
    assert data["medhelm_editions"] == editions
    assert "MedHELM editions: " + (", ".join(editions) or "no released edition lists it") in lines
    # a benchmark only an unreleased edition runs says so on the last lines; a published one never does
    unreleased = [] if editions else [e for e in REG.editions.editions if record_id in e.benchmarks]
    assert [e["id"] for e in data["medhelm_unreleased"]] == [e.id for e in unreleased]
    if unreleased:
        assert lines[-len(unreleased):] == [f"MedHELM unreleased: {e.unreleased_words} (edition {e.id})"
                                            for e in unreleased]
    else:
        assert lines[-1].startswith("MedHELM editions: ")
    assert data["notes"] == [" ".join(n.split()) for n in record.notes] or data["notes"] == record.notes
    if record.notes:  # every caveat the record holds is printed, in full
        assert "Notes" in lines and " ".join(record.notes[-1].split())[:50] in " ".join(text.output.split())
    tasks = {t for m in record.mappings for t in m.tasks}
    assert {p["task"] for p in data["taxonomy"]} == tasks
    for p in data["taxonomy"]:
        assert p["placement"] == REG.tasks()[p["task"]].task.provenance.subcategory_assignment
    # the folder shown is the one the loaders read: made under a data dir, the loaders find it
    folder = data["data_dir"]["folder"]
    assert f"  folder: DIR/{folder}/" in text.output
    assert all(f["path"].startswith(folder + "/") for f in data["data_dir"]["files"])
    (tmp_path / folder).mkdir(parents=True)
    found = mirror_folder(record, tmp_path)
    assert found is not None and found.name == folder
    if record.access.instructions:
        assert " ".join(record.access.instructions.split())[:40] in " ".join(text.output.split())


def test_show_names_the_files_the_record_reads():
    data = json.loads(CliRunner().invoke(main, ["show", "pubmed_qa", "--root", str(REPO), "--format", "json"]).output)
    split = REG.datasets["pubmed_qa"].source.read.splits["train"].files
    assert {"path": f"qiaojin__PubMedQA/{split}", "for": "split train"} in data["data"]["data_dir"]["files"]


def test_show_jury_axes_and_scale_where_a_jury_scores():
    record = next(r for r in REG.datasets.values() for m in r.mappings if m.scoring and m.scoring.jury)
    jury = next(m.scoring.jury for m in record.mappings if m.scoring and m.scoring.jury)
    text = CliRunner().invoke(main, ["show", record.id, "--root", str(REPO)]).output
    assert f"scale {min(jury.scale)} to {max(jury.scale)}" in text
    assert all(j.model in text for j in jury.judges) and all(f"axis {a.id}: " in text for a in jury.axes)


def test_an_unknown_record_gets_the_closest_id():
    out = CliRunner().invoke(main, ["show", "pubmed", "--root", str(REPO)])
    assert out.exit_code == 2 and "no record 'pubmed'; did you mean pubmed_qa?" in out.output
    assert "Traceback" not in out.output
    out = CliRunner().invoke(main, ["show", "pubmed", "--root", str(REPO), "--format", "json"])
    assert out.exit_code == 2 and "pubmed_qa" in out.output


def test_show_without_an_id_lists_every_record():
    out = CliRunner().invoke(main, ["show", "--root", str(REPO)])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == sorted(REG.datasets)
    assert lines[-1] == f"{len(REG.datasets)} record(s); `clinreg show ID` for one"
    data = json.loads(CliRunner().invoke(main, ["show", "--root", str(REPO), "--format", "json"]).output)["data"]
    assert [r["id"] for r in data] == sorted(REG.datasets)
