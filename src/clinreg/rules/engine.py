"""Run every registered rule over a loaded registry and collect one report of all problems."""

from __future__ import annotations

from clinreg.diagnostics import Diagnostic, Report
from clinreg.loaders import data_rules  # noqa: F401  (check-data's codes, so `rules` and `explain` list them)
from clinreg.rules import coverage, identity, labels, parse, reads, refs, review, schema, sources, versions  # noqa: F401
from clinreg.rules.base import RULES
from clinreg.rules.context import Context
from clinreg.store import Registry, gc_paused, load_registry

# `results import` and `leaderboard` codes (CLR96x), so that `rules` and `explain` list them.
from clinreg.results import codes as results_codes  # noqa: F401


def run_rules(reg: Registry, base: str | None = None) -> Report:
    ctx = Context(reg, base=base)
    diagnostics: list[Diagnostic] = list(reg.diagnostics)
    with gc_paused():  # rules allocate many small objects while the whole tree is alive (see store.gc_paused)
        for rule in RULES.values():
            if rule.check is not None:
                diagnostics.extend(rule.check(ctx))
    return Report(diagnostics=diagnostics, files=len(reg.files))


def validate(root=None, *, release: str | None = None, base: str | None = None) -> Report:
    """Load the tree at `root` and run every rule. The library entry point behind `clinreg validate`."""
    reg = load_registry(root, release=release)
    return run_rules(reg, base=base)
