"""Run every registered check over a loaded registry and collect one report of all problems."""

from __future__ import annotations

from clinreg.core.diagnostics import Diagnostic, Report
from clinreg.core.store import Registry, gc_paused, load_registry
from clinreg.rules import coverage, identity, labels, parse, reads, refs, review, schema, sources, versions  # noqa: F401
from clinreg.rules.base import CHECKS
from clinreg.rules.context import Context


def run_rules(reg: Registry, base: str | None = None) -> Report:
    ctx = Context(reg, base=base)
    diagnostics: list[Diagnostic] = list(reg.diagnostics)
    with gc_paused():  # rules allocate many small objects while the whole tree is alive (see store.gc_paused)
        for check in CHECKS.values():
            diagnostics.extend(check(ctx))
    return Report(diagnostics=diagnostics, files=len(reg.files))


def identity_problems(reg: Registry) -> list[Diagnostic]:
    """The identity rules (CLR2xx: ids unique, snake_case, each record in the file named after it) alone: what
    every command that reads data runs before it writes an id anywhere."""
    ctx = Context(reg)
    found: list[Diagnostic] = []
    for code, check in CHECKS.items():
        if code.startswith("CLR2"):
            found.extend(d for d in check(ctx) if d.severity == "error")
    return found


def record_errors(reg: Registry, dataset_id: str) -> list[Diagnostic]:
    """Every error `validate` finds in one record's file: what `build` refuses to build from."""
    sf = reg.dataset_files.get(dataset_id)
    if sf is None:
        return []
    return [d for d in run_rules(reg).sorted() if d.severity == "error" and d.file == sf.rel]


def validate(root=None, *, release: str | None = None, base: str | None = None) -> Report:
    """Load the tree at `root` and run every rule. The library entry point behind `clinreg validate`."""
    reg = load_registry(root, release=release)
    return run_rules(reg, base=base)
