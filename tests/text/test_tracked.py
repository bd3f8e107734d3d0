"""The guarded edit of a tracked file: replaced whole or not at all, and only while it holds what was read."""

from __future__ import annotations

import os

import pytest

from clinreg.text.safeio import NotARegularFile
from clinreg.text.tracked import ChangedUnderneath, edit_tracked, read_tracked


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_an_unchanged_file_is_replaced_keeping_its_mode(tmp_path):
    path = tmp_path / "README.md"
    path.write_bytes(b"one\r\ntwo\n")
    os.chmod(path, 0o640)
    tracked = read_tracked(path)
    assert tracked.text == "one\ntwo\n" == path.read_text(encoding="utf-8")
    edit_tracked(tracked, tracked.text + "three\n")
    assert path.read_bytes() == b"one\ntwo\nthree\n"
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert _leftovers(tmp_path) == []


def test_a_file_changed_underneath_is_refused_and_no_temporary_file_is_left(tmp_path):
    path = tmp_path / "releases.yaml"
    path.write_text("current: 1.0.0\n", encoding="utf-8")
    tracked = read_tracked(path)
    path.write_text("current: 1.1.0\n", encoding="utf-8")  # an editor saved meanwhile
    with pytest.raises(ChangedUnderneath) as caught:
        edit_tracked(tracked, "current: 2.0.0\n")
    assert "changed while it was being edited" in caught.value.strerror
    assert path.read_text(encoding="utf-8") == "current: 1.1.0\n"
    assert _leftovers(tmp_path) == []


def test_a_file_that_went_away_is_refused(tmp_path):
    path = tmp_path / "releases.yaml"
    path.write_text("a\n", encoding="utf-8")
    tracked = read_tracked(path)
    path.unlink()
    with pytest.raises(OSError):
        edit_tracked(tracked, "b\n")
    assert not path.exists() and _leftovers(tmp_path) == []


def test_the_change_is_seen_even_when_it_lands_while_the_new_text_is_written(tmp_path, monkeypatch):
    """The guard compares just before the rename, after the temporary file is written, not only on entry."""
    import clinreg.text.tracked as tracked_module

    path = tmp_path / "README.md"
    path.write_text("old\n", encoding="utf-8")
    tracked = read_tracked(path)
    real_open = tracked_module.atomic_open

    def meddling_open(*args, **kwargs):
        path.write_text("theirs\n", encoding="utf-8")
        return real_open(*args, **kwargs)

    monkeypatch.setattr(tracked_module, "atomic_open", meddling_open)
    with pytest.raises(ChangedUnderneath):
        edit_tracked(tracked, "mine\n")
    assert path.read_text(encoding="utf-8") == "theirs\n" and _leftovers(tmp_path) == []


def test_a_symlink_or_a_folder_is_not_edited(tmp_path):
    real = tmp_path / "real.md"
    real.write_text("x\n", encoding="utf-8")
    link = tmp_path / "README.md"
    link.symlink_to(real)
    with pytest.raises(NotARegularFile):
        read_tracked(link)
    tracked = read_tracked(real)
    real.unlink()
    real.mkdir()
    with pytest.raises(NotARegularFile):
        edit_tracked(tracked, "y\n")
    assert real.is_dir() and _leftovers(tmp_path) == []
