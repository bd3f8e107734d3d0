"""A record beyond MedHELM, added to a copy of the registry as CONTRIBUTING says, passes every content test unedited.

The content checks of tests/test_registry_content.py and the as-distributed build of
tests/loaders/test_as_distributed.py run on the copy, so no test needs editing when a contributor adds a record.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from clinreg.cli.main import main
from clinreg.core.paths import embedded_root
from clinreg.core.store import load_registry
from loaders.test_as_distributed import check_builds_as_distributed
from test_registry_content import check_current_totals, run_content_checks

# The worked example of CONTRIBUTING.md's "The test writer", as a contributor would copy it.
WRITER = '''"""As-distributed fixture for `triage_notes` (GitHub example-health/triage-notes at its pinned commit).

SHAPE: data/test.csv, UTF-8 CSV with a header row: note_id, note, urgency (routine, same_day or emergency).
Rows with an empty urgency are unlabelled drafts, which the record's filter drops.
"""
import csv
import pathlib

FILLED_IN = True
ROWS = [("n1", "Refill request for lisinopril.", "routine"),
        ("n2", "Lips swelling after the new antibiotic.", "emergency"),
        ("n3", "Draft, not triaged yet.", "")]
LETTER = {"routine": "A", "same_day": "B", "emergency": "C"}


def write(folder: pathlib.Path) -> dict:
    path = folder / "data" / "test.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([("note_id", "note", "urgency"), *ROWS])
    kept = [r for r in ROWS if r[2]]
    return {"splits": {"test": [{"gold": LETTER[u], "input_must_contain": [note]} for _, note, u in kept]},
            "dropped": {"test": len(ROWS) - len(kept)}}
'''

RECORD = """\
# yaml-language-server: $schema=../../schemas/dataset.schema.json
id: triage_notes
name: Triage Notes
version: 1.0.0
added_in: {release}
in_medhelm: false
description: Patient-portal notes, each labelled by a nurse with how soon it needs a reply. The benchmark asks for the urgency.
access: {{tier: public}}
licence: {{spdx: CC-BY-4.0, note: The repository's LICENSE file.}}
citation: {{text: Example Health (2026). Triage Notes., url: "https://github.com/example-health/triage-notes"}}
source:
  type: github
  repo: example-health/triage-notes
  commit: 0123456789abcdef0123456789abcdef01234567
  paths: [data/test.csv]
  read:
    splits:
      test: {{files: data/test.csv}}
mappings:
  - id: triage_notes
    tasks: [triage_patient_messages_by_urgency]
    splits: [test]
    input_template: "Patient message: {{{{ note }}}}"
    choices: {{fixed: [routine, same day, emergency]}}
    label: {{encoding: string_set, column: urgency, map: {{routine: A, same_day: B, emergency: C}}}}
    filters:
      - keep: urgency
        why: A draft without an urgency cannot be scored.
    fields_read: [note_id, note, urgency]
    metric: {{name: exact_match}}
    instances: {{source: 3, evaluated: null}}
"""


def copy_of_the_registry(dest: Path) -> Path:
    src = embedded_root()
    for folder in ("registry", "taxonomy", "schemas"):
        if (src / folder).is_dir():
            shutil.copytree(src / folder, dest / folder)
    (dest / "tests" / "loaders" / "distributions").mkdir(parents=True)
    return dest


def _cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def fill(skeleton: str, release: str) -> str:
    """What a contributor does by hand: every TODO of the GitHub skeleton replaced by the record's values."""
    record = yaml.safe_load(skeleton)
    filled = yaml.safe_load(RECORD.format(release=release))
    assert record["source"]["type"] == "github" and "commit" in record["source"] and "revision" not in record["source"]
    assert record["in_medhelm"] is False and record["added_in"] == release
    assert set(filled) - {"mappings"} <= set(record) | {"notes"}, "the skeleton has every top-level field"
    return "# yaml-language-server: $schema=../../schemas/dataset.schema.json\n" + yaml.safe_dump(filled, sort_keys=False)


@pytest.fixture(scope="module")
def contributed(tmp_path_factory):
    root = copy_of_the_registry(tmp_path_factory.mktemp("clone"))
    newest = load_registry(root).releases.releases[-1].version
    major, minor, _ = (int(p) for p in newest.split("."))
    release = f"{major}.{minor + 1}.0"
    _cli("new", "release", release, "--root", str(root), "--title", "Adds triage_notes")
    out = _cli("new", "dataset", "triage_notes", "--root", str(root), "--source", "github", "--repo",
               "example-health/triage-notes", "--name", "Triage Notes", "--access", "public",
               "--task", "triage_patient_messages_by_urgency")
    assert "wrote tests/loaders/distributions/triage_notes.py" in out
    path = root / "registry" / "datasets" / "triage_notes.yaml"
    path.write_text(fill(path.read_text(encoding="utf-8"), release), encoding="utf-8")
    writer = root / "tests" / "loaders" / "distributions" / "triage_notes.py"
    assert "FILLED_IN = False" in writer.read_text(encoding="utf-8")
    writer.write_text(WRITER, encoding="utf-8")
    return root


def test_content_checks_pass_on_a_tree_with_a_record_beyond_medhelm(contributed):
    run_content_checks(contributed)
    totals = load_registry(contributed)
    assert len(totals.datasets) == len(load_registry(embedded_root()).datasets) + 1


def test_the_contributed_record_builds_from_its_writer(contributed, tmp_path):
    record = load_registry(contributed).datasets["triage_notes"]
    check_builds_as_distributed(record, tmp_path, writers=contributed / "tests" / "loaders" / "distributions")


def test_the_contributed_record_builds_from_a_copy_with_the_cli(contributed, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("writer_triage", contributed / "tests" / "loaders" / "distributions" / "triage_notes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write(tmp_path / "mirror" / "example-health__triage-notes")
    result = CliRunner().invoke(main, ["build", "triage_notes", "--root", str(contributed), "--data-dir", str(tmp_path / "mirror"),
                                       "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    golds = [json.loads(line)["answer"] for line in result.stdout.splitlines() if line.startswith("{")]
    assert golds == ["A", "C"]


def test_a_record_marked_in_medhelm_that_medhelm_does_not_run_fails_the_checks(contributed, tmp_path):
    root = copy_of_the_registry(tmp_path / "clone")
    shutil.copy(contributed / "registry" / "releases.yaml", root / "registry" / "releases.yaml")
    text = (contributed / "registry" / "datasets" / "triage_notes.yaml").read_text(encoding="utf-8")
    (root / "registry" / "datasets" / "triage_notes.yaml").write_text(text.replace("in_medhelm: false", "in_medhelm: true"))
    with pytest.raises(AssertionError):
        check_current_totals(root)  # MedHELM's own count would no longer be 37
