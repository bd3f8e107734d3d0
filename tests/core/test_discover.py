"""store.discover walks the tree with os.scandir; it finds what a walk with sorted(Path.rglob) finds, in that order."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clinreg.core.store import discover
from trees import write_tree


def rglob_discover(root: Path) -> tuple[list[tuple[str, Path]], list[tuple[str, str]]]:
    """The walk discover() made before it used os.scandir, kept here as the reference."""
    found, problems = [], []
    real_root = root.resolve()
    for top in ("taxonomy", "registry"):
        base = root / top
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_dir():
                if path.is_symlink() and not path.resolve().is_relative_to(real_root):
                    problems.append(("CLR009", path.relative_to(root).as_posix()))
                continue
            if path.suffix not in (".yaml", ".yml"):
                continue
            rel = path.relative_to(root).as_posix()
            try:
                real = path.resolve(strict=True)
            except (OSError, RuntimeError):
                problems.append(("CLR009", rel))
                continue
            if not real.is_relative_to(real_root):
                problems.append(("CLR009", rel))
                continue
            found.append((rel, path))
    return found, problems


def assert_same_walk(root: Path) -> list[tuple[str, Path]]:
    diagnostics: list = []
    found = discover(root, diagnostics)
    expected_found, expected_problems = rglob_discover(root)
    assert found == expected_found
    assert [(d.code, d.file) for d in diagnostics] == expected_problems
    return found


def test_plain_tree(tmp_path):
    found = assert_same_walk(write_tree(tmp_path / "reg"))
    assert found


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks here")
def test_links_hidden_files_and_ordering(tmp_path):
    root = write_tree(tmp_path / "reg")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("a: 1\n")
    reg = root / "registry"
    (reg / "out_dir").symlink_to(outside, target_is_directory=True)
    (reg / "datasets" / "out.yaml").symlink_to(outside / "secret.yaml")
    (reg / "datasets" / "broken.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (reg / "datasets" / "inside.yaml").symlink_to(reg / "releases.yaml")
    (reg / "in_dir").symlink_to(root / "taxonomy", target_is_directory=True)
    (reg / "a").mkdir()
    (reg / "a" / "b.yaml").write_text("x: 1\n")
    (reg / "a.yaml").write_text("x: 1\n")
    (reg / "a-b.yml").write_text("x: 1\n")
    (reg / ".hidden.yaml").write_text("x: 1\n")
    (reg / "datasets" / ".yaml").write_text("x: 1\n")
    (reg / "notes.txt").write_text("x\n")
    assert_same_walk(root)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks here")
def test_a_linked_top_folder_is_checked_file_by_file(tmp_path):
    root = write_tree(tmp_path / "reg")
    elsewhere = tmp_path / "elsewhere"
    (root / "registry").rename(elsewhere)
    (root / "registry").symlink_to(elsewhere, target_is_directory=True)
    diagnostics: list = []
    assert_same_walk(root)
    discover(root, diagnostics)
    assert diagnostics and all(d.code == "CLR009" for d in diagnostics)


@pytest.mark.parametrize("size", [0, 1, 4095, 65535, 65536, 65537, 200_000])
@pytest.mark.parametrize("limit", [0, 5, 65536, 100_000, 1 << 20])
def test_read_limited_reads_whole_files_and_refuses_larger_ones(tmp_path, size, limit):
    """read_limited reads with os.read in chunks sized from stat; every size around the chunk and the limit
    gives the whole file or a refusal, never a truncated file."""
    from clinreg.core.treewalk import read_limited

    path = tmp_path / "f.yaml"
    data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    path.write_bytes(data)
    raw, problem = read_limited(path, limit)
    if size > limit:
        assert raw is None and problem[0] == "CLR007"
    else:
        assert raw == data and problem is None
