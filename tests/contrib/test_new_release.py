"""`open_next_release` and `join_release` as library calls: what they edit, what they leave by hand, and why."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml
from trees import write_tree

from clinreg.contrib.new_release import ReleaseJoin, join_release, next_minor, open_next_release
from clinreg.contrib.releases import README_TABLE_HEADER, ReleaseRefused
from clinreg.core.store import load_registry

TODAY = dt.date(2025, 3, 1)
README = (f"# Registry\n\n{README_TABLE_HEADER}\n|---|---|---|---|---|\n"
          "| 1.1.0 | 2025-02-01 | 2 | 1 / 0 / 1 | plans |\n\nend\n")


def _tree(tmp_path, readme: str | None = README):
    root = write_tree(tmp_path / "reg")
    if readme is not None:
        (root / "README.md").write_text(readme, encoding="utf-8")
    return root


def test_opening_a_release_edits_releases_and_the_readme(tmp_path):
    root = _tree(tmp_path)
    opened = open_next_release(load_registry(root), "1.2.0", "Next", TODAY)
    assert (opened.path, opened.version, opened.readme_edited) == ("registry/releases.yaml", "1.2.0", True)
    history = yaml.safe_load((root / "registry/releases.yaml").read_text(encoding="utf-8"))
    assert history["current"] == "1.2.0" and history["releases"][-1]["status"] == "open"
    assert opened.row in (root / "README.md").read_text(encoding="utf-8")
    assert opened.row.startswith("| 1.2.0 | 2025-03-01 | 2 |")


def test_a_readme_without_the_table_is_left_and_the_row_returned(tmp_path):
    root = _tree(tmp_path, readme="no table\n")
    opened = open_next_release(load_registry(root), "1.2.0", "Next", TODAY)
    assert not opened.readme_edited and (root / "README.md").read_text(encoding="utf-8") == "no table\n"


def test_a_release_that_cannot_open_writes_nothing(tmp_path):
    root = _tree(tmp_path)
    before = (root / "registry/releases.yaml").read_bytes()
    with pytest.raises(ReleaseRefused, match="does not come after"):
        open_next_release(load_registry(root), "1.0.5", "Old", TODAY)
    assert (root / "registry/releases.yaml").read_bytes() == before


def test_a_releases_file_changed_underneath_is_not_overwritten(tmp_path, monkeypatch):
    """The edit goes through the guarded write: a file changed after it was read is refused, nothing half-written."""
    import clinreg.contrib.new_release as module

    root = _tree(tmp_path)
    path = root / "registry/releases.yaml"
    real_open = module.open_release

    def open_while_edited(text, *args):
        path.write_text(text + "# an editor saved this\n", encoding="utf-8")
        return real_open(text, *args)

    monkeypatch.setattr(module, "open_release", open_while_edited)
    with pytest.raises(ReleaseRefused, match="cannot write registry/releases.yaml: changed while it was being edited"):
        open_next_release(load_registry(root), "1.2.0", "Next", TODAY)
    assert path.read_text(encoding="utf-8").endswith("# an editor saved this\n")
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_new_record_joins_the_open_release_and_the_readme_row(tmp_path):
    root = _tree(tmp_path)
    open_next_release(load_registry(root), "1.2.0", "Next", TODAY)
    joined = join_release(load_registry(root), "new_set", "gated")
    assert joined == ReleaseJoin("new_set", "1.2.0", readme_edited=True)
    assert joined.line() == ("added new_set to release 1.2.0's datasets_added in registry/releases.yaml and counted "
                             "it in README.md's release table")
    releases = yaml.safe_load((root / "registry/releases.yaml").read_text(encoding="utf-8"))["releases"]
    assert releases[-1]["datasets_added"] == ["new_set"]
    assert "| 1.2.0 | 2025-03-01 | 3 | 1 / 1 / 1 | open: new_set |" in (root / "README.md").read_text()


def test_what_cannot_be_joined_safely_is_left_by_hand_with_the_reason(tmp_path):
    root = _tree(tmp_path, readme=None)
    open_next_release(load_registry(root), "1.2.0", "Next", TODAY)
    joined = join_release(load_registry(root), "new_set", "public")
    assert joined.line() == "added new_set to release 1.2.0's datasets_added in registry/releases.yaml"
    (root / "README.md").write_text("no table\n", encoding="utf-8")
    joined = join_release(load_registry(root), "other_set", "public")
    assert joined.readme_refused and not joined.readme_edited
    assert joined.line().endswith("; count it in README.md's release table row 1.2.0 by hand")
    path = root / "registry/releases.yaml"
    path.write_text(path.read_text().rsplit("  - version: 1.2.0", 1)[0]
                    + "  - {version: 1.2.0, date: 2025-03-01, title: Next, status: open}\n", encoding="utf-8")
    before = path.read_bytes()
    joined = join_release(load_registry(root), "third_set", "public")
    assert joined.releases_refused and path.read_bytes() == before
    assert joined.line().startswith("add third_set to release 1.2.0's datasets_added in registry/releases.yaml")


@pytest.mark.parametrize("version, want", [("1.1.0", "1.2.0"), ("2.9.3", "2.10.0"), (None, "X.Y.Z"), ("v1", "X.Y.Z")])
def test_the_next_minor_release(version, want):
    assert next_minor(version) == want
