"""Regular expressions that records supply (`extract` steps): a static check for patterns whose matching time can
grow exponentially, and a time limit for matching them.

Python's `re` backtracks. A quantifier inside a quantifier, such as `(\\w+\\s*)+`, can try exponentially many
ways to split a text that almost matches, and a pull request could add one to a record. The static check
refuses a variable repetition nested inside another one (star height 2) unless the inner one cannot backtrack
(possessive `*+` or an atomic group `(?>...)`). It does not catch every slow pattern (alternatives that
overlap inside a repetition, or several unbounded repetitions in a row, can still be slow), so matching also
runs under a time limit (`deadline`) where the platform allows it. Standard library only: the validate rules
use the check too.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

try:  # Python 3.11+
    from re import _constants as _c
    from re import _parser as _sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

_VARIABLE_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT)
_SAFE_REPEATS = tuple(getattr(_c, name) for name in ("POSSESSIVE_REPEAT",) if hasattr(_c, name))
_ATOMIC = getattr(_c, "ATOMIC_GROUP", None)


def nested_repetition(pattern: str) -> str | None:
    """The first repetition nested inside another in `pattern` (as text to show), or None.

    A pattern that does not compile gives None: the caller reports the compile error itself.
    """
    try:
        tree = _sre_parse.parse(pattern)
    except Exception:  # re.error, or RecursionError on absurd nesting
        return None
    try:
        return _walk(list(tree), False)
    except RecursionError:
        return "nesting too deep to check"


def _walk(items: list, inside: bool) -> str | None:
    for op, av in items:
        found = None
        if op in _VARIABLE_REPEATS:
            low, high, sub = av
            if low != high and inside:  # a variable repetition inside one that repeats
                return _shown(low, high)
            found = _walk(list(sub), inside or (low != high and (high == _c.MAXREPEAT or high > 1)))
        elif op in _SAFE_REPEATS or (_ATOMIC is not None and op == _ATOMIC):
            body = av[2] if op in _SAFE_REPEATS else av
            found = _walk(list(body), False)  # nothing inside can be retried once it has matched
        elif op == _c.SUBPATTERN:
            found = _walk(list(av[-1]), inside)
        elif op == _c.BRANCH:
            for branch in av[1]:
                found = found or _walk(list(branch), inside)
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            found = _walk(list(av[1]), inside)
        elif op == _c.GROUPREF_EXISTS:
            found = _walk(list(av[1]), inside) or (_walk(list(av[2]), inside) if av[2] is not None else None)
        if found:
            return found
    return None


def _shown(low: int, high: Any) -> str:
    if high == _c.MAXREPEAT:
        return {0: "*", 1: "+"}.get(low, f"{{{low},}}")
    return "?" if (low, high) == (0, 1) else f"{{{low},{high}}}"


class PatternTimeout(Exception):
    """Raised inside matching when `deadline` runs out."""


@contextmanager
def deadline(seconds: float) -> Iterator[Callable[[], None]]:
    """Yield `arm`: each call gives the matching that follows `seconds` before PatternTimeout interrupts it.

    `re` checks for signals while it backtracks, so a SIGALRM interval timer stops it. That needs the main
    thread of a POSIX process; elsewhere `arm` does nothing (the static check still applies). The handler is
    installed once for the block; a timer and handler already set are put back afterwards.
    """
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return

    def expired(signum, frame):
        raise PatternTimeout

    def arm() -> None:
        signal.setitimer(signal.ITIMER_REAL, seconds)

    previous = signal.signal(signal.SIGALRM, expired)
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        yield arm
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if old_delay:
            signal.setitimer(signal.ITIMER_REAL, old_delay, old_interval)
