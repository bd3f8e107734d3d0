"""`clinreg medhelm diff` on a checkout of medhelm's main branch (issue 56, item 1): the ten benchmarks no released
edition holds are named before the registry has them, and once their records and the unreleased edition exist, the
diff against that edition finds nothing about them but the one category the taxonomy lacks.

The checkout is written by the test: a source tree (src/helm/benchmark/...) whose schema and run specs name the ten
as medhelm's files at the commits the editions file cites give them (PacificAI/medhelm, read through a code index):
PhysicianBench under Clinical Decision Support (schema at 5d962258), the five ps26_* run groups in the category
group PacificMedSecurity (schema at 4131d5f8; run specs at 3c194552 report them under ps26_medsecurity and their
own name), and the four pp26_* run specs (at d64e208e). No schema version read lists the pp26_* run groups: they
are put where clinreg's records place them (an inference, which their records say), so for them the test checks
membership and metrics, not MedHELM's placement.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml
from clirunner import invoke

from clinreg.cli.main import main

REPO = Path(__file__).resolve().parents[2]
UNRELEASED = "medhelm-main-4131d5f8"
SECURITY = "PacificMedSecurity"

# category group (name, display name) -> {run group: main metric}
MAIN = {
    ("clinical_decision_support", "Clinical Decision Support"): {"physician_bench": "physician_bench_score"},
    ("ps26_medsecurity", SECURITY): {
        f"ps26_{n}": f"ps26_{n}_accuracy"
        for n in ("breach_response", "control_evasion", "data_theft", "unauthorised_access", "consumer_health_data")
    },
    # clinreg's inference (no schema version read lists them)
    ("patient_communication", "Patient Communication and Education"): {
        "pp26_adolescent_privacy": "exact_match", "pp26_proxy_access": "exact_match", "pp26_proxy_leak": "exact_match"},
    ("administration_and_workflow", "Administration and Workflow"): {"pp26_disclosure_basis": "exact_match"},
}
TEN = sorted(b for groups in MAIN.values() for b in groups)


def _leaf(name: str, metric: str) -> dict:
    return {"name": name, "display_name": name, "description": f"{name} (written by the test)",
            "metric_groups": ["accuracy"], "environment": {"main_name": metric, "main_split": "test"}}


def _add_main(schema: dict) -> dict:
    """MedHELM's schema with the ten run groups added where medhelm's main branch has them."""
    groups = schema.setdefault("run_groups", [])
    by_name = {g["name"]: g for g in groups}
    top = by_name.get("medhelm_scenarios")
    for (group, display), leaves in MAIN.items():
        if group not in by_name:
            by_name[group] = {"name": group, "display_name": display, "description": f"{display} scenarios",
                              "category": "Healthcare Task Categories", "subgroups": []}
            groups.append(by_name[group])
            if top is not None:
                top["subgroups"].append(group)
        by_name[group]["subgroups"].extend(leaves)
        groups.extend(_leaf(name, metric) for name, metric in leaves.items())
    return schema


def _run_specs() -> str:
    specs = []
    for (group, _), leaves in MAIN.items():
        for name in leaves:
            reported = f'"ps26_medsecurity", "{name}"' if group == "ps26_medsecurity" else f'"{name}"'
            specs.append(f'@run_spec_function("{name}")\ndef get_{name}_spec(data_path: str = "") -> RunSpec:\n'
                         f'    return RunSpec(name="{name}", groups=[{reported}])\n')
    return "\n\n".join(specs)


def main_tree(root: Path, schema: dict | None = None, run_specs: str = "") -> Path:
    """A checkout shaped like PacificAI/medhelm's: src/helm/benchmark/static/schema_medhelm.yaml and
    src/helm/benchmark/run_specs/medhelm_run_specs.py."""
    base = root / "src" / "helm" / "benchmark"
    (base / "static").mkdir(parents=True)
    (base / "run_specs").mkdir()
    schema = _add_main(schema if schema is not None else {"run_groups": [
        {"name": "medhelm_scenarios", "display_name": "MedHELM Scenarios", "category": "All scenarios",
         "subgroups": []}]})
    (base / "static" / "schema_medhelm.yaml").write_text(yaml.safe_dump(schema, sort_keys=False), encoding="utf-8")
    (base / "run_specs" / "medhelm_run_specs.py").write_text(run_specs + "\n\n" + _run_specs(), encoding="utf-8")
    return root


def diff(source: Path, *args: str, root: Path = REPO) -> tuple[int, dict]:
    result = invoke(main, ["medhelm", "diff", str(source), "--root", str(root), "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)["data"]


def registry_without_the_ten(tmp_path: Path) -> Path:
    """The shipped registry as it was before these records: no record for the ten, no unreleased edition."""
    root = tmp_path / "registry_before"
    for part in ("registry", "taxonomy", "schemas"):
        shutil.copytree(REPO / part, root / part)
    for name in TEN:
        (root / "registry" / "datasets" / f"{name}.yaml").unlink()
    path = root / "registry" / "medhelm_editions.yaml"
    editions = yaml.safe_load(path.read_text(encoding="utf-8"))
    editions["editions"] = [e for e in editions["editions"] if e.get("status", "released") == "released"]
    path.write_text(yaml.safe_dump(editions, sort_keys=False), encoding="utf-8")
    releases = root / "registry" / "releases.yaml"
    data = yaml.safe_load(releases.read_text(encoding="utf-8"))
    for release in data["releases"]:
        release["datasets_added"] = [d for d in release.get("datasets_added", []) if d not in TEN]
    releases.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return root


def test_the_diff_names_each_new_benchmark_before_the_registry_has_it(tmp_path):
    checkout = main_tree(tmp_path / "medhelm")
    code, data = diff(checkout, root=registry_without_the_ten(tmp_path))
    assert code == 1 and data["edition"]["id"] == "medhelm-0.8.0"  # the newest released edition
    lacking = {d["benchmark"]: d for d in data["differences"] if d["kind"] == "edition_lacks"}
    assert sorted(lacking) == TEN
    for name in TEN:
        assert "the registry has no record for it either" in lacking[name]["message"], lacking[name]
    assert lacking["physician_bench"]["medhelm"] == "Clinical Decision Support"
    assert {lacking[n]["medhelm"] for n in TEN if n.startswith("ps26_")} == {SECURITY}


def test_with_the_records_the_newest_release_still_lacks_them_and_says_the_registry_has_them(tmp_path):
    code, data = diff(main_tree(tmp_path / "medhelm"))
    assert code == 1 and data["edition"]["id"] == "medhelm-0.8.0"
    lacking = {d["benchmark"]: d["message"] for d in data["differences"] if d["kind"] == "edition_lacks"}
    assert sorted(lacking) == TEN
    assert all("the registry has a record for it" in message for message in lacking.values())


def test_against_the_unreleased_edition_nothing_differs_for_the_ten_but_the_missing_category(tmp_path):
    code, data = diff(main_tree(tmp_path / "medhelm"), "--edition", UNRELEASED)
    assert data["edition"]["id"] == UNRELEASED and data["edition"]["released"] is False
    text = invoke(main, ["medhelm", "diff", str(tmp_path / "medhelm"), "--root", str(REPO), "--edition", UNRELEASED])
    assert f"against edition {UNRELEASED} (UNRELEASED: on PacificAI/medhelm's main branch at" in text.output
    assert "taxonomy lacks: the taxonomy has no category 'PacificMedSecurity'" in text.output
    about = [d for d in data["differences"] if d["benchmark"] in TEN]
    assert about == []
    # The small tree holds only the ten: the edition's 46 others are what MedHELM's files lack here.
    assert {d["kind"] for d in data["differences"]} == {"medhelm_lacks", "taxonomy_lacks"}
    (missing,) = [d for d in data["differences"] if d["kind"] == "taxonomy_lacks"]
    assert missing["medhelm"] == SECURITY and missing["benchmark"] is None
    assert all(n in missing["message"] for n in TEN if n.startswith("ps26_"))
    assert missing["registry"] == ["Administration and Workflow"]
    assert missing["where"].startswith("helm/benchmark/static/schema_medhelm.yaml:")


@pytest.fixture
def wheel_files(tmp_path) -> tuple[dict, str]:
    """medhelm 0.8.0's own schema and run specs (the released files main builds on), where the wheel is here."""
    import os

    path = os.environ.get("CLINREG_MEDHELM_WHEEL")
    if not path or not Path(path).is_file():
        if os.environ.get("CLINREG_REQUIRE_MEDHELM_WHEEL"):
            pytest.fail("CLINREG_MEDHELM_WHEEL must name the medhelm 0.8.0 wheel here")
        pytest.skip("the medhelm 0.8.0 wheel is not here (set CLINREG_MEDHELM_WHEEL; .ci/run does)")
    with zipfile.ZipFile(path) as archive:
        schema = yaml.safe_load(archive.read("helm/benchmark/static/schema_medhelm.yaml"))
        specs = archive.read("helm/benchmark/run_specs/medhelm_run_specs.py").decode("utf-8")
    return schema, specs


def test_released_files_plus_the_ten_differ_from_the_unreleased_edition_only_by_the_missing_category(
        tmp_path, wheel_files):
    schema, specs = wheel_files
    code, data = diff(main_tree(tmp_path / "medhelm", schema, specs), "--edition", UNRELEASED)
    assert code == 1
    assert [d["kind"] for d in data["differences"]] == ["taxonomy_lacks"], data["differences"]
    assert data["medhelm_benchmarks"] == data["edition_benchmarks"]
