"""Identity rules: ids are unique and snake_case, and each record lives in the file named after it."""

from __future__ import annotations

import re
from typing import Iterable

from clinreg.core.diagnostics import Diagnostic
from clinreg.core.model import ID_PATTERN
from clinreg.rules.base import rule
from clinreg.rules.context import Context

_ID = re.compile(ID_PATTERN)


@rule("CLR202")
def id_format(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, value in _ids(ctx):
        if not _ID.fullmatch(value):
            suggestion = re.sub(r"[^a-z0-9]+", "_", value.lower()).strip("_") or "an_id"
            if suggestion[0].isdigit():
                suggestion = "x_" + suggestion
            yield ctx.at("CLR202", sf, path, f"id {value!r} is not snake_case", f"use `{suggestion}`")


def _ids(ctx: Context):
    for category, sf in ctx.reg.categories.values():
        yield sf, ("id",), category.id
        for i, sub in enumerate(category.subcategories):
            yield sf, ("subcategories", i, "id"), sub.id
            for j, task in enumerate(sub.tasks):
                yield sf, ("subcategories", i, "tasks", j, "id"), task.id
    for ds_id, ds in ctx.reg.datasets.items():
        sf = ctx.reg.dataset_files[ds_id]
        yield sf, ("id",), ds.id
        for i, m in enumerate(ds.mappings):
            yield sf, ("mappings", i, "id"), m.id
    if ctx.reg.taxonomy is not None:
        yield ctx.reg.taxonomy_file, ("id",), ctx.reg.taxonomy.id


@rule("CLR203")
def duplicate_ids(ctx: Context) -> Iterable[Diagnostic]:
    seen: dict[tuple[str, str], str] = {}
    for category, sf in ctx.reg.ordered_categories():
        for i, sub in enumerate(category.subcategories):
            items = [("subcategory", sub.id, ("subcategories", i, "id"))]
            items += [("task", t.id, ("subcategories", i, "tasks", j, "id")) for j, t in enumerate(sub.tasks)]
            for kind, item_id, path in items:
                first = seen.get((kind, item_id))
                if first is not None:
                    yield ctx.at("CLR203", sf, path, f"{kind} id {item_id!r} is already defined ({first})",
                                 "give each item its own id")
                else:
                    line, _ = sf.where(*path)
                    seen[(kind, item_id)] = f"{sf.rel}:{line}"
    for ds_id, ds in ctx.reg.datasets.items():
        sf = ctx.reg.dataset_files[ds_id]
        names: set[str] = set()
        for i, m in enumerate(ds.mappings):
            if m.id in names:
                yield ctx.at("CLR203", sf, ("mappings", i, "id"), f"mapping id {m.id!r} appears twice in this record")
            names.add(m.id)


@rule("CLR204")
def file_name(ctx: Context) -> Iterable[Diagnostic]:
    for ds_id, sf in ctx.reg.dataset_files.items():
        if sf.path.stem != ds_id:
            yield ctx.at("CLR204", sf, ("id",), f"the record's id is {ds_id!r} but the file is named {sf.path.name}",
                         f"rename the file to {ds_id}.yaml")
    for cat_id, (_, sf) in ctx.reg.categories.items():
        if sf.path.stem != cat_id:
            yield ctx.at("CLR204", sf, ("id",), f"the category's id is {cat_id!r} but the file is named {sf.path.name}",
                         f"rename the file to {cat_id}.yaml")
