"""A record beyond MedHELM, added to a copy of the registry as CONTRIBUTING says, passes every content test unedited.

The content checks of tests/test_registry_content.py and the as-distributed build of
tests/instances/test_as_distributed.py run on the copy, so no test needs editing when a contributor adds a record.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from clirunner import invoke

from clinreg.cli.main import main
from clinreg.core.paths import embedded_root
from clinreg.core.store import load_registry
from instances.test_as_distributed import check_builds_as_distributed
from test_registry_content import check_current_totals, run_content_checks

CONTRIBUTING = (Path(__file__).resolve().parents[1] / "CONTRIBUTING.md").read_text(encoding="utf-8")


def _block(after: str, lang: str, nth: int = 0) -> str:
    """The nth fenced `lang` block after the heading `after` in CONTRIBUTING.md: the docs are what the test runs."""
    text = CONTRIBUTING[CONTRIBUTING.index(after):]
    blocks = re.findall(r"^( *)```" + lang + r"\n(.*?)^\1```", text, re.MULTILINE | re.DOTALL)
    indent, body = blocks[nth]
    return "".join(line[len(indent):] + "\n" for line in body.splitlines())


# The worked example of CONTRIBUTING.md: its test writer, and the source and mapping of its GitHub record.
WRITER = _block("#### The test writer", "python")
WORKED = yaml.safe_load(_block("### A worked example: a GitHub source", "yaml"))

RECORD_TOP = """\
id: triage_notes
name: Triage Notes
version: 1.0.0
added_in: {release}
in_medhelm: false
description: Patient-portal notes, each labelled by a nurse with how soon it needs a reply. The benchmark asks for the \
urgency.
measures: Whether a model sorts patient-portal notes by how soon they need a reply as a triage nurse did.
use_when: Comparing models for routing patient messages.
not_for: Not evidence that a model can triage safely without a nurse.
languages: {{value: [en], source: The repository's README.}}
first_released: {{value: '2025', source: The repository's first commit.}}
status: {{value: active, source: The repository's README.}}
maintainer: {{value: Example Health, source: The repository's README.}}
independence: {{value: not assessed, reason: No source read says who runs the models.}}
access: {{tier: public}}
licence: {{spdx: CC-BY-4.0, note: The repository's LICENSE file.}}
citation: {{text: Example Health (2026). Triage Notes., url: "https://github.com/example-health/triage-notes"}}
"""


def full_record(release: str) -> dict:
    return {**yaml.safe_load(RECORD_TOP.format(release=release)), **WORKED}


def copy_of_the_registry(dest: Path) -> Path:
    src = embedded_root()
    for folder in ("registry", "taxonomy", "schemas"):
        if (src / folder).is_dir():
            shutil.copytree(src / folder, dest / folder)
    (dest / "tests" / "distributions").mkdir(parents=True)
    return dest


def _cli(*args: str) -> str:
    result = invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def fill(skeleton: str, release: str) -> str:
    """What a contributor does by hand: every TODO of the GitHub skeleton replaced by the record's values."""
    record = yaml.safe_load(skeleton)
    filled = full_record(release)
    assert record["source"]["type"] == "github" and "commit" in record["source"] and "revision" not in record["source"]
    assert record["in_medhelm"] is False and record["added_in"] == release
    assert set(filled) - {"mappings"} <= set(record) | {"notes"}, "the skeleton has every top-level field"
    return "# yaml-language-server: $schema=../../schemas/dataset.schema.json\n" + yaml.safe_dump(filled,
                                                                                                  sort_keys=False)


@pytest.fixture(scope="module")
def contributed(tmp_path_factory):
    root = copy_of_the_registry(tmp_path_factory.mktemp("clone"))
    release = load_registry(root).open_release
    if release is None:  # every release is published: open the next, as CONTRIBUTING's worked example says
        newest = load_registry(root).releases.releases[-1].version
        major, minor, _ = (int(p) for p in newest.split("."))
        release = f"{major}.{minor + 1}.0"
        _cli("new", "release", release, "--root", str(root), "--title", "Adds triage_notes")
    out = _cli("new", "dataset", "triage_notes", "--root", str(root), "--source", "github", "--repo",
               "example-health/triage-notes", "--name", "Triage Notes", "--access", "public",
               "--task", "triage_patient_messages_by_urgency")
    assert "wrote tests/distributions/triage_notes.py" in out
    path = root / "registry" / "datasets" / "triage_notes.yaml"
    path.write_text(fill(path.read_text(encoding="utf-8"), release), encoding="utf-8")
    writer = root / "tests" / "distributions" / "triage_notes.py"
    assert "FILLED_IN = False" in writer.read_text(encoding="utf-8")
    writer.write_text(WRITER, encoding="utf-8")
    return root


@pytest.mark.slow
def test_content_checks_pass_on_a_tree_with_a_record_beyond_medhelm(contributed):
    run_content_checks(contributed)
    totals = load_registry(contributed)
    assert len(totals.datasets) == len(load_registry(embedded_root()).datasets) + 1


def test_the_contributed_record_builds_from_its_writer(contributed, tmp_path):
    record = load_registry(contributed).datasets["triage_notes"]
    check_builds_as_distributed(record, tmp_path, writers=contributed / "tests" / "distributions")


def test_the_contributed_record_builds_from_a_copy_with_the_cli(contributed, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("writer_triage",
                                                  contributed / "tests" / "distributions" / "triage_notes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write(tmp_path / "mirror" / "example-health__triage-notes")
    result = invoke(main, ["build", "triage_notes", "--root", str(contributed), "--data-dir", str(tmp_path / "mirror"),
                           "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    golds = [json.loads(line)["answer"] for line in result.stdout.splitlines() if line.startswith("{")]
    assert golds == ["A", "C"]


def test_a_record_marked_in_medhelm_that_medhelm_does_not_run_fails_the_checks(contributed, tmp_path):
    root = copy_of_the_registry(tmp_path / "clone")
    shutil.copy(contributed / "registry" / "releases.yaml", root / "registry" / "releases.yaml")
    text = (contributed / "registry" / "datasets" / "triage_notes.yaml").read_text(encoding="utf-8")
    (root / "registry" / "datasets" / "triage_notes.yaml").write_text(text.replace("in_medhelm: false",
                                                                                   "in_medhelm: true"))
    # Membership follows MedHELM's editions, not the record: the counts stay MedHELM's, and validate refuses the
    # record's claim (CLR308), naming the record and the default edition.
    check_current_totals(root)
    result = invoke(main, ["validate", "--root", str(root), "--format", "json"])
    found = [d for d in json.loads(result.output)["data"]["diagnostics"] if d["code"] == "CLR308"]
    assert result.exit_code == 1 and [d["file"] for d in found] == ["registry/datasets/triage_notes.yaml"]


def test_contributing_says_to_commit_the_record_and_its_writer():
    assert "Commit only" not in CONTRIBUTING
    assert "its test writer, `tests/distributions/<id>.py`" in CONTRIBUTING
    assert "the release it joins: `registry/releases.yaml` and README.md's\nrelease table" in CONTRIBUTING
    # A copy is read as distributed: no card is needed where the record has a read step.
    assert "no `README.md` or card is read" in CONTRIBUTING
