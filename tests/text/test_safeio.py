"""safeio refuses to replace anything but a regular file, so -o /dev/null --force cannot clobber a device."""

import os

import pytest

from clinreg.text.safeio import RefusedOverwrite, atomic_write_text


def test_refuses_to_replace_a_fifo_or_a_folder(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(RefusedOverwrite, match="not a regular file"):
        atomic_write_text(fifo, "x")
    assert fifo.exists() and not fifo.is_file()
    folder = tmp_path / "dir"
    folder.mkdir()
    with pytest.raises(RefusedOverwrite):
        atomic_write_text(folder, "x")
    assert folder.is_dir()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_replaces_a_regular_file_and_refuses_without_overwrite(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    with pytest.raises(RefusedOverwrite):
        atomic_write_text(target, "new", overwrite=False)
    atomic_write_text(target, "new")
    assert target.read_text() == "new"
