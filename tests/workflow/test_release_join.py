"""`new dataset` joins the open release: the id goes into its `datasets_added` and README's row counts the record."""

from __future__ import annotations

import pytest
import yaml

from clinreg.contrib.releases import ReleaseRefused, join_open_release, readme_join
from clinreg.core.model import ReleaseHistory

HEAD = """\
# comments stay
current: 1.2.0
releases:
  - version: 1.1.0
    date: 2025-01-01
    title: First
    status: published
    datasets_added: [a_set]
  - version: 1.2.0
    date: 2025-03-01
    title: Next
    status: open
"""


def _joined(text: str, new: str = "new_set") -> tuple[str, list[str]]:
    history = ReleaseHistory.model_validate(yaml.safe_load(text))
    out = join_open_release(text, history, new)
    after = ReleaseHistory.model_validate(yaml.safe_load(out))
    assert after.releases[0] == history.releases[0]
    assert out.startswith("# comments stay\n")
    return out, after.releases[-1].datasets_added


@pytest.mark.parametrize("tail, before", [
    ("", []),
    ("    datasets_added: []\n", []),
    ("    datasets_added: [b_set, c_set]\n    notes: >-\n      Open.\n", ["b_set", "c_set"]),
    ("    datasets_added: [b_set,\n                     c_set]\n    notes: Open.\n", ["b_set", "c_set"]),
    ("    datasets_added:\n    - b_set\n    - c_set\n    notes: Open.\n", ["b_set", "c_set"]),
    ("    datasets_added:\n      - b_set\n    notes: Open.\n", ["b_set"]),
])
def test_the_id_joins_the_open_releases_list_in_any_layout(tail, before):
    out, ids = _joined(HEAD + tail)
    assert ids == [*before, "new_set"]
    if "notes" in tail:
        assert yaml.safe_load(out)["releases"][-1]["notes"].startswith("Open")


def test_a_long_list_wraps_under_its_first_item():
    out, ids = _joined(HEAD + "    datasets_added: [" + ", ".join(f"set_{i:02d}" for i in range(20)) + "]\n")
    assert len(ids) == 21 and all(len(line) <= 116 for line in out.splitlines())


def test_no_open_release_is_refused():
    text = HEAD.replace("status: open", "status: published")
    with pytest.raises(ReleaseRefused):
        join_open_release(text, ReleaseHistory.model_validate(yaml.safe_load(text)), "new_set")


ROW = "| release | date | datasets | access public/gated/private | added |\n|---|---|---|---|---|\n"


@pytest.mark.parametrize("cell, tier, want", [
    ("| 1.2.0 | 2025-03-01 | 4 | 2 / 1 / 1 | none yet (open): Next |", "gated",
     "| 1.2.0 | 2025-03-01 | 5 | 2 / 2 / 1 | open: new_set |"),
    ("| 1.2.0 | 2025-03-01 | 5 | 3 / 1 / 1 | open: b_set (not in MedHELM) |", "public",
     "| 1.2.0 | 2025-03-01 | 6 | 4 / 1 / 1 | open: b_set, new_set (not in MedHELM) |"),
])
def test_the_open_releases_readme_row_counts_the_record(cell, tier, want):
    text = "intro\n\n" + ROW + "| 1.1.0 | 2025-01-01 | 4 | 2 / 1 / 1 | a_set |\n" + cell + "\n\nafter\n"
    out = readme_join(text, "1.2.0", tier, "new_set")
    assert out == text.replace(cell, want)


def test_a_readme_without_the_row_is_left_to_the_contributor():
    assert readme_join("no table here\n", "1.2.0", "public", "new_set") is None
    assert readme_join(ROW + "| 1.1.0 | 2025-01-01 | 4 | 2 / 1 / 1 | a_set |\n", "1.2.0", "public", "new_set") is None


@pytest.mark.slow
def test_new_dataset_joins_the_release_or_says_what_to_do_by_hand(tmp_path):
    from trees import write_tree
    from workflow.helpers import new_dataset, run

    from clinreg.cli.main import main

    root = write_tree(tmp_path / "reg")
    assert run(main, "new", "release", "1.2.0", "--root", root, "--title", "Next").exit_code == 0
    result = new_dataset(root, "new_set", "--task", "answer_questions")
    assert result.exit_code == 0, result.output
    assert "added new_set to release 1.2.0's datasets_added in registry/releases.yaml" in result.output
    releases = yaml.safe_load((root / "registry/releases.yaml").read_text())["releases"]
    assert releases[-1]["datasets_added"] == ["new_set"]
    # A releases.yaml whose open entry holds a flow mapping is not edited: the record is written, the step named.
    path = root / "registry/releases.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rsplit("  - version: 1.2.0", 1)[0] + "  - {version: 1.2.0, date: 2025-03-01, title: Next, "
                    "status: open, datasets_added: [new_set]}\n", encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    result = new_dataset(root, "other_set", "--task", "answer_questions")
    assert result.exit_code == 0, result.output
    assert "add other_set to release 1.2.0's datasets_added in registry/releases.yaml" in result.output
    assert path.read_text(encoding="utf-8") == before
