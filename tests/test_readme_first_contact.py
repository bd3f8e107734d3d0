"""What a first-time user reads in the README (issue 52): a build example whose --data-dir is a folder the user
makes and fills as `clinreg show` says, HELM's offline test model beside Inspect's and lm-eval's, and HELM's venv
read by `medhelm diff --env`; and the commands it names exist with those options."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from clinreg.cli.main import main

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def _blocks() -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", README, flags=re.S)


def test_the_build_example_uses_a_folder_the_user_makes_and_fills_from_clinreg_show():
    assert "../shared/realdata --limit" not in README
    [block] = [b for b in _blocks() if "clinreg build pubmed_qa" in b]
    lines = block.splitlines()
    made = next(line.split()[-1] for line in lines if line.startswith("mkdir"))
    build = next(line for line in lines if line.startswith("clinreg build"))
    assert f"--data-dir {made}" in build and "clinreg show pubmed_qa" in block
    # the folder the example fills is the one `clinreg show` names
    shown = CliRunner().invoke(main, ["show", "pubmed_qa", "--root", str(REPO)]).output
    folder = re.search(r"folder: DIR/(\S+)/", shown).group(1)
    assert f"{made}/{folder}" in block


def test_helm_has_an_offline_test_model_named_beside_the_others():
    section = README[README.index("#### Running an export"):]
    section = section[:section.index("\n#### ", 1)]
    assert all(name in section for name in ("`simple/model1`", "`mockllm/model`", "`dummy`"))


def test_helms_venv_is_read_by_medhelm_diff_env():
    [block] = [b for b in _blocks() if "crfm-helm" in b and "helm-run" in b]
    venv = re.search(r"python3 -m venv (\S+)", block).group(1)
    assert f"clinreg medhelm diff --env {venv}" in block
    helps = CliRunner().invoke(main, ["medhelm", "diff", "--help"]).output
    assert "--env DIR" in helps and "--python PATH" in helps
