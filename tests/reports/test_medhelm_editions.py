"""MedHELM's editions: membership follows registry/medhelm_editions.yaml, `--medhelm EDITION` views show exactly an
edition's benchmarks and every report names the edition. `clinreg medhelm diff` is tested in tests/medhelm/.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from clirunner import invoke

from clinreg.cli.main import main
from clinreg.core.store import load_registry

REPO = Path(__file__).resolve().parents[2]
EDITIONS = yaml.safe_load((REPO / "registry" / "medhelm_editions.yaml").read_text(encoding="utf-8"))


def run(*args: str):
    return invoke(main, [*args, "--root", str(REPO)])


def _edition(edition_id: str) -> dict:
    return next(e for e in EDITIONS["editions"] if e["id"] == edition_id)


def _released(edition: dict) -> bool:
    return edition.get("status", "released") == "released"


PUBLISHED = set().union(*(e["benchmarks"] for e in EDITIONS["editions"] if _released(e)))


# --------------------------------------------------------------------------------------------- membership and views


def test_membership_follows_the_default_edition():
    reg = load_registry(REPO)
    default = set(_edition(EDITIONS["default"])["benchmarks"])
    assert reg.edition == EDITIONS["default"]
    assert {k for k, d in reg.datasets.items() if d.in_medhelm} == default & set(reg.datasets)


@pytest.mark.parametrize("edition_id", [e["id"] for e in EDITIONS["editions"]])
def test_coverage_of_an_edition_holds_exactly_its_benchmarks(edition_id):
    result = run("coverage", "--medhelm", edition_id, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)["data"]
    want = set(_edition(edition_id)["benchmarks"])
    assert data["totals"]["datasets"] == len(want)
    assert {d["id"] for d in data["datasets"]} == want
    assert set().union(*(s["datasets"] for s in data["subcategories"])) == want
    assert data["medhelm_edition"]["id"] == edition_id and data["medhelm_edition"]["only"] is True
    # "In MedHELM" is a published set: an unreleased edition keeps its own benchmarks but marks only those a released
    # edition also runs.
    published = want if _released(_edition(edition_id)) else want & PUBLISHED
    assert {d["id"] for d in data["datasets"] if d["in_medhelm"]} == published


def test_medhelm_only_keeps_meaning_the_default_edition():
    data = json.loads(run("coverage", "--medhelm-only", "--format", "json").output)["data"]
    assert {d["id"] for d in data["datasets"]} == set(_edition(EDITIONS["default"])["benchmarks"])
    assert data["medhelm_edition"]["id"] == EDITIONS["default"] and data["medhelm_edition"]["default"] is True


@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_every_coverage_format_names_the_edition(fmt):
    result = run("coverage", "--medhelm", "medhelm-0.8.0", "--format", fmt)
    assert result.exit_code == 0, result.output
    assert "medhelm-0.8.0" in result.output


def test_the_csv_sidecar_names_the_edition(tmp_path):
    out = tmp_path / "coverage.csv"
    assert run("coverage", "--medhelm", "helm-v1", "--format", "csv", "-o", str(out)).exit_code == 0
    meta = json.loads((tmp_path / "coverage.csv.meta.json").read_text())
    assert "helm-v1" in json.dumps(meta)


@pytest.mark.parametrize("args", [("review", "--format", "markdown"), ("review", "--format", "json"),
                                  ("review", "--format", "html")])
def test_the_review_document_names_the_edition(args):
    result = run(*args, "--medhelm", "helm-v1")
    assert result.exit_code == 0, result.output
    assert "helm-v1" in result.output


def test_the_site_names_the_edition_and_each_card_its_editions(tmp_path):
    out = tmp_path / "site"
    assert run("site", "-o", str(out)).exit_code == 0
    assert f'data-edition="{EDITIONS["default"]}"' in (out / "index.html").read_text()
    reg = load_registry(REPO)
    for ds_id in reg.datasets:
        page = (out / f"dataset-{ds_id}.html").read_text()
        shown = re.findall(r'<span class="tag" data-edition="([^"]+)"',
                           page.split('id="medhelm-editions"')[1].split("</dd>")[0])
        assert shown == [e["id"] for e in EDITIONS["editions"] if ds_id in e["benchmarks"] and _released(e)], ds_id


def test_an_unknown_edition_is_a_usage_error():
    result = run("coverage", "--medhelm", "medhelm-9.9")
    assert result.exit_code == 2
    assert "known:" in result.output and EDITIONS["default"] in result.output


def test_an_edition_naming_an_unknown_benchmark_is_refused(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(REPO / "registry", root / "registry")
    shutil.copytree(REPO / "taxonomy", root / "taxonomy")
    shutil.copytree(REPO / "schemas", root / "schemas")
    path = root / "registry" / "medhelm_editions.yaml"
    text = path.read_text()
    first = _edition(EDITIONS["default"])["benchmarks"][0]
    path.write_text(text.replace(f"      - {first}\n", f"      - {first}\n      - no_such_bench\n", 1))
    result = invoke(main, ["validate", "--root", str(root), "--format", "json"])
    assert result.exit_code == 1
    found = [d for d in json.loads(result.output)["data"]["diagnostics"] if d["code"] == "CLR307"]
    assert len(found) == 1 and "no_such_bench" in found[0]["message"]
    assert found[0]["file"] == "registry/medhelm_editions.yaml" and found[0]["line"] > 1


def test_a_record_whose_in_medhelm_disagrees_with_the_default_edition_is_refused(tmp_path):
    root = tmp_path / "tree"
    for part in ("registry", "taxonomy", "schemas"):
        shutil.copytree(REPO / part, root / part)
    member = _edition(EDITIONS["default"])["benchmarks"][0]
    record = root / "registry" / "datasets" / f"{member}.yaml"
    record.write_text(record.read_text().replace("in_medhelm: true", "in_medhelm: false", 1))
    result = invoke(main, ["validate", "--root", str(root), "--format", "json"])
    found = [d for d in json.loads(result.output)["data"]["diagnostics"] if d["code"] == "CLR308"]
    assert result.exit_code == 1 and len(found) == 1
    assert found[0]["file"] == f"registry/datasets/{member}.yaml" and EDITIONS["default"] in found[0]["message"]
    # The views follow the editions file, not the record: the benchmark is still counted in MedHELM.
    assert load_registry(root).datasets[member].in_medhelm is True


# --------------------------------------------------------------------------------------------- unreleased editions

UNRELEASED = [e for e in EDITIONS["editions"] if not _released(e)]
ONLY_UNRELEASED = sorted(set().union(*(e["benchmarks"] for e in UNRELEASED)) - PUBLISHED)


def _words(edition: dict) -> str:
    source = edition["source"]
    return f"on {source['name']}'s {source['branch']} branch at {source['commit'][:8]}, not in a released edition"


def test_an_unreleased_edition_cannot_be_the_default(tmp_path):
    if not UNRELEASED:
        pytest.skip("the editions file has no unreleased edition")
    root = tmp_path / "tree"
    for part in ("registry", "taxonomy", "schemas"):
        shutil.copytree(REPO / part, root / part)
    path = root / "registry" / "medhelm_editions.yaml"
    path.write_text(path.read_text().replace(f"default: {EDITIONS['default']}", f"default: {UNRELEASED[0]['id']}", 1))
    result = invoke(main, ["validate", "--root", str(root), "--format", "json"])
    found = [d for d in json.loads(result.output)["data"]["diagnostics"] if d["code"] == "CLR307"]
    assert result.exit_code == 1 and len(found) == 1 and "unreleased" in found[0]["message"]
    assert found[0]["file"] == "registry/medhelm_editions.yaml"


def test_an_unreleased_edition_is_a_commit_of_a_named_branch():
    from pydantic import ValidationError

    from clinreg.core.model import Edition

    base = {"id": "x-main", "title": "t", "description": "d", "date": "2026-01-01", "benchmarks": ["med_qa"],
            "status": "unreleased"}
    with pytest.raises(ValidationError, match="branch"):
        Edition.model_validate({**base, "source": {"kind": "repository", "name": "o/r", "commit": "abcdef1"}})
    with pytest.raises(ValidationError, match="branch"):
        Edition.model_validate({**base, "source": {"kind": "package", "name": "medhelm", "version": "0.9.0"}})
    edition = Edition.model_validate({**base, "source": {"kind": "repository", "name": "o/r", "commit": "abcdef1",
                                                         "branch": "main"}})
    assert not edition.released
    assert edition.unreleased_words == "on o/r's main branch at abcdef1, not in a released edition"


@pytest.mark.parametrize("ds_id", ONLY_UNRELEASED or ["none"])
def test_a_benchmark_only_an_unreleased_edition_runs_says_so_in_show(ds_id):
    if ds_id == "none":
        pytest.skip("no benchmark is only in an unreleased edition")
    data = json.loads(run("show", ds_id, "--format", "json").output)["data"]
    assert data["in_medhelm"] is False and data["medhelm_editions"] == []
    editions = [e for e in UNRELEASED if ds_id in e["benchmarks"]]
    assert [e["id"] for e in data["medhelm_unreleased"]] == [e["id"] for e in editions]
    text = run("show", ds_id).output
    for edition in editions:
        assert _words(edition) in " ".join(text.split())


def test_published_benchmarks_never_carry_the_unreleased_words():
    data = json.loads(run("show", sorted(PUBLISHED)[0], "--format", "json").output)["data"]
    assert data["medhelm_unreleased"] == [] and data["medhelm_editions"]


def test_coverage_never_counts_an_unreleased_benchmark_as_medhelms():
    if not ONLY_UNRELEASED:
        pytest.skip("no benchmark is only in an unreleased edition")
    for args in ([], ["--medhelm", UNRELEASED[0]["id"]]):
        data = json.loads(run("coverage", "--format", "json", *args).output)["data"]
        rows = {d["id"]: d for d in data["datasets"]}
        for ds_id in ONLY_UNRELEASED:
            assert rows[ds_id]["in_medhelm"] is False and rows[ds_id]["medhelm_editions"] == []
            assert rows[ds_id]["medhelm_unreleased"] == [e["id"] for e in UNRELEASED if ds_id in e["benchmarks"]]
        if args:  # the unreleased edition's own view: only what a released edition also runs is "in MedHELM"
            assert data["totals"]["datasets_in_medhelm"] == len(set(rows) & PUBLISHED)
    assert data["medhelm_edition"]["released"] is False
    table = run("coverage", "--medhelm", UNRELEASED[0]["id"]).output
    assert "UNRELEASED MedHELM edition" in table and _words(UNRELEASED[0]) in " ".join(table.split())
    assert json.loads(run("coverage", "--medhelm-only", "--format", "json").output)["data"]["medhelm_edition"][
        "released"] is True
    markdown = run("coverage", "--format", "markdown").output.splitlines()
    for ds_id in ONLY_UNRELEASED:
        (line,) = [x for x in markdown if f"(`{ds_id}`," in x and x.startswith("- ")]
        assert line.endswith(f"not in MedHELM; only in the unreleased edition `{UNRELEASED[0]['id']}`, not in a "
                             "released edition"), line


def test_the_site_says_unreleased_on_each_such_card_and_in_the_index(tmp_path):
    if not ONLY_UNRELEASED:
        pytest.skip("no benchmark is only in an unreleased edition")
    out = tmp_path / "site"
    assert run("site", "-o", str(out)).exit_code == 0
    index = (out / "index.html").read_text()
    for ds_id in ONLY_UNRELEASED:
        page = " ".join((out / f"dataset-{ds_id}.html").read_text().split())
        editions = page.split('id="medhelm-editions"')[1].split("</dd>")[0]
        assert "No released MedHELM edition runs it." in editions
        for edition in (e for e in UNRELEASED if ds_id in e["benchmarks"]):
            assert f'data-unreleased-edition="{edition["id"]}"' in editions
            assert _words(edition).replace("'", "&#39;") in editions or _words(edition) in editions
        card = index.split(f'data-id="{ds_id}"')[1].split("</li>")[0]
        assert "unreleased: medhelm main" in card
    for ds_id in sorted(PUBLISHED & set(load_registry(REPO).datasets))[:3]:
        assert "data-unreleased-edition" not in (out / f"dataset-{ds_id}.html").read_text()
