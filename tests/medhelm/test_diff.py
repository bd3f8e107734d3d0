"""`clinreg medhelm diff` reads MedHELM's own files (clinreg/medhelm/files.py) and lists every difference from an
edition (clinreg/medhelm/compare.py).

The tests read the real medhelm 0.8.0 wheel (`pip download medhelm==0.8.0 --no-deps`, which .ci/run caches
and points CLINREG_MEDHELM_WHEEL at); they skip where it is absent, unless CLINREG_REQUIRE_MEDHELM_WHEEL is set.
Changed copies are made from the wheel's own files, never from a hand-written schema.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest
import yaml
from clirunner import invoke
from medhelm_wheel import medhelm_wheel, unpack_medhelm_files

from clinreg.cli.main import main

REPO = Path(__file__).resolve().parents[2]
EDITIONS = yaml.safe_load((REPO / "registry" / "medhelm_editions.yaml").read_text(encoding="utf-8"))


def _edition(edition_id: str) -> dict:
    return next(e for e in EDITIONS["editions"] if e["id"] == edition_id)


@pytest.fixture(scope="module")
def wheel() -> Path:
    return medhelm_wheel()


@pytest.fixture
def unpacked(wheel, tmp_path) -> Path:
    """The wheel's helm/benchmark files that the diff reads, unpacked as they are."""
    return unpack_medhelm_files(wheel, tmp_path / "medhelm")


def _diff(source, *extra):
    return invoke(main, ["medhelm", "diff", str(source), "--edition", "medhelm-0.8.0", "--root", str(REPO), *extra])


def test_the_real_wheel_matches_its_edition(wheel):
    result = _diff(wheel)
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith("no differences")
    data = json.loads(_diff(wheel, "--format", "json").output)["data"]
    assert data["differences"] == [] and data["medhelm_benchmarks"] == len(_edition("medhelm-0.8.0")["benchmarks"])
    assert len(data["confs_read"]) >= 1


def test_the_unpacked_wheel_reads_as_the_wheel(wheel, unpacked):
    assert _diff(unpacked).exit_code == 0


def _schema_groups(schema: str) -> dict[str, list[str]]:
    data = yaml.safe_load(schema)
    return {g["name"]: g["subgroups"] for g in data["run_groups"] if g.get("category") == "Healthcare Task Categories"}


def test_each_change_to_a_copy_of_the_schema_is_reported_line_by_line(unpacked):
    path = unpacked / "helm" / "benchmark" / "static" / "schema_medhelm.yaml"
    text = path.read_text()
    groups = _schema_groups(text)
    categories = list(groups)
    removed = groups[categories[0]][0]
    moved = groups[categories[1]][0]
    # Edit the real file's own lines: drop one subgroup entry, move one to another category, add a new name.
    lines = text.splitlines(keepends=True)

    def subgroup_line(category: str, name: str) -> int:
        start = next(i for i, line in enumerate(lines) if re.match(rf"\s*-\s*name:\s*{category}\s*$", line))
        return next(i for i in range(start, len(lines)) if re.match(rf"\s*-\s*{name}\s*$", lines[i]))

    i_removed = subgroup_line(categories[0], removed)
    indent = lines[i_removed][: len(lines[i_removed]) - len(lines[i_removed].lstrip())]
    i_moved = subgroup_line(categories[1], moved)
    target = subgroup_line(categories[2], groups[categories[2]][0])
    edits = {i_removed: "", i_moved: "", target: lines[target] + f"{indent}- {moved}\n{indent}- brand_new_bench\n"}
    path.write_text("".join(edits.get(i, line) for i, line in enumerate(lines)))
    changed = _schema_groups(path.read_text())
    assert removed not in changed[categories[0]] and moved in changed[categories[2]]  # the copy says what we meant

    result = _diff(unpacked, "--format", "json")
    assert result.exit_code == 1, result.output
    found = {(d["kind"], d["benchmark"]) for d in json.loads(result.output)["data"]["differences"]}
    assert ("medhelm_lacks", removed) in found
    assert ("edition_lacks", "brand_new_bench") in found
    assert ("category", moved) in found
    text_out = _diff(unpacked).output.splitlines()
    assert any(line.startswith("registry/medhelm_editions.yaml: medhelm lacks: MedHELM's files lack run group")
               and repr(removed) in line for line in text_out)
    assert any("edition lacks: edition medhelm-0.8.0 lacks run group 'brand_new_bench'" in line
               and "the registry has no record for it either" in line for line in text_out)
    assert any(re.match(r"helm/benchmark/static/schema_medhelm\.yaml:\d+: category:", line) and repr(moved) in line
               for line in text_out)
    assert text_out[-1] == f"{len(found)} difference(s)"


