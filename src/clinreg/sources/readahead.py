"""Read the next batch of a file on a second thread while the build works on this one.

Arrow's CSV and JSON readers parse with the GIL released, so a build's Python work and the parsing of its next
block overlap on two cores. The batches, their order and any error are exactly the reader's own."""

from __future__ import annotations

import queue
import threading
from typing import Iterator, TypeVar

T = TypeVar("T")
_WAIT = 0.1  # seconds between looks at the stop flag while the queue is full


def read_ahead(batches: Iterator[T], depth: int = 1) -> Iterator[T]:
    """The items of `batches`, at most `depth` read before they are asked for. An error of the reader is raised
    where the item it stopped at would have been; closing this iterator early closes `batches` on its thread."""
    slots: "queue.Queue[tuple[str, object]]" = queue.Queue(max(1, depth))  # 0 would be no bound
    stop = threading.Event()

    def put(kind: str, value: object) -> bool:
        while not stop.is_set():
            try:
                slots.put((kind, value), timeout=_WAIT)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in batches:
                if not put("item", item):
                    break
            else:
                put("done", None)
        except BaseException as err:  # noqa: BLE001 - raised again on the consumer's thread
            put("error", err)
        finally:
            if stop.is_set():
                close = getattr(batches, "close", None)
                if close is not None:
                    close()  # the reader's own cleanup (its open file), on the thread that ran it

    thread = threading.Thread(target=produce, name="clinreg-read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            kind, value = slots.get()
            if kind == "item":
                yield value  # type: ignore[misc]
            elif kind == "error":
                raise value  # type: ignore[misc]
            else:
                return
    finally:
        stop.set()
        while thread.is_alive():
            try:
                slots.get(timeout=_WAIT)  # a producer waiting on a full queue sees the flag on its next try
            except queue.Empty:
                pass
        thread.join()
