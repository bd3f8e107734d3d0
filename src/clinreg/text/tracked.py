"""The one guarded edit of a tracked file: read it, then replace it only if it still holds what was read."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from clinreg.text.safeio import NotARegularFile, RefusedOverwrite, atomic_open


class ChangedUnderneath(RefusedOverwrite):
    """The file changed (or went away) between reading it and writing the edit; nothing was written."""

    def __init__(self, errnum: int, strerror: str, filename: str) -> None:  # as OSError's, which callers read
        super().__init__(f"{filename}: {strerror}", file=filename)
        self.errno, self.strerror, self.filename = errnum, strerror, filename


@dataclass(frozen=True)
class Tracked:
    """A tracked file as it was read: its path and bytes (the guard compares against them)."""

    path: Path
    raw: bytes

    @property
    def text(self) -> str:
        """The text as `Path.read_text(encoding="utf-8")` gives it (universal newlines)."""
        return self.raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _read_regular(path: Path) -> bytes:
    """The bytes of `path`, refused (NotARegularFile) when it is a symlink, a folder, a FIFO or a device."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise NotARegularFile(errno.EINVAL, "not a regular file", str(path))
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # swapped for a symlink since the check
            raise NotARegularFile(errno.EINVAL, "not a regular file", str(path)) from None
        raise
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise NotARegularFile(errno.EINVAL, "not a regular file", str(path))
        return handle.read()


def read_tracked(path: str | os.PathLike) -> Tracked:
    """Read a tracked file for editing. Raises NotARegularFile, or OSError when it cannot be read."""
    target = Path(path)
    return Tracked(target, _read_regular(target))


def edit_tracked(tracked: Tracked, new: str | bytes) -> None:
    """Replace the file with `new` (text is written as UTF-8, newlines as given) only if it is still the regular file
    holding exactly the bytes that were read.

    The new content goes to a temporary file beside the target, which is renamed over it (`atomic_open`): the file
    is never half-written. The target is compared again after the new content is written, just before the rename;
    a file that changed or went away meanwhile raises ChangedUnderneath, one that is no longer a regular file
    NotARegularFile, and the temporary file is removed.
    """
    data = new.encode("utf-8") if isinstance(new, str) else new
    target = tracked.path
    _read_regular(target)  # refused before a temporary file exists
    with atomic_open(target, "wb", encoding=None) as handle:
        handle.write(data)
        handle.flush()
        try:
            now = _read_regular(target)
        except FileNotFoundError:
            now = None
        if now != tracked.raw:
            raise ChangedUnderneath(errno.EEXIST, "changed while it was being edited; nothing was written", str(target))
