"""safeio refuses to replace anything but a regular file, so -o /dev/null --force cannot clobber a device;
BackgroundWrites writes every chunk in order on its thread, and a failed write reaches the caller, who never
waits forever."""

import os
import threading

import pytest

from clinreg.text.safeio import BackgroundWrites, RefusedOverwrite, atomic_write_text


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


# ------------------------------------------------------------------ BackgroundWrites

WRITER = "clinreg-writes"
STUCK = 60  # seconds before a test calls the writer stuck; never reached when the code is right


def _writers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == WRITER]


def _within(work, timeout: float = STUCK):
    """Run `work` on a thread; its result, or its exception raised here. Fails, rather than hangs, on a deadlock."""
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = work()
        except BaseException as err:  # noqa: BLE001 - handed to the test's thread
            out["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the caller blocked"
    if "error" in out:
        raise out["error"]
    return out.get("value")


CHUNKS = [bytes([i % 251]) * (i % 37 + 1) for i in range(300)]


def test_without_fdatasync_the_data_is_synced_with_fsync(tmp_path, monkeypatch):
    """Some systems (macOS) have no os.fdatasync: the writer falls back to fsync rather than failing the write."""
    synced = []
    real = os.fsync
    monkeypatch.delattr(os, "fdatasync", raising=False)
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    with open(tmp_path / "out", "wb") as handle:
        writes = BackgroundWrites(handle, sync_every=10)
        _within(lambda: ([writes.write(c) for c in CHUNKS[:50]], writes.close()))
        assert synced and set(synced) == {handle.fileno()}
    assert (tmp_path / "out").read_bytes() == b"".join(CHUNKS[:50])
