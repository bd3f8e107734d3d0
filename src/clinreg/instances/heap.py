"""Keep the top of glibc's heap between batches, so that a build does not take its memory back from the kernel page
by page for every batch.

A build makes the same shapes of memory batch after batch: each row's strings, its canonical line, the chunk
handed to the writer. When a batch is freed, glibc's malloc finds the top of its heap free past its trim threshold
and gives it back to the kernel; the next batch grows the heap again, and the kernel maps each 4 KiB page on first
touch (a page fault, in the build's own thread). On MEDEC's shape (200,000 rows) that was 250,000 to 330,000 faults
on the build's thread, 0.5 to 0.7 s of its 2.1 to 2.5 s of CPU. Keeping 32 MiB at the top of the heap (`M_TOP_PAD`:
the padding added when the heap grows, and kept when it is trimmed) leaves about 11,000 there. 64 MiB was no
faster, and with the collector paused during builds it let DischargeMe's million-row build peak at 402 MB in one
run of eight (bench/README.md, "Fifth round").

This is a setting of the whole process, made once, on Linux with glibc only, and never where the user has set
glibc's malloc tunables themselves (`MALLOC_TOP_PAD_`, or `GLIBC_TUNABLES` naming `malloc.`)."""

from __future__ import annotations

import os
import platform
import sys

M_TOP_PAD = -2  # glibc's <malloc.h>
TOP_PAD_BYTES = 32 << 20

_set = False


def keep_heap_top() -> bool:
    """Ask glibc to keep TOP_PAD_BYTES at the top of its heap; whether the setting was made (now or before)."""
    global _set
    if _set:
        return True
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return False
    if "MALLOC_TOP_PAD_" in os.environ or "malloc." in os.environ.get("GLIBC_TUNABLES", ""):
        return False  # the user's own setting stands
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
        mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        _set = mallopt(M_TOP_PAD, TOP_PAD_BYTES) == 1
    except (OSError, AttributeError):  # pragma: no cover - a glibc without mallopt
        return False
    return _set
