"""The core commands through click's CliRunner: output formats, exit codes and located errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from clirunner import clinreg as run, invoke

from clinreg.cli.main import main
from trees import GOOD_TREE, line_of, replace_in, write_tree

DS = "registry/datasets/qa_set.yaml"


def test_validate_clean_tree_exits_0(tree):
    result = run("validate", "--root", str(tree))
    assert result.exit_code == 0
    assert "0 error(s), 1 warning(s)" in result.output


def test_validate_json_shape_and_exit_1(tmp_path):
    text = replace_in(GOOD_TREE[DS], "tier: public", "tier: publc")
    root = write_tree(tmp_path, {DS: text})
    result = run("validate", "--root", str(root), "--format", "json")
    assert result.exit_code == 1
    payload = json.loads(result.output)["data"]
    [d] = [d for d in payload["diagnostics"] if d["severity"] == "error"]
    # key_path (as pydantic's loc) is there when the check knows which field the problem is about
    assert set(d) == {"code", "severity", "file", "line", "column", "message", "hint", "key_path"}
    assert (d["code"], d["file"], d["line"]) == ("CLR104", DS, line_of(text, "tier: publc"))
    assert d["key_path"] == ["access", "tier"]
    # coverage infos about uncovered tasks are held back while a record fails to load
    assert payload["summary"] == {"errors": 1, "warnings": 1, "infos": 1, "files": 5}


def test_validate_text_looks_like_a_compiler(tmp_path):
    text = replace_in(GOOD_TREE[DS], "tier: public", "tier: publc")
    root = write_tree(tmp_path, {DS: text})
    out = run("validate", "--root", str(root)).output
    line = line_of(text, "tier: publc")
    col = text.splitlines()[line - 1].index("publc") + 1
    assert f"{DS}:{line}:{col}: CLR104 [error]" in out
    assert "    hint: did you mean `public`?" in out


def test_validate_github_annotations(tmp_path):
    text = replace_in(GOOD_TREE[DS], "tier: public", "tier: publc")
    root = write_tree(tmp_path, {DS: text})
    out = run("validate", "--root", str(root), "--format", "github").output
    assert f"::error file={DS},line={line_of(text, 'tier: publc')}," in out
    assert "::warning file=registry/datasets/plans.yaml" in out


def test_bad_root_is_a_usage_error(tmp_path):
    result = invoke(main, ["validate", "--root", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no such folder" in result.output
    result = invoke(main, ["coverage", "--root", str(tmp_path)])
    assert result.exit_code == 2 and "not a registry tree" in result.output


def test_unknown_release_is_a_usage_error(tree):
    result = invoke(main, ["coverage", "--root", str(tree), "--release", "9.9.9"])
    assert result.exit_code == 2 and "not in registry/releases.yaml" in result.output


def test_coverage_json_fields(tree):
    data = json.loads(run("coverage", "--root", str(tree), "--format", "json").output)["data"]
    assert data["release"] == "1.1.0"
    assert data["totals"] == data["totals"] | {
        "categories": 1, "subcategories": 2, "tasks": 3, "tasks_covered": 2, "tasks_drafted": 2,
        "datasets": 2, "benchmarks": 2, "access": {"public": 1, "gated": 0, "private": 1}}
    subs = {s["id"]: s for s in data["subcategories"]}
    assert subs["diagnosis"] | {} == subs["diagnosis"]
    assert {k: subs["diagnosis"][k] for k in ("name", "category", "tasks", "tasks_covered", "datasets", "thin")} == {
        "name": "Diagnosis", "category": "care", "tasks": 2, "tasks_covered": 1, "datasets": ["qa_set"], "thin": True}


def test_coverage_release_filters_records(tree):
    data = json.loads(run("coverage", "--root", str(tree), "--format", "json", "--release", "1.0.0").output)["data"]
    assert data["release"] == "1.0.0"
    assert data["totals"]["datasets"] == 1 and data["totals"]["access"] == {"public": 1, "gated": 0, "private": 0}


def test_coverage_table_fits_the_width_it_is_given(tree):
    from clinreg.core.store import load_registry
    from clinreg.reports.coverage import coverage_data
    from clinreg.reports.table import render_table

    data = coverage_data(load_registry(tree))
    data["subcategories"][0]["name"] = "A subcategory name long enough to need wrapping on a narrow terminal screen"
    for width in (80, 120):
        out = render_table(data, width=width)
        assert all(len(line) <= width for line in out.splitlines())
        flat = " ".join(out.split())
        assert "Of 3 tasks: 1 published" in flat and "2 drafted by clinreg" in flat


def test_coverage_table_into_a_pipe_keeps_each_row_on_one_line(tree):
    out = run("coverage", "--root", str(tree)).output  # CliRunner's stdout is not a terminal
    import re

    assert re.search(r"^  Diagnosis +2 +1 +1 +1/0/0", out, re.M) and re.search(r"^  Treatment +1 +", out, re.M)
    assert all(line == line.rstrip() for line in out.splitlines())
    assert any("Of 3 tasks: 1 published" in line and "2 drafted by clinreg" in line for line in out.splitlines())


def test_coverage_refuses_a_tree_with_load_errors(tmp_path):
    root = write_tree(tmp_path, {DS: "id: [unclosed\n"})
    result = invoke(main, ["coverage", "--root", str(root)])
    assert result.exit_code == 1
    assert f"{DS}:" in result.output and "CLR001" in result.output


def test_working_directory_tree_is_used(tree, monkeypatch):
    monkeypatch.chdir(tree)
    data = json.loads(run("coverage", "--format", "json").output)["data"]
    assert data["taxonomy"]["id"] == "mini"


def test_embedded_registry_is_used_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = json.loads(run("coverage", "--format", "json").output)["data"]
    assert data["taxonomy"]["id"] == "medhelm"


def test_rules_and_explain():
    listing = run("rules", "--format", "json")
    codes = [r["code"] for r in json.loads(listing.output)["data"]]
    assert codes == sorted(codes) and "CLR005" in codes and len(codes) == len(set(codes))
    text = run("explain", "clr005").output
    assert "Bad:" in text and "Good:" in text and "PubMedQA" in text
    assert json.loads(run("explain", "CLR301", "--format", "json").output)["data"]["name"] == "unknown-task"
    missing = invoke(main, ["explain", "CLR999"])
    assert missing.exit_code == 2 and "no rule" in missing.output


def test_base_ref_requires_a_version_bump(tmp_path):
    root = write_tree(tmp_path / "repo")
    git = lambda *a: subprocess.run(["git", *a], cwd=root, check=True, capture_output=True)  # noqa: E731
    git("init", "-q", "-b", "main")
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    changed = replace_in(GOOD_TREE[DS], "licence: {spdx: MIT}", "licence: {spdx: Apache-2.0}")
    (root / DS).write_text(changed)
    payload = json.loads(invoke(main, ["validate", "--root", str(root), "--base", "main", "--format", "json"])
                         .output)["data"]
    [d] = [d for d in payload["diagnostics"] if d["code"] == "CLR603"]
    assert (d["file"], d["line"]) == (DS, line_of(changed, "version: 1.0.0"))
    (root / DS).write_text(changed.replace("version: 1.0.0", "version: 1.0.1"))
    result = invoke(main, ["validate", "--root", str(root), "--base", "main", "--format", "json"])
    assert result.exit_code == 0
    # a comment-only change needs no bump
    (root / DS).write_text(GOOD_TREE[DS] + "# a comment\n")
    assert invoke(main, ["validate", "--root", str(root), "--base", "main"]).exit_code == 0
    bad = invoke(main, ["validate", "--root", str(root), "--base", "no-such-ref"])
    assert bad.exit_code == 2 and "not a git commit" in bad.output


def test_validate_and_coverage_do_not_import_heavy_libraries(tmp_path):
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from clinreg.cli.main import main\n"
        "for args in (['validate'], ['coverage'], ['coverage', '--format', 'json'], ['rules']):\n"
        "    CliRunner().invoke(main, args)\n"
        "heavy = sorted(m for m in ('datasets', 'pandas', 'pyarrow') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("args, kind", [
    (["validate"], "validation"),
    (["coverage"], "coverage"),
    (["rules"], "rules"),
    (["explain", "CLR301"], "rule"),
    (["review"], "review_document"),
    (["diff", "1.0.0", "1.1.0"], "diff"),
])
def test_every_json_answer_is_one_envelope(tree, args, kind):
    from clinreg import __version__

    root = [] if args[0] in ("rules", "explain") else ["--root", str(tree)]
    result = invoke(main, [*args, *root, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    payload = json.loads(result.stdout)
    assert set(payload) == {"clinreg", "kind", "data"}
    assert payload["clinreg"] == __version__ and payload["kind"] == kind and payload["data"]


@pytest.mark.parametrize("args", [
    ["coverage", "--release", "9.9.9"],
    ["explain", "CLR999"],
    ["build", "qa_sett"],
    ["diff", "nope", "1.0.0"],
])
def test_errors_with_format_json_are_one_json_line_on_stderr(tree, args):
    root = [] if args[0] == "explain" else ["--root", str(tree)]
    result = invoke(main, [*args, *root, "--format", "json"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    error = json.loads(result.stderr)
    assert error["kind"] == "error" and error["data"]["exit_code"] == 2 and error["data"]["message"]
    if args[0] == "build":
        assert "did you mean 'qa_set'?" in error["data"]["message"]
