"""clinreg.text.patterns: the nested-repetition check and the match time limit (stdlib only, used by rules and
build)."""

from __future__ import annotations

import re
import signal
import time

import pytest

from clinreg.text.patterns import PatternTimeout, deadline, nested_repetition


@pytest.mark.parametrize("pattern, inner", [
    (r"^(a+)+$", "+"), (r"(a*)*", "*"), (r"(\w+\s*)+x", "+"), (r"(?:a|b+)*", "+"),
    (r"(?P<x>a?)+", "?"), (r"(?=(a+)+)", "+"), (r"(a{2,3})+", "{2,3}"), (r"(\w+\s?)+", "+"), (r"(?:\s*\w+\s*)+", "*"),
    (r"(?:a+b?)+", "+"), (r"(?:a|b)(?:\w+[ab]?)+", "+"),
])
def test_nested_repetitions_are_found(pattern, inner):
    assert nested_repetition(pattern) == inner


@pytest.mark.parametrize("pattern", [
    r"(?>a+)+", r"(a*+)+", r"(\d{4}-)+", r"(a+)?", r"(a+){3}", r"[", r"plain text",
    r"(?s)^(?P<note>.*?)PLAN:[ \t]*(?P<plan>[^\n]*\S)",  # the registry's MTSamples patterns
    r"SUMMARY:[ \t]*(?P<plan>[^\n]*\S)",
    # a delimiter each round must match once and no variable part can: the text splits into rounds one way
    r"(?:[A-Z][a-z]*\s?)+", r"(?:,\s*\w+)*", r"^(?P<x>(?:\d+,\s*)*\d+)$", r"(?:-?\d)+", r"(?:\w+\s)*",
    r"(?:\d{1,3}\.){1,3}", r"((ab)+c)+", r"(?:x|(?:y(z+))+)",
])
def test_patterns_without_nested_repetition_pass(pattern):
    assert nested_repetition(pattern) is None


def test_the_registry_extract_patterns_pass():
    from clinreg.core.store import load_registry

    patterns = [p for ds in load_registry().datasets.values() if ds.source.read
                for specs in (ds.source.read.splits, ds.source.read.tables) for spec in specs.values()
                for step in getattr(spec, "steps", []) if step.extract for p in step.extract.patterns]
    assert len(patterns) >= 4
    assert [p for p in patterns if nested_repetition(p)] == []


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")
def test_deadline_interrupts_a_backtracking_match_and_restores_what_was_set():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    signal.setitimer(signal.ITIMER_REAL, 30)
    try:
        with pytest.raises(PatternTimeout):  # the bound that fired: 2^40 tries would never end on their own
            with deadline(0.2) as arm:
                arm()
                re.search(r"^(a|a)*$", "a" * 40 + "b")
        # the outer timer and handler are back
        assert signal.getsignal(signal.SIGALRM) is not None and 25 < signal.getitimer(signal.ITIMER_REAL)[0] <= 30
        with deadline(5) as arm:  # a quick match under the limit is untouched
            arm()
            assert re.search(r"(?P<a>b)", "ab").group("a") == "b"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert fired == []


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")
def test_an_outer_timer_keeps_running_through_the_block():
    """A caller's own SIGALRM timer (a watchdog, pytest-timeout) is not held back by the block: it comes back
    less the time the block took, and one that fell due during the block fires at once."""
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *a: fired.append(time.monotonic()))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with deadline(5) as arm:
            arm()
            time.sleep(0.5)
        time.sleep(0.1)
        assert fired  # it fell due in the block: it fires by the block's end, not 0.3 s after it (restarted)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")
def test_an_alarm_at_the_end_of_the_block_never_leaves_the_handler_installed():
    before = signal.getsignal(signal.SIGALRM)
    for _ in range(1500):  # the old code left its handler behind about once in 400 such blocks
        try:
            with deadline(0.0005) as arm:
                arm()
                end = time.perf_counter() + 0.0005
                while time.perf_counter() < end:
                    pass
        except PatternTimeout:
            pass
        assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
