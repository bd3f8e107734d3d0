"""Files clinreg writes appear whole or not at all: a writer killed mid-write leaves the old file byte-identical."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from clinreg.text.safeio import RefusedOverwrite, atomic_open, atomic_write_text
from trees import write_tree

from .support import assert_no_traceback, run_cli

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

# The child opens the target through atomic_open, writes a first large chunk, says so on stdout, and sleeps
# inside the `with` block until the parent kills it: the kill lands in the middle of the write.
CHILD = textwrap.dedent("""
    import sys, time
    from clinreg.text.safeio import atomic_open
    target, mode = sys.argv[1], sys.argv[2]
    with atomic_open(target, mode, encoding=None if "b" in mode else "utf-8") as handle:
        chunk = b"N" * (1 << 20) if "b" in mode else "N" * (1 << 20)
        for _ in range(8):
            handle.write(chunk)
        handle.flush()
        print("WRITING", flush=True)
        time.sleep(120)
        handle.write(chunk)
""")


def _kill_mid_write(target: Path, mode: str) -> None:
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(target), mode], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "WRITING"
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:  # pragma: no cover - only when an assertion above failed
            child.kill()
            child.wait()


@pytest.mark.parametrize("mode", ["wb", "w"])
def test_killed_writer_leaves_old_file_intact(tmp_path, mode):
    target = tmp_path / "report.md"
    old = os.urandom(300_000)
    target.write_bytes(old)
    inode = target.stat().st_ino

    _kill_mid_write(target, mode)

    assert target.read_bytes() == old  # byte-identical
    assert target.stat().st_ino == inode  # and never replaced
    leftovers = [p for p in tmp_path.iterdir() if p != target]
    for p in leftovers:  # a temp file may survive a SIGKILL; it is hidden, marked, and never the target
        assert p.name.startswith(".report.md.") and p.name.endswith(".tmp"), p
        assert p.read_bytes().startswith(b"N")


def test_killed_writer_creates_no_target(tmp_path):
    target = tmp_path / "new.json"
    _kill_mid_write(target, "wb")
    assert not target.exists()


def test_exception_mid_write_keeps_old_file_and_removes_temp(tmp_path):
    target = tmp_path / "x.yaml"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as handle:
            handle.write("half")
            raise RuntimeError("boom")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["x.yaml"]


def test_refused_overwrite_writes_nothing(tmp_path):
    target = tmp_path / "x.md"
    target.write_text("old\n")
    with pytest.raises(RefusedOverwrite):
        atomic_write_text(target, "new\n", overwrite=False)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["x.md"]


def test_written_files_get_normal_permissions(tmp_path):
    """mkstemp's 0600 must not leak into reports, schemas and registry files; an old file keeps its mode."""
    new = tmp_path / "new.html"
    atomic_write_text(new, "x")
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask
    old = tmp_path / "old.yaml"
    old.write_text("x")
    old.chmod(0o640)
    atomic_write_text(old, "y")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640


def test_a_link_at_the_target_is_replaced_not_written_through(tmp_path):
    """`-o link` never writes into the file a link points at (say, outside the working folder)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    link = tmp_path / "out.md"
    link.symlink_to(victim)
    atomic_write_text(link, "report\n")
    assert victim.read_text() == "precious\n"
    assert not link.is_symlink() and link.read_text() == "report\n"


@pytest.mark.parametrize("command", [["coverage", "--format", "markdown"], ["review", "--format", "markdown"]])
def test_cli_refuses_to_overwrite_without_force(tmp_path, command):
    root = write_tree(tmp_path / "reg")
    out = tmp_path / "existing.md"
    out.write_bytes(b"hand-written notes\n")

    refused = run_cli(*command, "--root", str(root), "-o", str(out))
    assert_no_traceback(refused)
    assert refused.returncode == 2, refused.stderr
    assert "--force" in refused.stderr
    assert out.read_bytes() == b"hand-written notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing.md", "reg"]

    forced = run_cli(*command, "--root", str(root), "-o", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert out.read_bytes() != b"hand-written notes\n"
