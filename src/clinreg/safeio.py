"""Safe file writes: write to a temporary file in the target's folder, fsync, then rename into place."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator


class RefusedOverwrite(FileExistsError):
    """Raised when a target exists and the caller did not ask to overwrite it."""


@contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", *, overwrite: bool = True, encoding: str | None = "utf-8") -> Iterator[IO]:
    """Yield a file object whose content replaces `path` only if the block finishes without error.

    An interrupted run (exception, kill) leaves the old file, if any, untouched; the temporary file is
    removed on error. With `overwrite=False` an existing target is refused before anything is written.
    """
    target = Path(path)
    if not overwrite and target.exists():
        raise RefusedOverwrite(f"{target} exists; refusing to overwrite it (use --force)")
    target.parent.mkdir(parents=True, exist_ok=True)
    binary = "b" in mode
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, **({} if binary else {"encoding": encoding, "newline": ""})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if not overwrite and target.exists():
            raise RefusedOverwrite(f"{target} exists; refusing to overwrite it (use --force)")
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: str | os.PathLike, text: str, *, overwrite: bool = True) -> None:
    with atomic_open(path, "w", overwrite=overwrite) as handle:
        handle.write(text)


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, overwrite: bool = True) -> None:
    with atomic_open(path, "wb", overwrite=overwrite, encoding=None) as handle:
        handle.write(data)
