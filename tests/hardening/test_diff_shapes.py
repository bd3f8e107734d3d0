"""Every shape of change `clinreg diff` reports, in every format, through the real CLI: never a traceback.

CI runs `clinreg diff "$BASE" HEAD --format markdown` on every pull request, so a shape the templates do not
expect (a removed task once lacked a field the Markdown template read) breaks the coverage step of any pull
request that makes that change. Each case changes one thing between two trees, then both formats must render it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from trees import CATEGORY, DATASET, DATASET2, replace_in, write_tree

from .support import assert_no_traceback, run_cli

RANK = """      - id: rank_differentials
        name: Rank differentials
        definition: Rank candidate diagnoses.
        provenance: {kind: drafted}
        review: {status: proposed}
"""
TREATMENT = """  - id: treatment
    name: Treatment
    definition: Deciding what to do.
    tasks:
      - id: plan_treatment
        name: Plan treatment
        definition: Write a treatment plan.
        provenance: {kind: drafted}
        review: {status: proposed}
"""
EXTRA_TASK = RANK.replace("rank_differentials", "order_tests").replace("Rank differentials", "Order tests").replace(
    "Rank candidate diagnoses.", "Choose the tests to order.")


def _added_dataset() -> str:
    text = replace_in(replace_in(DATASET, "id: qa_set", "id: extra"), "name: QA set", "name: Extra set")
    return replace_in(replace_in(text, "repo: owner/qa_set", "repo: owner/extra"), "  - id: qa_set\n",
                      "  - id: extra\n")


# shape -> (files of the OLD tree, files of the NEW tree, (kind, change) the JSON must list)
SHAPES = {
    "task-added": ({}, {"taxonomy/care.yaml": replace_in(CATEGORY, RANK, RANK + EXTRA_TASK)}, ("tasks", "added")),
    "task-removed": ({}, {"taxonomy/care.yaml": replace_in(CATEGORY, RANK, "")}, ("tasks", "removed")),
    "task-renamed": ({}, {"taxonomy/care.yaml": replace_in(CATEGORY, "id: rank_differentials", "id: rank_diagnoses")},
                     ("tasks", "renamed")),
    "task-moved": ({}, {"taxonomy/care.yaml": replace_in(CATEGORY, RANK, "") + RANK}, ("tasks", "moved")),
    "task-changed": ({}, {"taxonomy/care.yaml": replace_in(CATEGORY, "Rank candidate diagnoses.",
                                                           "Order the candidates.")},
                     ("tasks", "changed")),
    "dataset-added": ({}, {"registry/datasets/extra.yaml": _added_dataset()}, ("datasets", "added")),
    "dataset-removed": ({}, {"registry/datasets/plans.yaml": None}, ("datasets", "removed")),
    "dataset-renamed": ({}, {"registry/datasets/qa_set.yaml": None,
                             "registry/datasets/qa_questions.yaml": replace_in(DATASET, "id: qa_set",
                                                                               "id: qa_questions")},
                        ("datasets", "renamed")),
    "dataset-moved": ({}, {"registry/datasets/plans.yaml": replace_in(DATASET2, "tasks: [plan_treatment]",
                                                                      "tasks: [rank_differentials]")},
                      ("datasets", "moved")),
    "dataset-changed": ({}, {"registry/datasets/qa_set.yaml": replace_in(DATASET, "spdx: MIT", "spdx: Apache-2.0")},
                        ("datasets", "changed")),
    "dataset-removed-in-release": ({}, {"registry/datasets/plans.yaml": replace_in(DATASET2, "added_in: 1.1.0",
                                                                                   "added_in: 1.1.0\nremoved_in: "
                                                                                   "1.1.0")},
                                   ("datasets", "changed")),
    "subcategory-removed": ({}, {"taxonomy/care.yaml": replace_in(CATEGORY, TREATMENT, ""),
                                 "registry/datasets/plans.yaml": None}, ("subcategories", "removed")),
    "subcategory-added": ({"taxonomy/care.yaml": replace_in(CATEGORY, TREATMENT, ""),
                           "registry/datasets/plans.yaml": None},
                          {}, ("subcategories", "added")),
    "subcategory-renamed": ({}, {"taxonomy/care.yaml": replace_in(CATEGORY, "id: treatment", "id: therapy")},
                            ("subcategories", "renamed")),
    "subcategory-changed": ({}, {"taxonomy/care.yaml": replace_in(CATEGORY, "Deciding what to do.",
                                                                  "Choosing a plan.")},
                            ("subcategories", "changed")),
    "category-changed": ({}, {"taxonomy/care.yaml": replace_in(CATEGORY, "Work done while caring",
                                                               "Work done in caring")},
                         ("categories", "changed")),
}


@pytest.mark.parametrize("fmt", ["markdown", "json"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_diff_shape_renders_in_every_format(tmp_path, shape, fmt):
    old_files, new_files, (kind, change) = SHAPES[shape]
    old = write_tree(tmp_path / "old", old_files)
    new = write_tree(tmp_path / "new", new_files)
    before = {p: p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()}

    result = run_cli("diff", str(old), str(new), "--format", fmt)

    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    if fmt == "json":
        data = json.loads(result.stdout)["data"]  # inside the --format json envelope
        assert data[kind][change], f"{shape}: expected {kind}.{change} in {data['summary']}"
    else:
        assert result.stdout.startswith("## Registry changes:")
        singular = {"tasks": "task", "datasets": "dataset", "subcategories": "subcategory",
                    "categories": "category"}[kind]
        verb = {"changed": "edited"}.get(change, change)
        if not (kind == "datasets" and change == "moved"):
            assert f"1 {singular} {verb}" in result.stdout, result.stdout
    # nothing written next to the inputs
    assert {p: p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()} == before


def test_every_shape_at_once(tmp_path):
    """All the shapes of tasks and datasets in one diff, both formats."""
    category = replace_in(replace_in(CATEGORY, RANK, EXTRA_TASK), "Write a treatment plan.", "Write a plan of care.")
    new = write_tree(tmp_path / "new", {"taxonomy/care.yaml": category,
                                        "registry/datasets/extra.yaml": _added_dataset(),
                                        "registry/datasets/plans.yaml": None})
    old = write_tree(tmp_path / "old")
    for fmt in ("markdown", "json"):
        result = run_cli("diff", str(old), str(new), "--format", fmt)
        assert_no_traceback(result)
        assert result.returncode == 0, result.stderr


def _git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org")
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_of_git_refs_refuses_an_oversized_blob_before_reading_it(tmp_path):
    """A commit holding a huge file: sizes are checked with `git cat-file` before a blob is read into memory."""
    root = write_tree(tmp_path / "repo")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    big = root / "registry" / "datasets" / "big.yaml"
    with open(big, "wb") as f:  # 2 MiB of a repeated line: small in git, over the 1 MiB file limit
        f.write(b"# padding\n" * (2 * 1024 * 1024 // 10))
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "a pull request adds a huge file")
    result = run_cli("diff", "HEAD~1", "HEAD", "--root", str(root))
    assert_no_traceback(result)
    assert result.returncode == 2
    line = result.stderr.strip()
    assert "\n" not in line and "registry/datasets/big.yaml" in line and "2,097,150 bytes" in line, line
    # the same commits within the limit
    small = run_cli("diff", "HEAD~1", "HEAD~1", "--root", str(root))
    assert small.returncode == 0, small.stderr
