"""`validate --changed`: a contributor sees the findings of the files they changed, and the summary counts the rest."""

from __future__ import annotations

import json
import subprocess

import pytest
from clirunner import invoke

from clinreg.cli.main import main
from trees import GOOD_TREE, replace_in, write_tree

DS = "registry/datasets/qa_set.yaml"
OTHER = "registry/datasets/plans.yaml"  # the good tree's one warning is here


def git(root, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.org", "-c", "user.name=T", "-c", "commit.gpgsign=false",
                    *args], cwd=root, check=True, capture_output=True)


def run(*args) -> tuple[int, str]:
    result = invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture
def repo(tmp_path):
    root = write_tree(tmp_path / "clone")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def _warn_in_qa_set(root) -> None:
    """One warning of the contributor's own (a licence nobody checked) in the file they edit."""
    path = root / DS
    text = path.read_text(encoding="utf-8")
    path.write_text(replace_in(text, "licence: {spdx: MIT}", "licence: {spdx: unknown, note: Not found.}"),
                    encoding="utf-8")


def test_a_whole_run_says_how_many_findings_are_in_the_changed_files_and_names_the_command(repo):
    _warn_in_qa_set(repo)
    code, out = run("validate", "--root", repo)
    assert code == 0, out
    assert OTHER in out and DS in out
    assert out.splitlines()[-1].startswith("0 error(s), 1 warning(s), 0 info(s) of these are in the 1 file(s) you "
                                           "changed since the last commit; `clinreg validate --changed` shows only "
                                           "those")


def test_changed_shows_only_the_changed_files_and_counts_the_others(repo):
    _warn_in_qa_set(repo)
    code, out = run("validate", "--root", repo, "--changed")
    assert code == 0, out
    assert OTHER not in out and f"{DS}:" in out
    assert "checked 1 file(s) (changed since HEAD); in the other files: 0 error(s), 1 warning(s)" in out
    data = json.loads(run("validate", "--root", repo, "--changed", "--format", "json")[1])["data"]
    assert data["scope"]["files"] == [DS] and data["scope"]["elsewhere"]["warnings"] == 1
    assert {d["file"] for d in data["diagnostics"]} == {DS}


def test_a_new_untracked_record_counts_as_changed(repo):
    (repo / "registry/datasets/new_set.yaml").write_text(GOOD_TREE[DS].replace("id: qa_set", "id: new_set"),
                                                         encoding="utf-8")
    data = json.loads(run("validate", "--root", repo, "--changed", "--format", "json")[1])["data"]
    assert data["scope"]["files"] == ["registry/datasets/new_set.yaml"]


def test_changed_since_a_ref_covers_the_branchs_commits_and_the_work_tree(repo):
    git(repo, "switch", "-q", "-c", "mine")
    _warn_in_qa_set(repo)
    git(repo, "commit", "-q", "-am", "my change")
    assert json.loads(run("validate", "--root", repo, "--changed", "--format",
                          "json")[1])["data"]["scope"]["files"] == []
    data = json.loads(run("validate", "--root", repo, "--changed=main", "--format", "json")[1])["data"]
    assert (data["scope"]["changed_since"], data["scope"]["files"]) == ("main", [DS])
    assert data["scope"]["elsewhere"]["warnings"] == 1 and data["summary"]["warnings"] == 1


def test_an_error_in_a_file_not_changed_still_shows_and_fails(repo):
    _warn_in_qa_set(repo)
    git(repo, "commit", "-q", "-am", "warned")
    path = repo / "taxonomy"
    # The contributor's change (a task removed) breaks a record they did not touch.
    tax = next(p for p in path.glob("*.yaml") if "answer_questions" in p.read_text(encoding="utf-8")
               and p.name != "taxonomy.yaml")
    text = tax.read_text(encoding="utf-8")
    tax.write_text(text.replace("answer_questions", "answer_quizzes"), encoding="utf-8")
    code, out = run("validate", "--root", repo, "--changed")
    assert code == 1, out
    assert f"{DS}:" in out and "CLR301" in out and "error(s) shown above" in out


def test_changed_outside_git_and_with_paths_is_a_usage_error(tmp_path, repo):
    plain = write_tree(tmp_path / "plain")
    code, out = run("validate", "--root", plain, "--changed")
    assert code == 2 and "is not in a git repository" in out
    code, out = run("validate", "--root", repo, "--changed=no-such-ref")
    assert code == 2 and "no-such-ref is not a commit" in out
    code, out = run("validate", "--root", repo, "--changed", "HEAD", DS)
    assert code == 2 and "PATHS or --changed, not both" in out
