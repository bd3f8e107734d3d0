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

Setting `M_TOP_PAD` also turns off glibc's sliding mmap threshold (mallopt(3)): glibc serves a block of 128 KiB or
more with its own `mmap`, and normally raises that threshold to the size of each such block freed, up to 32 MiB, so
that a block of the same size made again comes from the heap. With the threshold fixed at 128 KiB, every batch's
chunk of canonical lines (about 2 MB on MedQA's shape) was mapped afresh and faulted in page by page: 100,000 faults
on the build's thread at 200,000 rows. So the threshold is set where glibc's sliding one would settle, 32 MiB
(bench/README.md, "Sixth round").

This is a setting of the whole process, made once, on Linux with glibc only, and never where the user has set
glibc's malloc tunables themselves (`MALLOC_TOP_PAD_`, `MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`,
`MALLOC_MMAP_MAX_`, or `GLIBC_TUNABLES` naming `malloc.`)."""

from __future__ import annotations

import os
import platform
import sys

M_TOP_PAD, M_MMAP_THRESHOLD = -2, -3  # glibc's <malloc.h>
TOP_PAD_BYTES = 32 << 20
MMAP_THRESHOLD_BYTES = 32 << 20  # DEFAULT_MMAP_THRESHOLD_MAX on 64-bit glibc: the sliding threshold's ceiling
# Setting any of these turns glibc's sliding threshold off: the user has chosen, and none of ours is made.
USER_SETTINGS = ("MALLOC_TOP_PAD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_MAX_")

_set = False


def keep_heap_top() -> bool:
    """Ask glibc to keep TOP_PAD_BYTES at the top of its heap, and to serve blocks under MMAP_THRESHOLD_BYTES from
    it; whether the settings were made (now or before)."""
    global _set
    if _set:
        return True
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return False
    if any(name in os.environ for name in USER_SETTINGS) or "malloc." in os.environ.get("GLIBC_TUNABLES", ""):
        return False  # the user's own setting stands
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
        mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        _set = mallopt(M_TOP_PAD, TOP_PAD_BYTES) == 1 and mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) == 1
    except (OSError, AttributeError):  # pragma: no cover - a glibc without mallopt
        return False
    return _set
