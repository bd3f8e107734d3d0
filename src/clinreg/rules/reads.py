"""Read-step rules: every split a mapping builds is read from declared files, inside the mirror, by declared steps."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from typing import Iterable

from clinreg.core.diagnostics import Diagnostic
from clinreg.core.model import GitHubSource, HubSource
from clinreg.core.specfiles import file_patterns
from clinreg.rules.base import rule
from clinreg.rules.context import Context
from clinreg.rules.sources import unsafe_local_path
from clinreg.text.patterns import glob_class_problem, nested_repetition

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@rule("CLR711")
def read_missing(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        if ds.source.read is None and not isinstance(ds.source, HubSource):
            what = f"{ds.source.type} source has no `read`; its files cannot be built as distributed"
            note = getattr(ds.source, "read_note", None)
            if note:
                yield ctx.at("CLR711", ctx.reg.dataset_files[ds_id], ("source",),
                             f"{what} (record says: {' '.join(note.split())})")
            else:
                yield ctx.at("CLR711", ctx.reg.dataset_files[ds_id], ("source",), what,
                             "add `read: {splits: {SPLIT: {files: PATH}}}` (see CONTRIBUTING, 'The read step')")


@rule("CLR712")
def read_splits(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        read = ds.source.read
        if read is None:
            continue
        sf = ctx.reg.dataset_files[ds_id]
        for i, mapping in enumerate(ds.mappings):
            for j, split in enumerate(mapping.splits):
                if split not in read.splits:
                    yield ctx.at("CLR712", sf, ("mappings", i, "splits", j),
                                 f"split {split!r} is not in source.read.splits ({', '.join(read.splits)})")


@rule("CLR713")
def read_references(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        read = ds.source.read
        if read is None:
            continue
        sf = ctx.reg.dataset_files[ds_id]
        specs = [(("source", "read", "splits", name), spec) for name, spec in read.splits.items()]
        specs += [(("source", "read", "tables", name), spec) for name, spec in read.tables.items()]
        for path, spec in specs:
            names = set()
            for pattern in file_patterns(spec.files):
                if "{" in pattern:
                    names.update(_PLACEHOLDER.findall(pattern))
                why = unsafe_local_path(pattern) or ("it holds a backslash; write paths with `/`" if "\\" in pattern
                                                     else None) \
                    or glob_class_problem(pattern)
                if why:
                    yield ctx.at("CLR713", sf, path + ("files",), f"file {pattern!r} is unsafe: {why}")
            why = unsafe_local_path(spec.archive) if spec.archive is not None else None
            if why:
                yield ctx.at("CLR713", sf, path + ("archive",), f"archive {spec.archive!r} is unsafe: {why}")
            for key in spec.where:
                if key not in names:
                    yield ctx.at("CLR713", sf, path + ("where", key),
                                 f"`where` names {{{key}}}, which no file pattern has", key=True)
            for k, step in enumerate(getattr(spec, "steps", [])):
                if step.join is not None and step.join.table not in read.tables:
                    yield ctx.at("CLR713", sf, path + ("steps", k, "join", "table"),
                                 f"join names table {step.join.table!r}, not in read.tables "
                                 f"({', '.join(read.tables) or 'none'})")


@rule("CLR714")
def read_patterns(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        read = ds.source.read
        if read is None:
            continue
        sf = None
        for kind, specs in (("splits", read.splits), ("tables", read.tables)):
            for name, spec in specs.items():
                for k, step in enumerate(getattr(spec, "steps", [])):
                    if step.extract is None:
                        continue
                    for j, pattern in enumerate(step.extract.patterns):
                        inner = nested_repetition(pattern)
                        if inner:
                            sf = sf or ctx.reg.dataset_files[ds_id]
                            yield ctx.at("CLR714", sf, ("source", "read", kind, name, "steps", k, "extract", "patterns",
                                                        j),
                                         f"extract pattern {pattern!r} repeats `{inner}` inside another repetition; "
                                         "matching can take exponential time",
                                         "write it without the nesting, give each round a delimiter its variable parts "
                                         "cannot match (`(?:,\\s*\\w+)*`), or make the inner part possessive (`++`) or "
                                         "atomic (`(?>...)`, Python 3.11+)")


def _as_glob(pattern: str) -> str:
    return _PLACEHOLDER.sub("*", pattern)


def _listed(pattern: str, paths: list[str]) -> bool:
    """A read pattern is listed when a path names it, or one of them matches the other as a glob."""
    read = _as_glob(pattern)
    return any(read == _as_glob(p) or fnmatchcase(read, _as_glob(p)) or fnmatchcase(_as_glob(p), read) for p in paths)


@rule("CLR715")
def read_files_in_paths(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, ds in ctx.reg.datasets.items():
        source = ds.source
        if not isinstance(source, GitHubSource) or source.read is None:
            continue
        sf = ctx.reg.dataset_files[ds_id]
        specs = [(("source", "read", "splits", name), spec) for name, spec in source.read.splits.items()]
        specs += [(("source", "read", "tables", name), spec) for name, spec in source.read.tables.items()]
        for path, spec in specs:
            if spec.archive is not None:
                read, where = [spec.archive], path + ("archive",)
            else:
                read = file_patterns(spec.files)
                where = path + ("files",)
            for pattern in read:
                if pattern.startswith("TODO") or any(p.startswith("TODO") for p in source.paths):
                    continue  # a skeleton's placeholders: CLR106 asks for them
                if not _listed(pattern, source.paths):
                    yield ctx.at("CLR715", sf, where,
                                 f"the read step reads {pattern!r}, which `source.paths` does not list",
                                 f"add it to `paths` (now: {', '.join(source.paths)})")
