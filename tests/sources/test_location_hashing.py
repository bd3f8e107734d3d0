"""A mirror's content hash, begun on a second thread at a build's start (DataLocation.start_hashing), is the hash
`content_hash` gives; its error is raised by `describe` on the caller's thread; one thread per location, none for
a hub location."""

from __future__ import annotations

import threading

import pytest

from clinreg.sources import location as location_module
from clinreg.sources.location import DataLocation, content_hash
from threads import STUCK, NamedThreads

HASHERS = NamedThreads("clinreg-content-hash")  # hash threads of other tests' builds that failed before describe()
_hashers = HASHERS.alive


@pytest.fixture(autouse=True)
def _earlier_hashers():
    HASHERS.begin()


def _mirror(tmp_path):
    folder = tmp_path / "owner__data"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "test.csv").write_text("id,q\n1,a\n")
    (folder / "README.md").write_text("# data\n")
    (folder / "big.bin").write_bytes(bytes(range(256)) * 9000)  # past the hash's 1 MiB read
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: x\n")  # hidden: not hashed
    return folder


def test_the_threads_hash_is_content_hash(tmp_path):
    folder = _mirror(tmp_path)
    loc = DataLocation(kind="mirror", config=None, folder=folder)
    loc.start_hashing()
    assert loc.describe() == {"kind": "mirror", "folder": "owner__data", "content_sha256": content_hash(folder)}
    assert _hashers() == []
    (folder / "README.md").write_text("# changed\n")
    assert loc.describe()["content_sha256"] != content_hash(folder)  # computed once, at the build's start


def test_an_error_in_the_thread_is_raised_by_describe(tmp_path, monkeypatch):
    broke = PermissionError(13, "Permission denied", "owner__data/data/test.csv")
    ran_on = []

    def failing(folder):
        ran_on.append(threading.current_thread())
        raise broke

    monkeypatch.setattr(location_module, "content_hash", failing)
    loc = DataLocation(kind="mirror", config=None, folder=_mirror(tmp_path))
    loc.start_hashing()
    with pytest.raises(PermissionError) as raised:
        loc.describe()
    assert raised.value is broke
    assert len(ran_on) == 1 and ran_on[0] is not threading.current_thread()  # failed on the second thread, once
    assert _hashers() == []


def test_hashing_starts_once(tmp_path, monkeypatch):
    calls = []
    release = threading.Event()

    def slow(folder):
        calls.append(folder)
        assert release.wait(STUCK), "never released"
        return "f" * 64

    monkeypatch.setattr(location_module, "content_hash", slow)
    loc = DataLocation(kind="mirror", config=None, folder=_mirror(tmp_path))
    loc.start_hashing()
    loc.start_hashing()  # while the first is still at work
    assert len(_hashers()) == 1
    release.set()
    assert loc.describe()["content_sha256"] == "f" * 64
    loc.start_hashing()  # already known: nothing to start
    assert loc.describe()["content_sha256"] == "f" * 64
    assert len(calls) == 1 and _hashers() == []


def test_a_hub_location_starts_nothing(tmp_path, monkeypatch):
    def never(folder):
        raise AssertionError("a hub location has no folder to hash")

    monkeypatch.setattr(location_module, "content_hash", never)
    loc = DataLocation(kind="hub", config=None, repo="owner/data", revision="a" * 40)
    loc.start_hashing()
    assert loc._hashing is None and _hashers() == []
    loc.folder = tmp_path  # even with a folder (a snapshot of the repo): the revision, not a hash, is recorded
    loc.start_hashing()
    assert loc._hashing is None and _hashers() == []
    assert loc.describe() == {"kind": "hub", "repo": "owner/data", "revision": "a" * 40}


def test_a_build_records_the_threads_hash_in_its_provenance(tmp_path, monkeypatch):
    """End to end: a build from a mirror folder starts the hash and stamps its batches with it."""
    from record_fixtures import build, hub_folder, record

    folder = hub_folder(tmp_path, "owner/fixture", {"test": [{"question": "q1", "answer": "A"}]})
    started = []
    real = DataLocation.start_hashing

    def spy(self):
        started.append(self.kind)
        real(self)

    monkeypatch.setattr(DataLocation, "start_hashing", spy)
    rec = record({"label": {"encoding": "free_text", "column": "answer"}})
    out, _ = build(rec, tmp_path)
    assert started == ["mirror"]
    assert out[0].provenance.source.content_sha256 == content_hash(folder)
