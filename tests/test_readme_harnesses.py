"""README's "Running an export" names the harness versions pyproject's [tool.clinreg.harnesses] pins, and so does CI.

A version in a README command drifts silently; here every `--with NAME==VERSION` and `install NAME==VERSION` of the
section must be the pinned one, every pinned harness must have a command, and .ci/run may pin no other version.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
HARNESS_COMMANDS = {"inspect-ai": "inspect eval", "lm-eval": "lm_eval", "crfm-helm": "helm-run"}


def pinned() -> dict[str, str]:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    table = re.search(r"^\[tool\.clinreg\.harnesses\]\n(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL).group(1)
    return dict(re.findall(r'^([\w-]+)\s*=\s*"([^"]+)"', table, re.MULTILINE))


def section() -> str:
    start = README.index("#### Running an export")
    return README[start: README.index("\n#### ", start + 1)]


def named_versions(text: str) -> list[tuple[str, str]]:
    """(package, version) for each `NAME==VERSION` or `'NAME[extra]==VERSION'` in the text."""
    return [(name.lower(), version) for name, version in
            re.findall(r"(?<![\w.-])([A-Za-z][\w.-]*)(?:\[[\w,]+\])?==([\w.+-]+)", text)]


def test_every_harness_version_in_the_readme_is_the_pinned_one():
    pins = pinned()
    assert set(pins) == set(HARNESS_COMMANDS)
    found = named_versions(section())
    assert found, "the section names no versions"
    wrong = [(name, version) for name, version in found if name in pins and pins[name] != version]
    assert wrong == [], f"README names {wrong}; pyproject pins {pins}"
    assert {name for name, _ in found} >= set(pins), "every pinned harness has a command"


def test_each_harness_command_names_its_pinned_package():
    text = section()
    for name, command in HARNESS_COMMANDS.items():
        lines = [line for line in text.splitlines() if command in line and not line.startswith(("`", "Swap"))]
        assert lines, f"no `{command}` command for {name}"
    for line in text.splitlines():
        if line.startswith("uv run --") and ("inspect eval" in line or "lm_eval" in line):
            assert re.search(r"--with '?(inspect-ai|lm-eval)(\[\w+\])?==", line), line


def test_ci_pins_no_other_version_of_a_harness():
    run = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    pins = pinned()
    wrong = [(name, version) for name, version in named_versions(run) if name in pins and pins[name] != version]
    assert wrong == [], f".ci/run installs {wrong}; pyproject pins {pins}"
