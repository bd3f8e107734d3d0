"""safeio refuses to replace anything but a regular file, so -o /dev/null --force cannot clobber a device;
BackgroundWrites writes every chunk in order on its thread, and a failed write reaches the caller, who never
waits forever."""

import errno
import os

import pytest

from clinreg.text.safeio import BackgroundWrites, RefusedOverwrite, atomic_write_text
from threads import NamedThreads, within


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

WRITERS = NamedThreads("clinreg-writes")  # writer threads other tests left (none should; not this test's to judge)
_writers = WRITERS.alive


@pytest.fixture(autouse=True)
def _earlier_writers():
    WRITERS.begin()


def _within(work):
    return within(work, "the caller blocked")


class FailingFile:
    """A raw binary file whose `fail_at`-th write raises ENOSPC (and every later one, as a full disk would)."""

    def __init__(self, fail_at: int) -> None:
        self.fail_at, self.calls, self.data = fail_at, 0, []
        self.error = OSError(errno.ENOSPC, "No space left on device")

    def write(self, chunk: bytes) -> int:
        self.calls += 1
        if self.calls >= self.fail_at:
            raise self.error
        self.data.append(chunk)
        return len(chunk)

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        raise AssertionError("no sync expected")


CHUNKS = [bytes([i % 251]) * (i % 37 + 1) for i in range(300)]


@pytest.mark.parametrize("depth", [1, 4])
def test_every_chunk_is_written_in_order_and_synced_on_the_way(tmp_path, monkeypatch, depth):
    synced = []
    real = os.fdatasync

    def spy(fd):
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fdatasync", spy)
    with open(tmp_path / "out", "wb") as handle:
        writes = BackgroundWrites(handle, depth=depth, sync_every=100)

        def run():
            for chunk in CHUNKS:
                writes.write(chunk)
            writes.close()

        _within(run)
        assert synced and set(synced) == {handle.fileno()}  # every 100 bytes or so: the fdatasync branch ran
    assert (tmp_path / "out").read_bytes() == b"".join(CHUNKS)
    assert _writers() == []


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


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_a_failed_write_is_raised_by_a_later_write(depth):
    """The third write fails on the writer's thread. The writer takes chunk 4 only once that failure is recorded,
    and a put needs a free slot: by the write of chunk 3 + depth + 2 at the latest, the caller sees the error."""
    raw = FailingFile(fail_at=3)
    writes = BackgroundWrites(raw, depth=depth)
    sent = []

    def run():
        for i, chunk in enumerate(CHUNKS[: 3 + depth + 2]):
            writes.write(chunk)
            sent.append(i)

    with pytest.raises(OSError) as raised:
        _within(run)
    assert raised.value is raw.error and raised.value.errno == errno.ENOSPC
    assert len(sent) >= 3 and raw.data == CHUNKS[:2]  # nothing after the failed chunk was written
    assert not writes.thread.is_alive() and _writers() == []
    _within(writes.abandon)  # the caller's cleanup after the error: returns, and again
    _within(writes.abandon)


def test_a_failed_last_write_is_raised_by_close():
    raw = FailingFile(fail_at=3)
    writes = BackgroundWrites(raw)
    _within(lambda: [writes.write(chunk) for chunk in CHUNKS[:3]])  # the failure comes after these were handed on
    with pytest.raises(OSError) as raised:
        _within(writes.close)
    assert raised.value is raw.error
    assert _writers() == []
    _within(writes.abandon)
    _within(writes.abandon)


def test_the_caller_never_waits_on_a_writer_that_failed():
    """After the failure the writer keeps taking chunks (and drops them): a caller that writes many more before it
    looks (or abandons) is never stuck on a full queue."""
    raw = FailingFile(fail_at=1)
    writes = BackgroundWrites(raw, depth=1)

    def run():
        try:
            for chunk in CHUNKS:
                writes.write(chunk)
        except OSError:
            writes.abandon()
            raise

    with pytest.raises(OSError):
        _within(run)
    assert raw.calls == 1 and _writers() == []


def test_abandon_stops_the_writer_at_once_and_twice():
    raw = FailingFile(fail_at=10**9)
    writes = BackgroundWrites(raw, depth=2)
    _within(lambda: [writes.write(chunk) for chunk in CHUNKS[:20]])
    _within(writes.abandon)
    assert not writes.thread.is_alive() and raw.data == CHUNKS[: len(raw.data)]  # a prefix, in order
    _within(writes.abandon)
    assert _writers() == []
