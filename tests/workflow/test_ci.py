"""The CI files: the pull-request workflow's own commands, run in a scratch git repository, and the pre-commit hook."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from clinreg.cli.main import main
from trees import DATASET, write_tree

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github/workflows/pr.yml"
CLINREG = [sys.executable, "-c", "from clinreg.cli.main import main; main()"]


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _step(name_part: str) -> dict:
    steps = _workflow()["jobs"]["registry"]["steps"]
    return next(s for s in steps if name_part in s.get("name", ""))


def _clinreg_line(script: str, subcommand: str) -> list[str]:
    """The `uv run clinreg SUBCOMMAND ...` line of a step, as clinreg arguments."""
    line = next(cmd for cmd in script.splitlines() if f"clinreg {subcommand}" in cmd)
    words = shlex.split(line.strip())
    return words[words.index("clinreg") + 1:]


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def pull_request(tmp_path) -> Path:
    """A clone whose `origin/main` holds the good tree and whose HEAD changed a record without bumping its version."""
    upstream = write_tree(tmp_path / "upstream")
    _git(upstream, "init", "-q", "-b", "main")
    _git(upstream, "add", ".")
    _git(upstream, "commit", "-q", "-m", "base")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(upstream), str(clone))
    _git(clone, "checkout", "-q", "-b", "change")
    record = clone / "registry/datasets/qa_set.yaml"
    record.write_text(DATASET.replace("licence: {spdx: MIT}", "licence: {spdx: CC-BY-4.0}"), encoding="utf-8")
    _git(clone, "commit", "-q", "-am", "change the licence, forget the version")
    return clone


def _run_step(args: list[str], cwd: Path, base: str) -> subprocess.CompletedProcess:
    args = [a.replace("$BASE", base).replace("${BASE}", base) for a in args]
    return subprocess.run(CLINREG + args, cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "BASE": base})


def test_workflow_validate_step_annotates_the_unbumped_version(pull_request):
    step = _step("Validate")
    args = _clinreg_line(step["run"], "validate")
    assert (args[0] == "validate" and "--strict" in args and args[args.index("--format") + 1] == "github"
            and "--base" in args)
    base = _workflow()["jobs"]["registry"]["env"]["BASE"].replace("${{ github.base_ref }}", "main")
    assert base == "origin/main"
    result = _run_step(args, pull_request, base)
    assert result.returncode == 1, result.stdout + result.stderr
    line = DATASET.splitlines().index("version: 1.0.0") + 1
    annotations = [text for text in result.stdout.splitlines() if text.startswith("::error ")]
    assert len(annotations) == 1, result.stdout
    assert re.match(rf"::error file=registry/datasets/qa_set\.yaml,line={line},col=\d+,title=CLR603::CLR603 ",
                    annotations[0])
    assert "origin/main" in annotations[0]


def test_workflow_validate_step_passes_once_the_version_is_bumped(pull_request):
    record = pull_request / "registry/datasets/qa_set.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("version: 1.0.0", "version: 1.0.1"), encoding="utf-8")
    result = _run_step(_clinreg_line(_step("Validate")["run"], "validate"), pull_request, "origin/main")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "::error" not in result.stdout


def test_workflow_diff_step_writes_markdown(pull_request):
    if "diff" not in main.commands:
        pytest.skip("`clinreg diff` is not available in this checkout yet")
    args = _clinreg_line(_step("Coverage")["run"], "diff")
    assert args[:1] == ["diff"] and "--format" in args and "markdown" in args
    result = _run_step(args, pull_request, "origin/main")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "qa_set" in result.stdout and "CC-BY-4.0" in result.stdout  # the PR's change, ready for the job summary


def test_workflow_checks_out_full_history_and_runs_the_tests():
    steps = _workflow()["jobs"]["registry"]["steps"]
    checkout = next(s for s in steps if str(s.get("uses", "")).startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0
    scripts = "\n".join(s.get("run", "") for s in steps)
    assert "pip install uv" in scripts and "uv run pytest" in scripts and "$GITHUB_STEP_SUMMARY" in scripts
    assert "pull_request" in _workflow()[True]  # YAML 1.1 reads the key `on` as True


def test_pull_request_template_has_a_checklist():
    text = (REPO / ".github/pull_request_template.md").read_text(encoding="utf-8")
    assert text.count("- [ ]") >= 8 and "clinreg validate" in text


def test_pre_commit_hook_runs_validate_on_registry_yaml():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "clinreg-validate")
    assert hook["entry"] == "clinreg validate" and hook["language"] == "python" and hook["pass_filenames"] is False
    pattern = re.compile(hook["files"])
    assert pattern.search("taxonomy/care.yaml") and pattern.search("registry/datasets/qa_set.yml")
    assert not pattern.search("src/clinreg/model.py") and not pattern.search("README.md")


def test_workflow_commands_are_registered_on_the_main_cli():
    assert "new" in main.commands and "dataset" in main.commands["new"].commands
    assert "issue-form" in main.commands
    review = main.commands.get("review")
    if review is None:
        pytest.skip("the `review` group (cli/review.py) is not available in this checkout yet")
    assert {"approve", "reject", "request-changes"} <= set(review.commands)
