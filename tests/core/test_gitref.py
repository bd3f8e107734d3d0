"""Opening a registry by name (core/gitref.py): a folder, else a release, else a git ref, each loaded as it stood."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from trees import write_tree

from clinreg.core.gitref import SideError, open_side


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def test_a_folder_a_release_and_a_git_ref_each_load_what_they_name(tmp_path):
    repo = write_tree(tmp_path / "repo", {"registry/datasets/plans.yaml": None})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    first = git(repo, "rev-parse", "HEAD")
    write_tree(repo)
    work = tmp_path / "work"
    work.mkdir()

    reg, side = open_side(str(repo), None, work)
    assert side == {"spec": str(repo), "kind": "folder", "root": str(repo)} and "plans" in reg.datasets
    reg, side = open_side("1.0.0", repo, work)
    assert side["kind"] == "release" and "plans" not in reg.datasets
    reg, side = open_side("HEAD", repo, work)
    assert (side["kind"], side["commit"]) == ("git", first)
    assert "plans" not in reg.datasets and reg.root.parent == work  # the commit's tree, extracted into the work folder


@pytest.mark.parametrize("spec", ["no-such-ref", "-x", ""])
def test_a_name_that_is_no_folder_release_or_ref_is_refused(tree, tmp_path, spec):
    with pytest.raises(SideError, match="not a registry folder"):
        open_side(spec, tree, tmp_path)


def test_a_folder_that_is_no_registry_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SideError, match="not a registry tree"):
        open_side(str(tmp_path / "empty"), None, tmp_path)
