"""`clinreg diff`: every kind of change between two hand-made trees, and OLD/NEW as folder, release or git ref."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from clirunner import invoke
from trees import CATEGORY, DATASET, DATASET2, replace_in, write_tree

from clinreg.cli.main import main
from clinreg.core.paths import RootError, embedded_root
from clinreg.core.store import load_registry
from clinreg.reports.diff import diff_registries, field_changes, flatten

PLAN_TASK = """      - id: plan_treatment
        name: Plan treatment
        definition: Write a treatment plan.
        provenance: {kind: drafted}
        review: {status: proposed}
"""


def run(*args):
    return invoke(main, ["diff", *map(str, args)])


def diff_of(tmp_path: Path, new_files: dict, old_files: dict | None = None) -> dict:
    old = write_tree(tmp_path / "old", old_files)
    new = write_tree(tmp_path / "new", new_files)
    result = run(old, new, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["data"]


def test_identical_trees_have_no_differences(tmp_path):
    data = diff_of(tmp_path, {})
    assert data["unchanged"] is True and not any(data["summary"].values())
    md = run(tmp_path / "old", tmp_path / "new").output
    assert "No differences" in md


def test_added_and_removed(tmp_path):
    extra = replace_in(replace_in(replace_in(DATASET, "id: qa_set", "id: extra"), "name: QA set", "name: Extra"),
                       "repo: owner/qa_set", "repo: owner/extra").replace("  - id: qa_set\n", "  - id: extra\n")
    category = replace_in(CATEGORY, PLAN_TASK, PLAN_TASK + PLAN_TASK.replace("plan_treatment", "follow_up")
                          .replace("Plan treatment", "Follow up").replace("Write a treatment plan.",
                                                                          "Arrange a follow-up visit."))
    data = diff_of(tmp_path, {"registry/datasets/extra.yaml": extra, "registry/datasets/plans.yaml": None,
                              "taxonomy/care.yaml": category})
    assert [d["id"] for d in data["datasets"]["added"]] == ["extra"]
    assert data["datasets"]["added"][0]["subcategories"] == ["diagnosis"]
    assert [d["id"] for d in data["datasets"]["removed"]] == ["plans"]
    assert [(t["id"], t["subcategory"]) for t in data["tasks"]["added"]] == [("follow_up", "treatment")]
    assert data["tasks"]["removed"] == []
    md = run(tmp_path / "old", tmp_path / "new").output
    assert "1 dataset added; 1 dataset removed; 1 task added" in md
    assert "**Extra** `extra`" in md and "**Plans** `plans`" in md and "**Follow up** `follow_up` in Treatment" in md


def test_renamed_task_and_dataset(tmp_path):
    category = replace_in(CATEGORY, "id: rank_differentials", "id: rank_differential_diagnoses")
    renamed = replace_in(DATASET, "id: qa_set", "id: qa_questions").replace("tasks: [answer_questions]",
                                                                           "tasks: [answer_questions, "
                                                                           "rank_differential_diagnoses]")
    data = diff_of(tmp_path, {"taxonomy/care.yaml": category, "registry/datasets/qa_set.yaml": None,
                              "registry/datasets/qa_questions.yaml": renamed})
    assert [(t["old_id"], t["id"], t["changes"]) for t in data["tasks"]["renamed"]] == \
        [("rank_differentials", "rank_differential_diagnoses", [])]
    (ds,) = data["datasets"]["renamed"]
    assert (ds["old_id"], ds["id"]) == ("qa_set", "qa_questions")
    assert {"path": "mappings.qa_set.tasks", "old": ["answer_questions"],
            "new": ["answer_questions", "rank_differential_diagnoses"]} in ds["changes"]
    assert data["tasks"]["added"] == data["tasks"]["removed"] == data["datasets"]["added"] == []
    md = run(tmp_path / "old", tmp_path / "new").output
    assert "`rank_differentials` → `rank_differential_diagnoses`" in md and "`qa_set` → `qa_questions`" in md


def test_moved_task_and_dataset(tmp_path):
    category = replace_in(CATEGORY, PLAN_TASK, "")
    category = replace_in(category, "    tasks:\n      - id: answer_questions",
                          "    tasks:\n" + PLAN_TASK + "      - id: answer_questions")
    category = replace_in(category, "definition: Deciding what to do.\n    tasks:\n",
                          "definition: Deciding what to do.\n    tasks:\n"
                          "      - id: follow_up\n        name: Follow up\n        definition: Arrange a follow-up.\n"
                          "        provenance: {kind: drafted}\n        review: {status: proposed}\n")
    plans = replace_in(DATASET2, "tasks: [plan_treatment]", "tasks: [follow_up]")
    data = diff_of(tmp_path, {"taxonomy/care.yaml": category, "registry/datasets/plans.yaml": plans})
    assert [(m["id"], m["from"], m["to"])
            for m in data["tasks"]["moved"]] == [("plan_treatment", "treatment", "diagnosis")]
    assert data["tasks"]["changed"] == []
    # plans now measures follow_up, still in treatment: a field change, not a move
    assert data["datasets"]["moved"] == []
    plans_moved = replace_in(DATASET2, "tasks: [plan_treatment]", "tasks: [rank_differentials]")
    data = diff_of(tmp_path / "again", {"registry/datasets/plans.yaml": plans_moved})
    assert [(m["id"], m["from"], m["to"])
            for m in data["datasets"]["moved"]] == [("plans", ["treatment"], ["diagnosis"])]
    md = run(tmp_path / "again" / "old", tmp_path / "again" / "new").output
    assert "**Plans** `plans` now maps to Diagnosis (was Treatment)" in md


def test_field_changes_use_dotted_paths(tmp_path):
    qa = replace_in(replace_in(DATASET, "evaluated: 10", "evaluated: 12"), "spdx: MIT", "spdx: Apache-2.0")
    category = replace_in(CATEGORY, "definition: Write a treatment plan.", "definition: Write a plan of care.")
    data = diff_of(tmp_path, {"registry/datasets/qa_set.yaml": qa, "taxonomy/care.yaml": category})
    (ds,) = data["datasets"]["changed"]
    assert ds["changes"] == [{"path": "licence.spdx", "old": "MIT", "new": "Apache-2.0"},
                             {"path": "mappings.qa_set.instances.evaluated", "old": 10, "new": 12}]
    (task,) = data["tasks"]["changed"]
    assert task["id"] == "plan_treatment"
    assert task["changes"] == [{"path": "definition", "old": "Write a treatment plan.", "new": "Write a plan of care."}]
    md = run(tmp_path / "old", tmp_path / "new").output
    assert "| `mappings.qa_set.instances.evaluated` | 10 | 12 |" in md
    assert "| `definition` | Write a treatment plan. | Write a plan of care. |" in md


def test_coverage_changes_per_subcategory(tmp_path):
    data = diff_of(tmp_path, {"registry/datasets/plans.yaml": None})
    assert data["coverage"] == [{"id": "treatment", "name": "Treatment", "category_name": "Care",
                                 "old": {"tasks": 1, "tasks_covered": 1, "datasets": 1},
                                 "new": {"tasks": 1, "tasks_covered": 0, "datasets": 0}}]
    assert data["totals"]["old"]["tasks_covered"] == 2 and data["totals"]["new"]["tasks_covered"] == 1
    md = run(tmp_path / "old", tmp_path / "new").output
    assert "| Treatment | 1 | 1 → **0** | 1 → **0** |" in md


def test_flatten_keys_records_by_id():
    assert flatten({"a": {"b": 1}, "mappings": [{"id": "m", "x": [1, 2]}], "notes": ["n"]}) == \
        {"a.b": 1, "mappings.m.x": [1, 2], "notes": ["n"]}
    assert field_changes({"a": None}, {"a": 1}) == [{"path": "a", "old": None, "new": 1}]


# --------------------------------------------------------------------------------------------- resolving OLD and NEW


def test_release_versions_filter_the_current_tree(tree):
    result = run("1.0.0", "1.1.0", "--root", tree)
    assert result.exit_code == 0, result.output
    assert "### Datasets added (1), by release" in result.output
    assert "#### Release 1.1.0 · 2025-02-01 · Second" in result.output
    assert "**Plans** `plans` · private" in result.output
    data = json.loads(run("1.0.0", "1.1.0", "--root", tree, "--format", "json").output)["data"]
    assert (data["old"]["kind"], data["new"]["kind"]) == ("release", "release")
    assert data["datasets_added_by_release"] == [{"version": "1.1.0", "date": "2025-02-01", "title": "Second",
                                                 "datasets": ["plans"]}]


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize("subdir", ["", "data/registry"])
def test_git_refs_of_the_repository_holding_the_root(tmp_path, subdir):
    repo = tmp_path / "repo"
    root = repo / subdir if subdir else repo
    write_tree(root, {"registry/datasets/plans.yaml": None})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    write_tree(root)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "second")
    git(repo, "tag", "v-second")
    result = run("HEAD~1", "v-second", "--root", root, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)["data"]
    assert (data["old"]["kind"], data["new"]["kind"]) == ("git", "git")
    assert data["new"]["commit"] == git(repo, "rev-parse", "HEAD")
    assert [d["id"] for d in data["datasets"]["added"]] == ["plans"]
    # a folder beats a release and a ref; the working tree against a commit
    result = run("HEAD~1", root, "--root", root, "--format", "json")
    assert json.loads(result.output)["data"]["new"]["kind"] == "folder"


def test_resolution_order_prefers_folder_then_release(tree, tmp_path, monkeypatch):
    other = write_tree(tmp_path / "1.0.0")
    monkeypatch.chdir(tmp_path)
    data = json.loads(run("1.0.0", "1.1.0", "--root", tree, "--format", "json").output)["data"]
    assert data["old"]["kind"] == "folder" and data["new"]["kind"] == "release"
    assert other.is_dir()


@pytest.mark.parametrize("spec", ["no-such-thing", "9.9.9", "-x", "", "HEAD"])
def test_unresolvable_sides_are_one_line_usage_errors(tree, spec):
    result = run("--root", tree, "1.0.0", "--", spec)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith("clinreg: error:")


def test_folder_that_is_not_a_registry_and_bad_root(tmp_path, tree):
    (tmp_path / "empty").mkdir()
    assert run(tmp_path / "empty", tree).exit_code == 2
    assert run("1.0.0", "1.1.0", "--root", tmp_path / "missing").exit_code == 2


def test_git_ref_without_a_registry_tree(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README").write_text("x\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "no tree")
    write_tree(repo)
    result = run("HEAD", repo, "--root", repo)
    assert result.exit_code == 2 and "no registry tree" in result.output


def test_output_file_needs_force_to_overwrite(tree, tmp_path):
    target = tmp_path / "diff.md"
    assert run("1.0.0", "1.1.0", "--root", tree, "-o", target).exit_code == 0
    assert run("1.0.0", "1.1.0", "--root", tree, "-o", target).exit_code == 2
    assert run("1.0.0", "1.1.0", "--root", tree, "-o", target, "--force").exit_code == 0


def test_library_call_without_cli(tree):
    data = diff_registries(load_registry(tree, release="1.0.0"), load_registry(tree))
    assert [d["id"] for d in data["datasets"]["added"]] == ["plans"]


def _embedded_ready() -> bool:
    try:
        reg = load_registry(embedded_root())
    except (RootError, ValueError):
        return False
    versions = {r.version for r in reg.releases.releases} if reg.releases else set()
    return {"1.0.0", "1.3.0"} <= versions and not [d for d in reg.diagnostics if d.severity == "error"]


@pytest.mark.skipif(not _embedded_ready(), reason="the embedded registry has no clean releases 1.0.0 and 1.3.0 yet")
def test_embedded_registry_lists_added_datasets_by_release():
    data = json.loads(run("1.0.0", "1.3.0", "--format", "json", "--root", embedded_root()).output)["data"]
    added = data["datasets"]["added"]
    assert len(added) == 6
    md = run("1.0.0", "1.3.0", "--format", "markdown", "--root", embedded_root()).output
    for group in data["datasets_added_by_release"]:
        assert f"#### Release {group['version']} · {group['date']} · " in md
    assert md.index("#### Release") < md.index(f"`{added[0]['id']}`")
