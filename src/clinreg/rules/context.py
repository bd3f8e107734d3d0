"""What a rule sees: the loaded registry, the run's options, and helpers that locate diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from clinreg.core.diagnostics import Diagnostic, make
from clinreg.core.scalars import scan
from clinreg.core.store import Registry, SourceFile, TaskEntry


@dataclass
class Context:
    reg: Registry
    base: str | None = None  # a git ref to compare record versions against
    options: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def tasks(self) -> dict[str, TaskEntry]:
        return self.reg.tasks()

    @cached_property
    def incomplete(self) -> bool:
        """True when some dataset file failed to load, so coverage gaps may be caused by that failure."""
        return any(f.kind == "dataset" and f.model is None for f in self.reg.files)

    @cached_property
    def task_datasets(self) -> dict[str, list[str]]:
        """task id -> ids of datasets with a mapping that measures it."""
        out: dict[str, dict[str, None]] = {}  # dicts as ordered sets: a list membership test was quadratic
        for ds_id, ds in self.reg.datasets.items():
            for m in ds.mappings:
                for t in m.tasks:
                    out.setdefault(t, {})[ds_id] = None
        return {t: list(ids) for t, ids in out.items()}

    @cached_property
    def mappings(self) -> list[tuple[SourceFile, tuple, Any]]:
        """(file, path, mapping) for every mapping of every dataset, in registry order."""
        files = self.reg.dataset_files
        return [(files[ds_id], ("mappings", i), m) for ds_id, ds in self.reg.datasets.items()
                for i, m in enumerate(ds.mappings)]

    @cached_property
    def scalar_findings(self) -> dict[str, list[Diagnostic]]:
        """CLR702, CLR704 and CLR106 diagnostics, found in one pass over every file's scalars."""
        return scan(self)

    def at(self, code: str, sf: SourceFile, path: tuple, message: str, hint: str | None = None, *, key: bool = False,
           severity=None) -> Diagnostic:
        line, col = sf.where_key(*path) if key else sf.where(*path)
        return make(code, sf.rel, line, col, message, hint, severity)
