"""A build keeps the top of glibc's heap between batches (instances/heap.py): freeing a batch and making the next
must not cost the build a page fault per page each time. The effect is measured in fresh interpreters, since the
setting is the whole process's. And a build pauses the cyclic collector while it runs, and gives it back."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from clinreg.instances import heap

REPO = Path(__file__).resolve().parents[2]
glibc = pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                           reason="the setting is glibc's")

# Batches of memory made and freed, as a build makes them: 256 blocks of 60 kB (under glibc's mmap threshold, so
# from the heap; 15 MB, past the trim threshold glibc may have raised itself to), forty times. Prints the page
# faults the churn cost.
SMALL = """
for _ in range(40):
    held = [bytes(60_000) for _ in range(256)]
    del held
"""
# One block past glibc's 128 KiB mmap threshold made and freed forty times, as each batch's chunk of canonical lines
# is (about 2.5 MB on MedQA's shape); a bytearray's block is written when made, so each fresh page faults.
LARGE = """
for _ in range(40):
    chunk = bytearray(2_500_000)
    del chunk
"""
CHURN = """
import resource, sys
sys.path.insert(0, {src!r})
{setup}
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
{work}
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""
KEEP = "from clinreg.instances.heap import keep_heap_top\nassert keep_heap_top()"


def _clean_env() -> dict[str, str]:
    """This environment without glibc's malloc settings, which the checks below set or expect unset."""
    return {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}


def _faults(setup: str, work: str = SMALL, **env: str) -> int:
    done = subprocess.run([sys.executable, "-c", CHURN.format(src=str(REPO / "src"), setup=setup, work=work)],
                          capture_output=True, text=True, env={**_clean_env(), **env}, check=True)
    return int(done.stdout.split()[-1])


# A build of the medication_qa fixture (its as-distributed workbook, written by tests/distributions), in a fresh
# interpreter: whether the build made the setting shows only in a process that had not made it before.
BUILD = """
import sys, tempfile
from pathlib import Path
sys.path.insert(0, {tests!r})
from record_fixtures import distribution_mirror
from clinreg.core.store import load_registry
from clinreg.instances.build import RecordBuild
reg = load_registry(Path({repo!r}))
data = distribution_mirror(Path(tempfile.mkdtemp()), ["medication_qa"])
assert sum(len(b.source_index) for b in RecordBuild(reg.datasets["medication_qa"], reg, data_dir=data).batches()) > 0
"""


@glibc
def test_keeping_the_heap_top_spares_the_faults_of_giving_memory_back_and_taking_it_again():
    plain = _faults("")
    kept = _faults(KEEP)
    assert plain > 40_000  # glibc trims the heap after each batch and faults it in again
    assert kept < plain / 10


@glibc
def test_large_blocks_come_from_the_kept_heap_not_a_fresh_mapping_each_time():
    # Setting the top pad alone fixes glibc's mmap threshold at 128 KiB (mallopt(3)): each large block is then
    # mapped afresh and faulted in page by page, where glibc's sliding threshold would have served it from the heap.
    pad_only = _faults("import ctypes\nassert ctypes.CDLL(None).mallopt(-2, 32 << 20) == 1", LARGE)
    kept = _faults(KEEP, LARGE)
    assert pad_only > 20_000
    assert kept < pad_only / 10


@glibc
def test_a_build_keeps_the_heap_top_for_the_rest_of_its_process():
    script = ("import sys\nsys.path.insert(0, {src!r})\nimport clinreg.instances.heap as h\nassert not h._set\n"
              .format(src=str(REPO / "src")) + BUILD.format(repo=str(REPO), tests=str(REPO / "tests"))
              + "assert h._set\nprint('kept')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=_clean_env())
    assert done.returncode == 0 and done.stdout.split() == ["kept"], done.stderr[-2000:]


@glibc
@pytest.mark.parametrize("name, value", [("MALLOC_TOP_PAD_", "0"), ("MALLOC_MMAP_THRESHOLD_", "131072"),
                                         ("MALLOC_TRIM_THRESHOLD_", "0"), ("GLIBC_TUNABLES", "glibc.malloc.top_pad=0")])
def test_the_users_own_malloc_setting_stands(monkeypatch, name, value):
    import ctypes

    opened = []
    monkeypatch.setattr(ctypes, "CDLL", lambda *a, **k: opened.append(a))
    monkeypatch.setattr(heap, "_set", False)
    monkeypatch.setenv(name, value)
    assert heap.keep_heap_top() is False
    assert opened == []  # mallopt was never looked up, let alone called
    monkeypatch.delenv(name)
    heap.keep_heap_top()  # without it, the same call goes on to look up glibc's mallopt
    assert opened == [(None,)]


def test_elsewhere_nothing_is_set(monkeypatch):
    monkeypatch.setattr(heap, "_set", False)
    monkeypatch.setattr(heap.sys, "platform", "darwin")
    assert heap.keep_heap_top() is False
    monkeypatch.setattr(heap.sys, "platform", "linux")
    monkeypatch.setattr(heap.platform, "libc_ver", lambda: ("musl", "1.2"))
    assert heap.keep_heap_top() is False


def _medication_qa(tmp_path: Path):
    from record_fixtures import distribution_mirror

    from clinreg.core.store import load_registry
    from clinreg.instances.build import RecordBuild

    reg = load_registry(REPO)
    data = distribution_mirror(tmp_path, ["medication_qa"])
    return lambda: RecordBuild(reg.datasets["medication_qa"], reg, data_dir=data).batches()


def test_a_build_pauses_the_cyclic_collector_while_it_runs_and_gives_it_back(tmp_path):
    import gc

    build = _medication_qa(tmp_path)
    assert gc.isenabled()
    batches = build()
    assert len(next(batches).source_index) > 0
    assert not gc.isenabled()  # between batches too: the consumer's work is the build's
    batches.close()  # a consumer that stops early
    assert gc.isenabled()
    assert sum(len(b.source_index) for b in build()) > 0 and gc.isenabled()  # one that reads every batch
    gc.disable()
    try:
        list(build())
        assert not gc.isenabled()  # a caller's own choice stands
    finally:
        gc.enable()
