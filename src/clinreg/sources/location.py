"""A located source: where a record's rows are read from (a mirror folder, or a hub repository at a commit),
and what the lock file records of it."""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HIDDEN_PREFIXES = (".",)
# A full commit sha: what a GitHub `commit` holds, and a hub `revision` that pins a commit (not a branch or tag).
COMMIT_SHA = re.compile(r"[0-9a-f]{40}")


@dataclass
class DataLocation:
    """A resolved place to read a record from: a mirror folder, or a hub repo at a commit."""

    kind: str  # "mirror" or "hub"
    config: str | None
    folder: Path | None = None
    repo: str | None = None
    revision: str | None = None
    read: Any = None  # the record's `source.read`, when its files are read by clinreg's own readers
    record_id: str = ""
    notices: list[str] = field(default_factory=list)
    offline: bool = False  # read from huggingface_hub's cache without asking the hub
    branch: str | None = None  # the branch or tag the record names, resolved online to `revision`
    commit_read: str | None = None  # a mirror's commit, where its clone or its folder name says it (provenance)
    _content_hash: str | None = field(default=None, repr=False)
    _hashing: Any = field(default=None, repr=False, compare=False)

    def start_hashing(self) -> None:
        """Begin a mirror's content hash on a second thread (hashlib and file reads release the GIL), so that a
        build reads and renders its first rows meanwhile; `describe` waits for it. Once per location."""
        if self.kind == "hub" or self.folder is None or self._content_hash is not None or self._hashing is not None:
            return
        result: dict[str, Any] = {}

        def work() -> None:
            try:
                result["hash"] = content_hash(self.folder)
            except BaseException as err:  # noqa: BLE001 - handed to the caller of describe(), on its own thread
                result["error"] = err

        thread = threading.Thread(target=work, name="clinreg-content-hash", daemon=True)
        self._hashing = (thread, result)
        thread.start()

    def describe(self) -> dict[str, str]:
        """What the lock file records: the revision read, or the mirror's content hash."""
        if self.kind == "hub":
            return {"kind": "hub", "repo": self.repo or "", "revision": self.revision or ""}
        if self._content_hash is None and self._hashing is not None:
            thread, result = self._hashing
            thread.join()
            self._hashing = None
            if "error" in result:
                raise result["error"]
            self._content_hash = result["hash"]
        if self._content_hash is None:
            self._content_hash = content_hash(self.folder)
        return {"kind": "mirror", "folder": self.folder.name, "content_sha256": self._content_hash}


def content_hash(folder: Path) -> str:
    """sha256 over every visible file of a mirror folder: relative path, size and bytes, in path order."""
    digest = hashlib.sha256()
    files = sorted(
        p for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(HIDDEN_PREFIXES) for part in p.relative_to(folder).parts)
    )
    for path in files:
        rel = path.relative_to(folder).as_posix()
        digest.update(f"{rel}\0{path.stat().st_size}\0".encode())
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()
