"""CONTRIBUTING.md's example outputs are what the commands it shows print, run on a copy of the registry.

Each example is read from the guide: the commands from its `sh` blocks, the output from the plain block after them.
A `…` in a shown line stands for text that depends on the registry's content (counts of other records' findings);
everything else must match a line of the real output exactly.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.main import main
from test_contributor_record import copy_of_the_registry

GUIDE = (Path(__file__).resolve().parents[1] / "CONTRIBUTING.md").read_text(encoding="utf-8")


def blocks(after: str, lang: str) -> list[str]:
    """The fenced blocks of language `lang` ('' for plain) in the section that starts at heading `after`."""
    start = GUIDE.index(after)
    nxt = re.search(r"^#{2,4} ", GUIDE[start + len(after):], re.MULTILINE)
    section = GUIDE[start: start + len(after) + nxt.start()] if nxt else GUIDE[start:]
    fences = re.findall(r"^```(\w*)\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)  # opening and closing in pairs
    return [body for kind, body in fences if kind == lang]


def command(block: str) -> list[str]:
    """The `uv run clinreg ...` command of an sh block (continuation lines joined, comments dropped)."""
    text = block.replace("\\\n", " ")
    line = next(cmd for cmd in text.splitlines() if cmd.strip().startswith("uv run clinreg"))
    return shlex.split(line.split("#")[0])[3:]


def matches(shown: str, real: list[str]) -> bool:
    pattern = "^" + ".+".join(re.escape(part) for part in shown.split("…")) + "$"
    return any(re.match(pattern, line) for line in real)


def assert_shown(block: str, output: str) -> None:
    real = output.splitlines()
    missing = [line for line in block.splitlines() if line.strip() and not matches(line, real)]
    assert missing == [], f"the guide shows lines the command does not print:\n{missing}\nreal output:\n{output}"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.org", "-c", "user.name=T", "-c", "commit.gpgsign=false", *args],
                   cwd=root, check=True, capture_output=True)


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A git clone of the registry with a release open, and the Portal Triage card where the guide puts it."""
    root = copy_of_the_registry(tmp_path_factory.mktemp("clone"))
    (root / "README.md").write_text((Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8"),
                                    encoding="utf-8")
    from clinreg.core.store import load_registry

    if load_registry(root).open_release is None:
        newest = load_registry(root).releases.releases[-1].version
        major, minor, _ = (int(p) for p in newest.split("."))
        released = invoke(main, ["new", "release", f"{major}.{minor + 1}.0", "--root", str(root), "--title", "t"])
        assert released.exit_code == 0
    [card] = blocks("## Adding a dataset, step by step", "yaml")
    folder = root / "mirror" / "example-health__portal-triage"
    folder.mkdir(parents=True)
    (folder / "README.md").write_text(card + "# Portal Triage\n", encoding="utf-8")
    (root / ".gitignore").write_text("mirror/\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "clone")
    return root


def run_in(root: Path, args: list[str]) -> tuple[int, str]:
    import os

    here = os.getcwd()
    os.chdir(root)  # the guide runs every command from the repository root
    try:
        result = invoke(main, args)
    finally:
        os.chdir(here)
    return result.exit_code, result.output


def test_scaffold_step_prints_what_the_guide_shows(clone):
    sh, shown = blocks("### 2. Scaffold the record", "sh")[0], blocks("### 2. Scaffold the record", "")[0]
    code, out = run_in(clone, command(sh))
    assert code == 0, out
    assert_shown(shown, out)
    assert len(out.splitlines()) == len(shown.splitlines())  # nothing printed that the guide leaves out


def test_validate_changed_prints_what_the_guide_shows(clone):
    if not (clone / "registry/datasets/portal_triage.yaml").exists():
        run_in(clone, command(blocks("### 2. Scaffold the record", "sh")[0]))
    sh, shown = blocks("### 5. Validate", "sh")[0], blocks("### 5. Validate", "")[0]
    code, out = run_in(clone, command(sh))
    assert code == 0, out
    assert_shown(shown, out)
    assert "portal_triage.yaml" in out and "med_qa.yaml" not in out


def test_the_unquoted_yes_example_is_what_validate_prints(clone, tmp_path):
    path = clone / "registry/datasets/pubmed_qa.yaml"
    before = path.read_text(encoding="utf-8")
    quoted = 'map: {"yes": A, "no": B, "maybe": C}'
    assert quoted in before
    shown = blocks("#### Quote your values", "")[0]
    try:
        path.write_text(before.replace(quoted, "map: {yes: A, no: B, maybe: C}"), encoding="utf-8")
        code, out = run_in(clone, ["validate", "registry/datasets/pubmed_qa.yaml"])
    finally:
        path.write_text(before, encoding="utf-8")
    assert code == 1
    assert_shown(shown, out)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert shown in readme  # the README's validate section shows the same example


def test_an_elided_line_still_has_to_match():
    assert matches("0 error(s), … warning(s)", ["0 error(s), 51 warning(s)"])
    assert not matches("0 error(s), … warning(s)", ["1 error(s), 51 warning(s)"])
    assert not matches("0 error(s)", ["0 error(s), 51 warning(s)"])


# What a contributor writes for Portal Triage where the skeleton says TODO: facts no card gives.
HUMAN = {
    "description": "Patient-portal messages, each labelled by a nurse with how soon it needs a reply. The benchmark "
                   "asks for the urgency.",
    "measures": "Whether a model sorts patient-portal messages by urgency as a triage nurse did.",
    "use_when": "Comparing models for routing patient messages.",
    "not_for": "Not evidence that a model can triage safely without a nurse.",
    "languages": {"value": ["en"], "source": "The dataset card."},
    "first_released": {"value": "2026", "source": "The repository's first commit."},
    "status": {"value": "active", "source": "The dataset card."},
    "maintainer": {"value": "Example Health", "source": "The dataset card."},
    "independence": {"value": "not assessed", "reason": "No source read says who runs the models."},
}


@pytest.fixture(scope="module")
def walked(tmp_path_factory):
    """CONTRIBUTING's walk-through on a fresh clone where no release is open: `new release`, then `new dataset`."""
    import yaml

    root = copy_of_the_registry(tmp_path_factory.mktemp("fresh"))
    (root / "README.md").write_text((Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8"),
                                    encoding="utf-8")
    releases = root / "registry" / "releases.yaml"
    releases.write_text(releases.read_text(encoding="utf-8").replace("status: open", "status: published"),
                        encoding="utf-8")
    from clinreg.core.store import load_registry

    reg = load_registry(root)
    assert reg.open_release is None
    major, minor, _ = (int(p) for p in reg.releases.releases[-1].version.split("."))
    release = f"{major}.{minor + 1}.0"
    [card] = blocks("## Adding a dataset, step by step", "yaml")
    folder = root / "mirror" / "example-health__portal-triage"
    folder.mkdir(parents=True)
    (folder / "README.md").write_text(card, encoding="utf-8")
    (root / ".gitignore").write_text("mirror/\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "clone")
    code, out = run_in(root, command(blocks("### 2. Scaffold the record", "sh")[0]))
    assert code == 2 and f"clinreg new release {release}" in out  # no release is open: it names the command
    code, out = run_in(root, ["new", "release", release, "--title", "Adds portal_triage"])
    assert code == 0, out
    code, out = run_in(root, command(blocks("### 2. Scaffold the record", "sh")[0]))
    assert code == 0, out
    path = root / "registry/datasets/portal_triage.yaml"
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    record.update(HUMAN)
    record["licence"]["note"] = "The dataset card (`license: cc-by-4.0`) and the repository's LICENSE file."
    record["citation"]["text"] = "Example Health (2026). Portal Triage."
    record["citation"]["url"] = "https://huggingface.co/datasets/example-health/portal-triage"
    record["source"]["revision"] = "3f2a9c1b7d4e5f60718293a4b5c6d7e8f9012345"
    path.write_text("# yaml-language-server: $schema=../../schemas/dataset.schema.json\n"
                    + yaml.safe_dump(record, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return root, release


def test_the_walk_through_ends_with_validate_clean(walked):
    root, release = walked
    code, out = run_in(root, ["validate", "--changed"])
    assert code == 0, out
    # the record and the release it joined, both clean
    assert "0 error(s), 0 warning(s), 0 info(s) in 2 file(s)" in out.splitlines(), out
    code, out = run_in(root, ["validate", "--strict"])
    assert code == 0, out


@pytest.mark.slow
def test_the_walk_through_keeps_the_readme_release_table_true(walked):
    from test_readme_releases import check_release_table

    root, release = walked
    check_release_table(root, (root / "README.md").read_text(encoding="utf-8"))