def test_a_benchmark_moved_to_another_subcategory_in_a_conf_is_reported(unpacked):
    confs = sorted((unpacked / "helm" / "benchmark" / "presentation").glob("run_entries_medhelm_*.conf"))
    conf = next(p for p in confs if "### Planning Treatments ###" in p.read_text())
    text = conf.read_text()
    # Rename one real header: every benchmark under it is now placed in a subcategory the taxonomy does not have.
    conf.write_text(text.replace("### Planning Treatments ###", "### Planning Treatment Options ###", 1))
    data = json.loads(_diff(unpacked, "--format", "json").output)["data"]
    subs = [d for d in data["differences"] if d["kind"] == "subcategory"]
    assert subs and all("Planning Treatment Options" in d["medhelm"] for d in subs)
    assert all(re.search(r"run_entries_medhelm_\w+\.conf:\d+", d["where"]) for d in subs)


@pytest.mark.parametrize("damage", ["no schema", "not yaml", "not a wheel"])
def test_an_unreadable_source_exits_2(unpacked, tmp_path, damage):
    schema = unpacked / "helm" / "benchmark" / "static" / "schema_medhelm.yaml"
    source: Path = unpacked
    if damage == "no schema":
        schema.unlink()
    elif damage == "not yaml":
        schema.write_text("run_groups: [unclosed\n")
    else:
        source = tmp_path / "fake.whl"
        source.write_bytes(b"not a zip")
    result = _diff(source)
    assert result.exit_code == 2
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_installed_without_a_helm_package_exits_2():
    pytest.importorskip("clinreg")
    try:
        import helm  # noqa: F401
    except ImportError:
        result = invoke(main, ["medhelm", "diff", "--installed", "--root", str(REPO)])
        assert result.exit_code == 2 and "no `helm` package" in result.output
    else:
        pytest.skip("a helm package is installed here (the HELM stage tests --installed)")


def test_against_an_older_edition_the_edition_is_the_side_that_lacks_a_newer_benchmark(wheel):
    result = _diff(wheel)  # warm the registry
    newest = invoke(main, ["medhelm", "diff", str(wheel), "--edition", "helm-63754d05",
                                       "--root", str(REPO)])
    assert newest.exit_code == 1, newest.output
    lines = [line for line in newest.output.splitlines() if "'healthqa_br'" in line]
    assert lines and all(": edition lacks: edition helm-63754d05 lacks run group 'healthqa_br'" in line
                         and "(the registry has a record for it)" in line for line in lines), lines
    assert "missing_in_registry" not in newest.output and result.exit_code == 0


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A throwaway virtual environment (no pip, no network) standing in for the one HELM was installed in."""
    import subprocess
    import sys

    folder = tmp_path_factory.mktemp("helm-venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, capture_output=True)
    return folder


def _site_packages(venv: Path) -> Path:
    [site] = list(venv.glob("lib/python*/site-packages")) or list(venv.glob("Lib/site-packages"))
    return site


def test_env_and_python_without_helm_say_so(venv, tmp_path):
    for option in (["--env", str(venv)], ["--python", str(next((venv / "bin").glob("python*")))]):
        result = invoke(main, ["medhelm", "diff", *option, "--root", str(REPO)])
        assert result.exit_code == 2 and "that Python has no `helm` package" in result.output, result.output
        assert "-m pip install medhelm" in result.output
    missing = invoke(main, ["medhelm", "diff", "--python", str(tmp_path / "nope" / "python"),
                                        "--root", str(REPO)])
    assert missing.exit_code == 2 and "no such interpreter" in missing.output
    empty = invoke(main, ["medhelm", "diff", "--env", str(tmp_path), "--root", str(REPO)])
    assert empty.exit_code == 2 and "no bin/python" in empty.output


def test_env_reads_the_helm_package_of_another_venv(venv, wheel):
    package = _site_packages(venv) / "helm"
    try:
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.startswith("helm/benchmark/") and name.endswith((".yaml", ".conf", "medhelm_run_specs.py")):
                    archive.extract(name, _site_packages(venv))
        (package / "__init__.py").write_text("raise SystemExit('helm was imported')\n")  # finding it never imports it
        result = invoke(main, ["medhelm", "diff", "--env", str(venv), "--edition", "medhelm-0.8.0",
                                           "--root", str(REPO)])
        assert result.exit_code == 0, result.output
        assert f"the helm package of {venv}" in result.output.splitlines()[0]
    finally:
        import shutil

        shutil.rmtree(package, ignore_errors=True)


def test_env_finds_a_helm_package_without_medhelms_files(venv):
    package = _site_packages(venv) / "helm"
    (package / "benchmark").mkdir(parents=True)
    try:
        result = invoke(main, ["medhelm", "diff", "--env", str(venv), "--root", str(REPO)])
        assert result.exit_code == 2 and f"the `helm` package at {package} has no benchmark/static" in result.output
    finally:
        import shutil

        shutil.rmtree(package, ignore_errors=True)
