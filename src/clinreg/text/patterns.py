"""Regular expressions that records supply (`extract` steps): a static check for patterns whose matching time can
grow exponentially, and a time limit for matching them.

Python's `re` backtracks. A quantifier inside a quantifier, such as `(\\w+\\s*)+`, can try exponentially many
ways to split a text that almost matches, and a pull request could add one to a record. The static check
refuses a variable repetition nested inside another one (star height 2) unless the inner one cannot backtrack
(possessive `*+` or an atomic group `(?>...)`) or each round of the outer one has a delimiter (see
nested_repetition). It does not catch every slow pattern (alternatives that
overlap inside a repetition, or several unbounded repetitions in a row, can still be slow), so matching also
runs under a time limit (`deadline`) where the platform allows it. Standard library only: the validate rules
use the check too.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from clinreg.errors import ClinregError

try:  # Python 3.11+
    from re import _compiler as _sre_compile
    from re import _constants as _c
    from re import _parser as _sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_compile as _sre_compile  # type: ignore[no-redef]
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

_VARIABLE_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT)
_SAFE_REPEATS = tuple(getattr(_c, name) for name in ("POSSESSIVE_REPEAT",) if hasattr(_c, name))
_ATOMIC = getattr(_c, "ATOMIC_GROUP", None)


def nested_repetition(pattern: str) -> str | None:
    r"""The first repetition nested inside another in `pattern` (as text to show), or None.

    An outer repetition whose body has a delimiter is exempt: a character the body must match once per
    round (outside any repetition or alternative) that none of the body's variable parts can match, as the
    `,` of `(?:,\s*\w+)*` or the `\s` of `(?:\w+\s)*`. Each round then ends where its delimiter is, so the
    text splits into rounds one way only. A pattern that does not compile gives None: the caller reports the
    compile error itself.
    """
    try:
        tree = _sre_parse.parse(pattern)
    except Exception:  # noqa: BLE001 - re.error, or RecursionError on absurd nesting
        return None
    try:
        return _walk(list(tree), False, tree.state)
    except RecursionError:
        return "nesting too deep to check"


def _walk(items: list, inside: bool, state: Any) -> str | None:
    for op, av in items:
        found = None
        if op in _VARIABLE_REPEATS:
            low, high, sub = av
            if low != high and inside:  # a variable repetition inside one that repeats
                return _shown(low, high)
            repeats = low != high and (high == _c.MAXREPEAT or high > 1)
            found = _walk(list(sub), inside or (repeats and not _delimited(list(sub), state)), state)
        elif op in _SAFE_REPEATS or (_ATOMIC is not None and op == _ATOMIC):
            body = av[2] if op in _SAFE_REPEATS else av
            found = _walk(list(body), False, state)  # nothing inside can be retried once it has matched
        elif op == _c.SUBPATTERN:
            found = _walk(list(av[-1]), inside, state)
        elif op == _c.BRANCH:
            for branch in av[1]:
                found = found or _walk(list(branch), inside, state)
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            found = _walk(list(av[1]), inside, state)
        elif op == _c.GROUPREF_EXISTS:
            found = (_walk(list(av[1]), inside, state)
                     or (_walk(list(av[2]), inside, state) if av[2] is not None else None))
        if found:
            return found
    return None


_CHAR_NODES = (_c.LITERAL, _c.NOT_LITERAL, _c.IN, _c.ANY, _c.CATEGORY)
# The characters a delimiter is tested on: every code point below U+0400 and a few from further on.
_ALPHABET = [chr(i) for i in range(0x400)] + list("\u2013\u2014\u2028\u3000\u4e2d\uff0c\U0001F600")


def _delimited(body: list, state: Any) -> bool:
    """Whether `body` has a mandatory one-character part that no variable part of it can match."""
    mandatory, variable = [], []
    if not _split_parts(body, mandatory, variable):
        return False
    if not variable:
        return True
    compiled_variable = [_one_char(node, state) for node in variable]
    for node in mandatory:
        delimiter = _one_char(node, state)
        chars = [ch for ch in _ALPHABET if delimiter.fullmatch(ch)]
        if chars and not any(v.fullmatch(ch) for v in compiled_variable for ch in chars):
            return True
    return False


def _split_parts(items: list, mandatory: list, variable: list, optional: bool = False) -> bool:
    """Sort the one-character parts of `items` into those matched once per round and those that may match
    any number of times; False when the body holds something this cannot follow (a back-reference, ...)."""
    for op, av in items:
        if op in _CHAR_NODES:
            (variable if optional else mandatory).append((op, av))
        elif op == _c.SUBPATTERN:
            if not _split_parts(list(av[-1]), mandatory, variable, optional):
                return False
        elif op in _VARIABLE_REPEATS or op in _SAFE_REPEATS:
            low, high, sub = av
            if not _split_parts(list(sub), mandatory if (low == high and not optional) else [], variable,
                                optional or low != high):
                return False
            if low == high and not optional:  # a fixed count: its parts are as mandatory as the rest
                continue
        elif op == _c.BRANCH:
            for branch in av[1]:
                if not _split_parts(list(branch), [], variable, True):
                    return False
        elif op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
            continue  # match no character
        else:
            return False
    return True


def _one_char(node: tuple, state: Any) -> Any:
    return _sre_compile.compile(_sre_parse.SubPattern(state, [node]), 0)


def _shown(low: int, high: Any) -> str:
    if high == _c.MAXREPEAT:
        return {0: "*", 1: "+"}.get(low, f"{{{low},}}")
    return "?" if (low, high) == (0, 1) else f"{{{low},{high}}}"


class PatternTimeout(ClinregError):
    """Raised inside matching when `deadline` runs out."""

    default_code = "CLR714"


@contextmanager
def deadline(seconds: float) -> Iterator[Callable[[], None]]:
    """Yield `arm`: each call gives the matching that follows `seconds` before PatternTimeout interrupts it.

    `re` checks for signals while it backtracks, so a SIGALRM interval timer stops it. That needs the main
    thread of a POSIX process; elsewhere `arm` does nothing (the static check still applies). The handler is
    installed once for the block; a handler and timer already set are put back afterwards, the timer less the
    time the block took (an alarm that fell due meanwhile fires at once).
    """
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    active = [False]

    def expired(signum, frame):
        if active[0]:  # an alarm that lands while the block is ending is moot
            raise PatternTimeout

    def arm() -> None:
        active[0] = True
        signal.setitimer(signal.ITIMER_REAL, seconds)

    previous = signal.signal(signal.SIGALRM, expired)
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, 0)
    started = time.monotonic()
    try:
        yield arm
    finally:
        while True:
            try:
                active[0] = False
                break
            except PatternTimeout:  # raised between the block's end and the line above: the match had finished
                continue
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            # None: a handler set outside Python, which cannot be put back from here; the default stands in.
            signal.signal(signal.SIGALRM, signal.SIG_DFL if previous is None else previous)
            if old_delay:
                left = old_delay - (time.monotonic() - started)
                signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), old_interval)


def glob_class_problem(pattern: str) -> str | None:
    """Why a file pattern's `[...]` character class is unusable (a reversed range such as `[z-a]`), or None.

    The readers turn each class into a regular-expression class, so one that `re` refuses would fail at build
    time; `validate` (CLR713) and the readers report it with this text instead.
    """
    import re

    i = 0
    while True:
        start = pattern.find("[", i)
        if start < 0 or "]" not in pattern[start + 2:]:
            return None
        close = pattern.index("]", start + 2)
        body = pattern[start + 1:close].replace("\\", "\\\\")
        try:
            re.compile("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
        except re.error as err:
            return f"its character class [{pattern[start + 1:close]}] is invalid ({err.msg})"
        i = close + 1
