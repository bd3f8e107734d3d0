"""`clinreg export croissant`: the structure of every record's file, its data-use terms, what it leaves out, and
that it never writes a checksum the lock does not hold. mlcroissant's own validator runs in
test_croissant_validation.py; these tests need no mlcroissant."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.build import build
from clinreg.cli.export import export
from clinreg.core.store import load_registry
from clinreg.exports import croissant as cr
from clinreg.instances.lock import write_lock
from exports.croissant_support import LOCKED, lock_of, write_data

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def registry():
    return load_registry(REPO)


@pytest.fixture(scope="module")
def locked(registry, tmp_path_factory):
    """A data folder for four records (hub, GitHub, PhysioNet, local) and the lock clinreg computes of it."""
    base = tmp_path_factory.mktemp("croissant-data")
    data = write_data(registry, base / "data")
    lock = lock_of(registry, data)
    write_lock(base / "clinreg.lock.json", lock)
    return data, base / "clinreg.lock.json", lock


def run(*args):
    return invoke(export, ["croissant", *[str(a) for a in args], "--root", str(REPO)])


def walk(node, top=True):
    """Every dict inside a JSON value, the JSON-LD context left out."""
    if top and isinstance(node, dict):
        node = {k: v for k, v in node.items() if k != "@context"}
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value, False)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value, False)


def test_every_record_is_croissant_1_1_over_https_schema_org(registry, tmp_path):
    report = cr.export_croissant(registry, tmp_path)
    assert sorted(f.dataset for f in report.files) == sorted(registry.datasets)
    for made in report.files:
        text = (tmp_path / made.file).read_text(encoding="utf-8")
        doc = json.loads(text)
        assert doc["@context"]["@vocab"] == "https://schema.org/" and doc["@context"]["sc"] == "https://schema.org/"
        assert "http://schema.org" not in text, made.file
        assert doc["@type"] == "sc:Dataset" and doc["conformsTo"][0] == "http://mlcommons.org/croissant/1.1"
        record = registry.datasets[made.dataset]
        assert doc["name"] == record.name and doc["alternateName"] == record.id
        ids = [n["@id"] for n in walk(doc) if "@id" in n and "@type" in n]
        assert len(ids) == len(set(ids)), f"{made.file}: an @id is used twice"
        sets = {d["@id"] for d in doc["distribution"] if d["@type"] == "cr:FileSet"}
        for field in (f for rs in doc["recordSet"] for f in rs["field"]):
            assert field["source"]["fileSet"]["@id"] in sets, field["@id"]  # every field reads a declared FileSet


def test_no_lock_means_no_checksum_and_no_file_object(registry, tmp_path):
    report = cr.export_croissant(registry, tmp_path)
    for made in report.files:
        doc = json.loads((tmp_path / made.file).read_text(encoding="utf-8"))
        assert not [n for n in walk(doc) if "sha256" in n or "md5" in n], made.file
        assert all(d["@type"] == "cr:FileSet" for d in doc["distribution"])
        assert made.instances_with_sha256 == []
        record = registry.datasets[made.dataset]
        for mapping in record.mappings:
            assert any(item.startswith(f"instances of {mapping.id}: no lock file was read") for item in made.left_out)


def test_the_lock_gives_each_mapping_its_instances_file_with_the_built_sha256(registry, locked, tmp_path):
    data, lock_path, lock = locked
    report = cr.export_croissant(registry, tmp_path / "out", lock_path=lock_path)
    by_id = {f.dataset: f for f in report.files}
    for record_id in LOCKED:
        doc = json.loads((tmp_path / "out" / by_id[record_id].file).read_text(encoding="utf-8"))
        objects = [d for d in doc["distribution"] if d["@type"] == "cr:FileObject"]
        want = {m.id: lock["mappings"][f"{record_id}/{m.id}"]["instances_sha256"]
                for m in registry.datasets[record_id].mappings}
        assert {o["@id"]: o["sha256"] for o in objects} == {f"instances/{k}": v for k, v in want.items()}
        assert by_id[record_id].instances_with_sha256 == sorted(want)
    # Every sha256 in every file is one the lock holds: none is made up.
    held = {e["instances_sha256"] for e in lock["mappings"].values()}
    for made in report.files:
        doc = json.loads((tmp_path / "out" / made.file).read_text(encoding="utf-8"))
        assert {n["sha256"] for n in walk(doc) if "sha256" in n} <= held
    # ... and it is the sha256 of what `clinreg build` writes.
    built = tmp_path / "built.jsonl"
    result = invoke(build, ["shc_bmt_med", "--data-dir", str(data), "-o", str(built), "--quiet",
                            "--root", str(REPO)])
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "out" / "shc_bmt_med.croissant.json").read_text(encoding="utf-8"))
    [obj] = [d for d in doc["distribution"] if d["@type"] == "cr:FileObject"]
    assert obj["sha256"] == hashlib.sha256(built.read_bytes()).hexdigest()
    assert obj["contentUrl"] == "data/shc_bmt_med/shc_bmt_med.jsonl"


def test_a_lock_entry_for_another_record_version_is_not_used(registry, locked, tmp_path):
    _, _, lock = locked
    stale = json.loads(json.dumps(lock))
    stale["mappings"]["pubmed_qa/pubmed_qa"]["record_version"] = "0.0.1"
    write_lock(tmp_path / "stale.json", stale)
    report = cr.export_croissant(registry, tmp_path / "out", ["pubmed_qa"], lock_path=tmp_path / "stale.json")
    [made] = report.files
    assert made.instances_with_sha256 == []
    assert any("record version 0.0.1, not" in item for item in made.left_out)
    assert "sha256" not in (tmp_path / "out" / made.file).read_text(encoding="utf-8")


def test_access_tiers_become_duo_terms(registry, tmp_path):
    cr.export_croissant(registry, tmp_path)

    def codes(record_id):
        doc = json.loads((tmp_path / f"{record_id}.croissant.json").read_text(encoding="utf-8"))
        return [t["termCode"] for t in doc.get("usageInfo", [])], doc

    assert codes("pubmed_qa")[0] == ["DUO_0000004"]  # public, MIT
    assert codes("mimic_bhc")[0] == ["DUO_0000026"]  # gated
    assert codes("shc_bmt_med")[0] == ["DUO_0000028", "DUO_0000026"]  # private
    for record in registry.datasets.values():
        terms, doc = codes(record.id)
        if record.access.tier == "public" and record.licence.spdx in ("unknown", "other"):
            assert terms == [], f"{record.id}: a public record of unknown licence asserts no DUO term"
        else:
            assert terms == [c for c, _ in cr.DUO_TERMS[record.access.tier]]
        for term in doc.get("usageInfo", []):
            assert term["url"] == "http://purl.obolibrary.org/obo/" + term["termCode"]
        if record.access.instructions:
            assert doc["conditionsOfAccess"] == " ".join(record.access.instructions.split())


def test_card_and_notes_fill_the_responsible_ai_fields(registry, tmp_path):
    cr.export_croissant(registry, tmp_path, ["pubmed_qa", "shc_bmt_med"])
    record = registry.datasets["pubmed_qa"]
    doc = json.loads((tmp_path / "pubmed_qa.croissant.json").read_text(encoding="utf-8"))
    uses = doc["rai:dataUseCases"]
    assert any(u.startswith("Use when: ") and "biomedical research abstracts" in u for u in uses)
    assert any(u.startswith("Not for: ") for u in uses)
    assert doc["rai:dataLimitations"][0] == " ".join(record.notes[0].split())
    assert doc["license"] == "https://spdx.org/licenses/MIT.html"
    assert doc["citeAs"].endswith("https://arxiv.org/abs/1909.06146")
    fields = {f["name"]: f for f in doc["recordSet"][0]["field"]}
    assert fields["final_decision"]["dataType"] == ["sc:Text", "cr:Label"]  # the gold
    assert "question" in fields and "context.contexts" in fields  # the template's columns


def test_what_a_record_cannot_fill_is_listed(registry, tmp_path):
    report = {f.dataset: f for f in cr.export_croissant(registry, tmp_path).files}
    for made in report.values():
        for item in cr.NEVER_IN_RECORD:
            assert item in made.left_out
    private = report["shc_bmt_med"].left_out
    assert any(i.startswith("license: unknown") for i in private)
    assert any(i.startswith("url: the data have no public page") for i in private)
    assert any(i.startswith("inLanguage: unknown") for i in private)
    # A record that names no files has no RecordSet, and says so; its distribution is its folder in a data folder,
    # with how to obtain the files, and no file name or checksum made up.
    doc = json.loads((tmp_path / "cpc_bench.croissant.json").read_text(encoding="utf-8"))
    assert doc["recordSet"] == []
    [obtain] = doc["distribution"]
    assert obtain["@type"] == "cr:FileSet" and obtain["includes"] == "cpc_bench/**"
    assert "UNVERIFIED" in obtain["description"] and "sha256" not in obtain
    assert any(i.startswith("distribution and recordSet of cpc_bench") for i in report["cpc_bench"].left_out)
    # Columns made by a read step are named as such.
    assert any(i.startswith("extraction in dischargeme:") for i in report["dischargeme"].left_out)
    # ... and so are columns inside a JSON document's records, and dotted paths into nested columns.
    assert any(i.startswith("extraction in aci_bench:") and "records at `data`" in i
               for i in report["aci_bench"].left_out)
    assert any("context.labels (a dotted name" in i for i in report["pubmed_qa"].left_out)
    assert not any(i.startswith("extraction in") for i in report["shc_bmt_med"].left_out)  # one CSV, plain columns


def test_output_is_deterministic(registry, tmp_path):
    cr.export_croissant(registry, tmp_path / "a")
    cr.export_croissant(registry, tmp_path / "b")
    a = {p.name: p.read_bytes() for p in (tmp_path / "a").iterdir()}
    assert a == {p.name: p.read_bytes() for p in (tmp_path / "b").iterdir()}


def test_a_record_that_cannot_be_described_is_named_and_the_others_are_written(registry, tmp_path, monkeypatch):
    real = cr.describe

    def failing(record, lock):
        if record.id == "pubmed_qa":
            raise cr.NotDescribable("pubmed_qa: boom")
        return real(record, lock)

    monkeypatch.setattr(cr, "describe", failing)
    report = cr.export_croissant(registry, tmp_path / "out", ["med_qa", "pubmed_qa"])
    assert [f.dataset for f in report.files] == ["med_qa"] and report.not_written == {"pubmed_qa": "pubmed_qa: boom"}
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["med_qa.croissant.json"]
    result = run("med_qa", "pubmed_qa", "-o", tmp_path / "cli")
    assert result.exit_code == 1 and "not written pubmed_qa: pubmed_qa: boom" in result.output
    assert (tmp_path / "cli" / "med_qa.croissant.json").is_file()


def test_a_record_that_fails_to_load_is_named_with_why_and_the_exit_is_1(tmp_path):
    """`export croissant` never leaves a record out in silence: the others are written, the broken one is named with
    its first error, in text and in JSON, and the exit code is 1."""
    tree = tmp_path / "tree"
    shutil.copytree(REPO / "registry", tree / "registry")
    shutil.copytree(REPO / "taxonomy", tree / "taxonomy")
    broken = tree / "registry" / "datasets" / "med_qa.yaml"
    broken.write_text(broken.read_text(encoding="utf-8").replace("\nname: ", "\nname: [unclosed ", 1), encoding="utf-8")
    loaded = sorted(load_registry(tree).datasets)
    assert "med_qa" not in loaded and loaded

    def export_tree(*args):
        return invoke(export, ["croissant", *[str(a) for a in args], "--root", str(tree)])

    result = export_tree("-o", tmp_path / "all")
    assert result.exit_code == 1, result.output
    assert "not written med_qa: the record did not load: registry/datasets/med_qa.yaml:" in result.output
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == [f"{d}{cr.SUFFIX}" for d in loaded]
    named = export_tree("med_qa", "pubmed_qa", "-o", tmp_path / "two", "--format", "json")
    assert named.exit_code == 1
    data = json.loads(named.stdout)["data"]
    assert [f["dataset"] for f in data["files"]] == ["pubmed_qa"] and "CLR001" in data["not_written"]["med_qa"]
    assert export_tree("pubmed_qa", "-o", tmp_path / "one").exit_code == 0  # the broken record was not asked for


def test_files_are_replaced_only_with_force(tmp_path):
    out = tmp_path / "out2"
    out.mkdir()
    (out / "med_qa.croissant.json").write_text("mine", encoding="utf-8")
    result = run("med_qa", "-o", out)
    assert result.exit_code == 2 and "pass --force" in result.output
    assert (out / "med_qa.croissant.json").read_text(encoding="utf-8") == "mine"
    assert run("med_qa", "-o", out, "--force").exit_code == 0
    assert json.loads((out / "med_qa.croissant.json").read_text(encoding="utf-8"))["alternateName"] == "med_qa"
    assert [p.name for p in out.iterdir()] == ["med_qa.croissant.json"]  # no temporary file left beside it


def test_cli_json_summary_and_exit_codes(tmp_path, locked):
    _, lock_path, _ = locked
    result = run("pubmed_qa", "mimic_bhc", "-o", tmp_path / "out", "--lock", lock_path, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["kind"] == "croissant_export"
    files = {f["dataset"]: f for f in data["data"]["files"]}
    assert set(files) == {"pubmed_qa", "mimic_bhc"} and files["mimic_bhc"]["instances_with_sha256"] == ["mimic_bhc"]
    assert all(f["left_out"] for f in files.values())

    unknown = run("pubmed_qa", "no_such_record", "-o", tmp_path / "x")
    assert unknown.exit_code == 2 and "no dataset 'no_such_record'" in unknown.output
    assert not (tmp_path / "x").exists()
    assert run("-o", tmp_path / "y", "--data-dir", tmp_path).exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    unreadable = run("pubmed_qa", "-o", tmp_path / "z", "--lock", bad)
    assert unreadable.exit_code == 2 and str(bad) in unreadable.output
    assert run("pubmed_qa", "-o", tmp_path / "z", "--lock", tmp_path / "missing.json").exit_code == 2
    harness = invoke(export, ["lm-eval", "-o", str(tmp_path / "h"), "--lock", str(bad)])
    assert harness.exit_code == 2 and "--lock applies only" in harness.output


def test_access_filter_keeps_only_those_tiers(tmp_path):
    result = run("-o", tmp_path, "--access", "private", "--format", "json")
    assert result.exit_code == 0, result.output
    files = json.loads(result.output)["data"]["files"]
    assert files and all(json.loads((tmp_path / f["file"]).read_text(encoding="utf-8"))["usageInfo"][0]["termCode"]
                         == "DUO_0000028" for f in files)


# Croissant 1.1's Required dataset-level properties, written here from the spec (mlcommons/croissant,
# docs/croissant-spec-1.1.md): the table of section "Dataset-level information" > "Required" (@context, @type,
# dct:conformsTo, description, license, name, url, creator, datePublished), and "Modified and Added Properties",
# which makes distribution required.
SPEC_REQUIRED = ("@context", "@type", "conformsTo", "description", "license", "name", "url", "creator",
                 "datePublished", "distribution")


def filled(value) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list):
        return bool(value) and all(filled(v) for v in value)
    if isinstance(value, dict):
        return bool(value) and all(filled(v) for k, v in value.items() if k != "@context")
    return value is not None


def test_every_file_carries_every_field_the_spec_requires(registry, tmp_path):
    report = cr.export_croissant(registry, tmp_path)
    assert report.not_written == {} and sorted(f.dataset for f in report.files) == sorted(registry.datasets)
    assert set(SPEC_REQUIRED) == set(cr.REQUIRED)
    for made in report.files:
        doc = json.loads((tmp_path / made.file).read_text(encoding="utf-8"))
        for key in SPEC_REQUIRED:
            assert key in doc and filled(doc[key]), f"{made.file}: {key} is missing or empty"
        assert doc["url"].startswith("https://"), made.file
        record = registry.datasets[made.dataset]
        creators = doc["creator"]
        assert all(c["@type"] in ("sc:Person", "sc:Organization") for c in creators)
        if "clinreg:creatorNote" not in doc or "et al." in doc["clinreg:creatorNote"]:
            # taken from the citation: every name is in the citation's text
            assert all(c["name"] in record.citation.text for c in creators), made.file
        if not (record.first_released and record.first_released.value != "unknown"):
            assert doc["datePublished"] in record.citation.text and "clinreg:datePublishedNote" in doc
        assert doc["clinreg:accessTier"] == record.access.tier
        if record.licence.spdx in ("unknown", "other"):
            licence = doc["license"]
            assert licence["@type"] == "sc:CreativeWork" and licence["url"].startswith("https://")
            if record.access.tier != "gated":
                assert licence["name"] in ("Unknown licence", "A licence that is not an SPDX licence")


def test_licence_creator_date_and_version_are_honest(registry, tmp_path):
    cr.export_croissant(registry, tmp_path, ["dischargeme", "ehrshot", "med_qa", "mimiciv_billing_code",
                                             "mtsamples_procedures", "health_bench_professional", "pubmed_qa"])

    def doc(record_id):
        return json.loads((tmp_path / f"{record_id}.croissant.json").read_text(encoding="utf-8"))

    physionet = doc("dischargeme")  # gated: the agreement named, with the PhysioNet page
    assert physionet["license"]["name"] == "PhysioNet credentialed licence"
    assert physionet["license"]["url"] == "https://physionet.org/files/discharge-me/1.3/"
    assert physionet["version"] == "1.3" and physionet["isLiveDataset"] is False
    assert [c["name"] for c in physionet["creator"]] == ["Xu", "Delbrouck", "Johnston", "Blankemeier", "Langlotz"]
    ehrshot = doc("ehrshot")  # local, gated: no public page, so the cited work's page, and saying so
    assert ehrshot["url"] == "https://arxiv.org/abs/2307.02028" and "no public page" in ehrshot["clinreg:urlNote"]
    assert ehrshot["license"]["name"] == "Gated research data use agreement"
    assert ehrshot["creator"] == [{"@type": "sc:Person", "name": "Wornow"}]
    assert "et al." in ehrshot["clinreg:creatorNote"]
    assert "Redivis" in ehrshot["clinreg:accessInstructions"]
    assert doc("med_qa")["license"] == "https://spdx.org/licenses/MIT.html" and "version" not in doc("med_qa")
    billing = doc("mimiciv_billing_code")  # first release unknown: the citation's year, and how it was derived
    assert billing["datePublished"] == "2026" and "citation" in billing["clinreg:datePublishedNote"]
    mtsamples = doc("mtsamples_procedures")  # a citation without authors: the repository owner, marked inferred
    assert mtsamples["creator"] == [{"@type": "sc:Organization", "name": "raulista1997"}]
    assert mtsamples["clinreg:creatorNote"].startswith("inferred")
    assert mtsamples["license"]["name"] == "Unknown licence"
    assert mtsamples["license"]["url"] == "https://github.com/raulista1997/benchmarkdata"
    assert doc("health_bench_professional")["creator"] == [{"@type": "sc:Organization", "name": "OpenAI"}]
    assert [c["name"] for c in doc("pubmed_qa")["creator"]] == ["Jin", "Dhingra", "Liu", "Cohen", "Lu"]
    assert "clinreg:creatorNote" not in doc("pubmed_qa") and doc("pubmed_qa")["citeAs"]
