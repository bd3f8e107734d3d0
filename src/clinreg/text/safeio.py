"""Safe file writes: write to a temporary file in the target's folder, fsync, then rename into place."""

from __future__ import annotations

import os
import signal
import stat
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from clinreg.errors import ClinregError


class RefusedOverwrite(ClinregError, FileExistsError):
    """Raised when a target exists and the caller did not ask to overwrite it."""

    default_code = "CLR983"


@contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", *, overwrite: bool = True,
                encoding: str | None = "utf-8") -> Iterator[IO]:
    """Yield a file object whose content replaces `path` only if the block finishes without error.

    An interrupted run (exception, kill) leaves the old file, if any, untouched; the temporary file is
    removed on error. With `overwrite=False` an existing target is refused before anything is written.
    """
    target = Path(path)
    if not overwrite and target.exists():
        raise RefusedOverwrite(f"{target} exists; refusing to overwrite it (use --force)")
    if (target.exists() or target.is_symlink()) and not target.is_file():
        # Renaming over a device, FIFO or folder would replace it (say /dev/null, run as root) with a plain file.
        raise RefusedOverwrite(f"{target} exists and is not a regular file; refusing to replace it")
    target.parent.mkdir(parents=True, exist_ok=True)
    binary = "b" in mode
    # A short prefix: the temporary name must fit in 255 bytes even when the target's own name nearly does.
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name[:40]}.", suffix=".tmp", dir=target.parent)
    try:
        with _signals_raise():
            with os.fdopen(fd, mode, **({} if binary else {"encoding": encoding, "newline": ""})) as handle:
                # mkstemp makes the file 0600; give it the mode a plain open() would: the old file's, or 0666 minus
                # umask.
                os.fchmod(handle.fileno(), _mode_for(target))
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
            if overwrite:
                os.replace(tmp_name, target)
            else:
                _link_new(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    _fsync_folder(target.parent)


def _link_new(tmp_name: str, target: Path) -> None:
    """Put the file in place only if nothing is there: a hard link fails when the name exists, so two runs
    creating the same file cannot both succeed (a check followed by a rename could)."""
    try:
        os.link(tmp_name, target)
    except FileExistsError:
        raise RefusedOverwrite(f"{target} exists; refusing to overwrite it (use --force)") from None
    except OSError:  # a file system without hard links: fall back to check-then-rename
        if target.exists():
            raise RefusedOverwrite(f"{target} exists; refusing to overwrite it (use --force)") from None
        os.replace(tmp_name, target)
        return
    os.unlink(tmp_name)


class _Terminated(BaseException):
    """SIGTERM (or SIGHUP) during a write: unwinds like KeyboardInterrupt so the temporary file is removed."""


@contextmanager
def _signals_raise() -> Iterator[None]:
    """While a temporary file exists, turn SIGTERM/SIGHUP into an exception (SIGINT already is one), so the
    cleanup in `atomic_open` runs; the process then exits with the usual 128+signal status."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def handler(signum, frame):
        received.append(signum)
        raise _Terminated(signum)

    old = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            old[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):
            pass
    try:
        yield
    except _Terminated:
        for sig, previous in old.items():
            signal.signal(sig, previous)
        old.clear()
        raise SystemExit(128 + received[0]) if received else SystemExit(143) from None
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)


@contextmanager
def file_lock(path: str | os.PathLike) -> Iterator[None]:
    """Hold an exclusive advisory lock (flock) on the file at `path` for the block.

    Writers replace files by rename, so a process may lock the old inode just as another swaps in a new one.
    After locking, check that the locked file is still the one at `path`, and lock again if not; every
    registry writer takes this lock, so under it a read-modify-write cannot lose another's update.
    """
    import fcntl

    while True:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held, now = os.fstat(fd), os.stat(path)
        except BaseException:
            os.close(fd)
            raise
        if (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino):
            break
        os.close(fd)
    try:
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable. The new file is already in place, so a failure here is not an error."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _mode_for(target: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0o022)  # the only portable way to read the umask is to set it and put it back
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write_text(path: str | os.PathLike, text: str, *, overwrite: bool = True) -> None:
    with atomic_open(path, "w", overwrite=overwrite) as handle:
        handle.write(text)


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, overwrite: bool = True) -> None:
    with atomic_open(path, "wb", overwrite=overwrite, encoding=None) as handle:
        handle.write(data)


class NotARegularFile(ClinregError, OSError):
    """An input path names a FIFO, a device, a folder or a socket: reading it could block or never end."""

    default_code = "CLR985"

    def __init__(self, errnum: int, strerror: str, filename: str) -> None:  # as OSError's, which callers read
        super().__init__(strerror, file=filename)
        self.errno, self.strerror, self.filename = errnum, strerror, filename


def read_regular_file(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. Anything else is refused before it is read.

    A FIFO would block the open itself, and a device such as /dev/zero never ends: the path is checked with
    stat before opening, opened without blocking, checked again on the open descriptor, and read at most
    `limit + 1` bytes. Raises NotARegularFile, or OSError (`strerror` says why) for a file over the limit.
    """
    import errno

    if not stat.S_ISREG(os.stat(path).st_mode):
        raise NotARegularFile(errno.EINVAL, "not a regular file", str(path))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):  # swapped for something else between the check and the open
            raise NotARegularFile(errno.EINVAL, "not a regular file", str(path))
        if info.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
        data = handle.read(info.st_size + 1)  # by its size: read(limit + 1) would set aside `limit` bytes
        if info.st_size < len(data) <= limit:  # it grew while being read: the rest, up to the limit
            data += handle.read(limit + 1 - len(data))
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
    return data


class BackgroundWrites:
    """Hand a binary file's writes to a second thread, so that the caller builds the next bytes while the kernel
    copies the last ones (a write releases the GIL). Every `sync_every` bytes the thread also asks the kernel to
    put the data on disk (fdatasync), so that the fsync before an atomic rename has little left to do.

    At most `depth` chunks wait. A failed write is raised by the next `write` or by `close`, which waits for
    every chunk; `abandon` stops the thread without writing what is left (the caller is failing anyway)."""

    def __init__(self, handle: IO[bytes], *, depth: int = 2, sync_every: int = 64 << 20) -> None:
        import queue

        self.handle, self.sync_every = handle, sync_every
        self.queue: "queue.Queue[bytes | None]" = queue.Queue(depth)
        self.error: BaseException | None = None
        self.skip = False
        self.thread = threading.Thread(target=self._run, name="clinreg-writes", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        unsynced = 0
        while True:
            chunk = self.queue.get()
            if chunk is None:
                return
            if self.error is not None or self.skip:
                continue  # keep taking chunks, so that the caller never waits on a full queue
            try:
                self.handle.write(chunk)
                unsynced += len(chunk)
                if unsynced >= self.sync_every:
                    self.handle.flush()
                    # fdatasync is not in every os module (macOS has none): fsync does the same and more.
                    getattr(os, "fdatasync", os.fsync)(self.handle.fileno())
                    unsynced = 0
            except BaseException as err:  # noqa: BLE001 - raised again on the caller's thread
                self.error = err

    def write(self, chunk: bytes) -> None:
        if self.error is not None:
            self.abandon()
            raise self.error
        self.queue.put(chunk)

    def close(self) -> None:
        """Wait until every chunk is written; raise the write's error, if one failed."""
        self._stop()
        if self.error is not None:
            raise self.error

    def abandon(self) -> None:
        self.skip = True
        self._stop()

    def _stop(self) -> None:
        if self.thread.is_alive():  # once: a stopped thread takes nothing more from the queue
            self.queue.put(None)
            self.thread.join()
