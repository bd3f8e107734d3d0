"""For tests of code that works on a thread of its own (read-ahead, the writer, the content hash): run the
caller's side so that a deadlock fails the test instead of hanging it, and tell the threads a test started from
those earlier tests left."""

from __future__ import annotations

import threading

# Seconds a test waits for work that should take milliseconds before it calls the work stuck (never reached when
# the code is right; no assertion is about how long anything took).
STUCK = 60


def within(work, stuck: str, timeout: float = STUCK):
    """Run `work` on a thread; its result, or its exception raised here. Fails with `stuck`, rather than hangs, on a
    deadlock."""
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = work()
        except BaseException as err:  # noqa: BLE001 - handed to the test's thread
            out["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), stuck
    if "error" in out:
        raise out["error"]
    return out.get("value")


class NamedThreads:
    """The threads of one name that a test started: running now, and not running when the test began (`begin`)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.earlier: set[threading.Thread] = set()

    def begin(self) -> None:
        self.earlier = {t for t in threading.enumerate() if t.name == self.name}

    def alive(self) -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == self.name and t not in self.earlier]
