"""When the environment fails (no git, a full disk or a closed pipe on stdout, a long output name, an input that is
a device or a FIFO), every command ends with one located line and exit code 2, never a traceback or a hang."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


from .support import assert_no_traceback, run_cli

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX devices, FIFOs and descriptors")

# Every command that writes to stdout, with the formats whose writers differ.
STDOUT_COMMANDS = [
    ("validate",), ("validate", "--format", "json"), ("validate", "--format", "github"),
    ("coverage",), ("coverage", "--format", "json"), ("coverage", "--format", "markdown"),
    ("coverage", "--format", "csv"),
    ("coverage", "--format", "html"), ("review", "--format", "markdown"), ("review",), ("review", "--format", "json"),
    ("diff", "1.0.0", "1.1.0"), ("diff", "1.0.0", "1.1.0", "--format", "json"),
    ("rules",), ("explain", "CLR001"), ("issue-form",),
]
NO_ROOT = {"rules", "explain"}


def _args(command: tuple[str, ...], root: Path) -> list[str]:
    return list(command) if command[0] in NO_ROOT else [*command, "--root", str(root)]


def _one_error_line(result) -> str:
    assert_no_traceback(result)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("clinreg: error: "), result.stderr
    return lines[0]


@POSIX
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", STDOUT_COMMANDS, ids=" ".join)
def test_a_full_disk_on_stdout_is_one_line_and_exit_2(tree, command):
    with open("/dev/full", "w") as full:
        result = run_cli(*_args(command, tree), stdout=full)
    assert result.returncode == 2
    assert "standard output" in _one_error_line(result)


@POSIX
@pytest.mark.parametrize("command", [("validate",), ("coverage", "--format", "html"), ("review",), ("rules",)],
                         ids=" ".join)
def test_a_pipe_whose_reader_left_ends_quietly(tree, command):
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = run_cli(*_args(command, tree), stdout=write_end)
    finally:
        os.close(write_end)
    assert_no_traceback(result)
    assert result.returncode != 0
    assert result.stderr.count("\n") <= 1  # quiet: at most one line


@POSIX
@pytest.mark.parametrize("command", [("validate",), ("coverage",), ("diff", "1.0.0", "1.1.0")], ids=" ".join)
def test_a_closed_stdout_is_one_line_and_exit_2(tree, command):
    result = run_cli(*_args(command, tree), stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert result.returncode == 2
    assert "standard output" in _one_error_line(result)


def test_validate_base_without_git_on_path(tree, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    result = run_cli("validate", "--root", str(tree), "--base", "HEAD", env={"PATH": str(empty)})
    assert result.returncode == 2
    assert "git is not on PATH" in _one_error_line(result)
    result = run_cli("diff", "HEAD~1", "HEAD", "--root", str(tree), env={"PATH": str(empty)})
    assert result.returncode == 2
    assert "git is not on PATH" in _one_error_line(result)


@pytest.mark.parametrize("command", [("coverage", "--format", "markdown"), ("review", "--format", "markdown"),
                                     ("diff", "1.0.0", "1.1.0")], ids=" ".join)
def test_a_long_output_name_is_written(tree, tmp_path, command):
    """A 250-character name fits the file system; the temporary name beside it must fit too."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / ("r" * 246 + ".md")
    result = run_cli(*_args(command, tree), "-o", str(target))
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert [p.name for p in out_dir.iterdir()] == [target.name]  # written, and no temporary file left
    assert target.read_text(encoding="utf-8").strip()


def test_an_output_name_too_long_for_the_file_system(tree, tmp_path):
    target = tmp_path / ("r" * 300 + ".md")
    result = run_cli("coverage", "--root", str(tree), "--format", "markdown", "-o", str(target))
    assert result.returncode == 2
    assert "too long" in _one_error_line(result).lower()
    assert list(tmp_path.iterdir()) == [tree.parent] or all(p.name != target.name for p in tmp_path.iterdir())


def _new_dataset(tree: Path, features: Path):
    return run_cli("new", "dataset", "new_one", "--root", str(tree), "--task", "answer_questions",
                   "--from-hub-features", str(features), stdin=subprocess.DEVNULL, timeout=30)


@POSIX
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_features_from_a_device_are_refused(tree, device):
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    result = _new_dataset(tree, Path(device))
    assert result.returncode == 2
    assert device in _one_error_line(result) and "not a regular file" in result.stderr
    assert not (tree / "registry" / "datasets" / "new_one.yaml").exists()


@POSIX
def test_features_from_a_fifo_do_not_hang(tree, tmp_path):
    fifo = tmp_path / "features.json"
    os.mkfifo(fifo)
    result = _new_dataset(tree, fifo)  # a blocking open would hang until the 30 s timeout
    assert result.returncode == 2
    assert "not a regular file" in _one_error_line(result)
    assert not (tree / "registry" / "datasets" / "new_one.yaml").exists()


def test_features_file_over_the_limit(tree, tmp_path):
    big = tmp_path / "features.json"
    with open(big, "wb") as f:  # sparse: 2 GiB on paper, nothing on disk, never read
        f.truncate(2 * 1024**3)
    result = _new_dataset(tree, big)
    assert result.returncode == 2
    assert "larger than 1 MiB" in _one_error_line(result)
    assert not (tree / "registry" / "datasets" / "new_one.yaml").exists()
