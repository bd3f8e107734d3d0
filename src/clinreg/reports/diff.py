"""What changed between two registries: records added, removed, renamed, moved or edited, and coverage per subcategory.

Opening OLD and NEW (a folder, a release or a git ref) is loading: `clinreg.core.gitref`."""

from __future__ import annotations

from typing import Any

from clinreg.core.semver import parse_semver
from clinreg.core.store import Registry
from clinreg.reports.coverage import coverage_data

# Lists of records with ids are compared by id (`mappings.pubmed_qa.metric.name`), not by position.
KEYED_LISTS = ("mappings", "variants")


# --------------------------------------------------------------------------------------------- comparing


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Leaf values by dotted path; lists of records with ids are keyed by id, other lists are leaves."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out if out or not prefix else {prefix: {}}
    if isinstance(value, list) and prefix.rsplit(".", 1)[-1] in KEYED_LISTS and all(
            isinstance(v, dict) and "id" in v for v in value):
        out = {}
        for item in value:
            out.update(flatten({k: v for k, v in item.items() if k != "id"}, f"{prefix}.{item['id']}"))
        return out
    return {prefix: value}


def field_changes(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    a, b = flatten(old), flatten(new)
    return [{"path": k, "old": a.get(k), "new": b.get(k)} for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]


def _norm(text: str | None) -> str:
    return " ".join((text or "").lower().split())


def _pair_renames(removed: dict[str, dict], added: dict[str, dict], keys) -> list[tuple[str, str]]:
    """Match removed to added ids: same content first, then any shared identifying key (name, definition, source).

    Each removed id (in sorted order) takes the first added id (in sorted order) still free that matches it.
    Candidates are found through an index per key, so the cost grows with the number of records, not its square.
    """
    import json

    pairs: list[tuple[str, str]] = []
    free = set(added)

    def content(record: dict) -> str:
        return json.dumps(record, sort_keys=True, default=str, allow_nan=False)

    def match(key_functions) -> None:
        index: dict[Any, list[str]] = {}
        for new_id in sorted(free):
            for k in key_functions(added[new_id]):
                index.setdefault(k, []).append(new_id)
        cursor: dict[Any, int] = {}
        for old_id in sorted(left):
            best = None
            for k in key_functions(removed[old_id]):
                ids, i = index.get(k, []), cursor.get(k, 0)
                while i < len(ids) and ids[i] not in free:  # skip ids taken by earlier pairs (each skipped once)
                    i += 1
                cursor[k] = i
                if i < len(ids) and (best is None or ids[i] < best):
                    best = ids[i]
            if best is not None:
                pairs.append((old_id, best))
                free.discard(best)
                del left[old_id]

    left = dict(removed)
    match(lambda record: [("content", content(record))])
    match(lambda record: [(n, v) for n, k in enumerate(keys) if (v := k(record))])
    return pairs


def _task_records(reg: Registry) -> dict[str, dict[str, Any]]:
    return {tid: {"content": e.task.model_dump(mode="json", exclude={"id"}, exclude_none=True),
                  "name": e.task.name, "subcategory": e.subcategory.id, "subcategory_name": e.subcategory.name}
            for tid, e in reg.tasks().items()}


def _dataset_records(reg: Registry) -> dict[str, dict[str, Any]]:
    where = {tid: e.subcategory.id for tid, e in reg.tasks().items()}
    out = {}
    for ds_id, ds in reg.datasets.items():
        tasks = sorted({t for m in ds.mappings for t in m.tasks})
        out[ds_id] = {"content": ds.model_dump(mode="json", by_alias=False, exclude={"id", "schema_"},
                                               exclude_none=True),
                      "name": ds.name, "added_in": ds.added_in, "in_medhelm": ds.in_medhelm,
                      "removed_in": ds.removed_in, "access": ds.access.tier, "tasks": tasks,
                      "subcategories": sorted({where[t] for t in tasks if t in where})}
    return out


def _name_key(content: dict[str, Any]) -> str:
    return _norm(content.get("name"))


def _definition_key(content: dict[str, Any]) -> str:
    return _norm(content.get("definition"))


def _source_key(content: dict[str, Any]) -> str | None:
    """Where a dataset's data lives, ignoring the pinned revision: the same source under a new id is a rename."""
    src = dict(content.get("source", {}))
    for pinned in ("revision", "commit", "revision_note"):
        src.pop(pinned, None)
    return repr(sorted(src.items())) if len(src) > 1 else None


def compare(old: dict[str, dict], new: dict[str, dict], keys, place: str) -> dict[str, list]:
    """Added, removed, renamed, moved (`place` differs) and changed records between two id -> record maps."""
    gone = {k: old[k]["content"] for k in sorted(old.keys() - new.keys())}
    arrived = {k: new[k]["content"] for k in sorted(new.keys() - old.keys())}
    renames = _pair_renames(gone, arrived, keys)
    same = [(k, k) for k in sorted(old.keys() & new.keys())]
    out: dict[str, list] = {"added": [], "removed": [], "renamed": [], "moved": [], "changed": []}
    for k in sorted(arrived.keys() - {n for _, n in renames}):
        out["added"].append({"id": k, **{f: v for f, v in new[k].items() if f != "content"}})
    for k in sorted(gone.keys() - {o for o, _ in renames}):
        out["removed"].append({"id": k, **{f: v for f, v in old[k].items() if f != "content"}})
    for old_id, new_id in sorted(renames):
        out["renamed"].append({"old_id": old_id, "id": new_id, "name": new[new_id]["name"],
                               "changes": field_changes(old[old_id]["content"], new[new_id]["content"])})
    for old_id, new_id in same + sorted(renames):
        a, b = old[old_id], new[new_id]
        if a[place] != b[place]:
            out["moved"].append({"id": new_id, "old_id": old_id, "name": b["name"], "from": a[place], "to": b[place]})
        if old_id == new_id:
            changes = field_changes(a["content"], b["content"])
            if changes:
                out["changed"].append({"id": new_id, "name": b["name"], "changes": changes})
    return out


def _taxonomy_nodes(reg: Registry) -> dict[str, dict[str, dict]]:
    cats, subs = {}, {}
    for cat, _ in reg.ordered_categories():
        cats[cat.id] = {"name": cat.name, "category": None,
                        "content": cat.model_dump(mode="json", exclude={"id", "schema_", "subcategories"},
                                                  exclude_none=True)}
        for sub in cat.subcategories:
            subs[sub.id] = {"name": sub.name, "category": cat.id,
                            "content": sub.model_dump(mode="json", exclude={"id", "tasks"}, exclude_none=True)}
    return {"categories": cats, "subcategories": subs}


def _coverage_changes(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    def view(row):
        return {"tasks": row["tasks"], "tasks_covered": row["tasks_covered"], "datasets": len(row["datasets"])}

    a = {s["id"]: s for s in old["subcategories"]}
    b = {s["id"]: s for s in new["subcategories"]}
    order = [s["id"] for s in new["subcategories"]] + [s for s in a if s not in b]
    out = []
    for sub_id in order:
        before = view(a[sub_id]) if sub_id in a else None
        after = view(b[sub_id]) if sub_id in b else None
        if before != after:
            row = b.get(sub_id) or a[sub_id]
            out.append({"id": sub_id, "name": row["name"], "category_name": row["category_name"],
                        "old": before, "new": after})
    return out


def _releases(old: Registry, new: Registry) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for reg in (old, new):
        for r in reg.releases.releases if reg.releases else []:
            seen.setdefault(r.version, {"version": r.version, "date": r.date.isoformat(), "title": r.title})
    return sorted(seen.values(), key=lambda r: parse_semver(r["version"]) or ())


def _by_release(added: list[dict[str, Any]], releases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    info = {r["version"]: r for r in releases}
    groups: dict[str, list[str]] = {}
    for d in added:
        groups.setdefault(d["added_in"], []).append(d["id"])
    order = sorted(groups, key=lambda v: (parse_semver(v) is None, parse_semver(v) or (), v))
    return [{"version": v, "date": info.get(v, {}).get("date"), "title": info.get(v, {}).get("title"),
             "datasets": groups[v]} for v in order]


def diff_registries(old: Registry, new: Registry, old_side: dict | None = None,
                    new_side: dict | None = None) -> dict[str, Any]:
    """Everything that changed from `old` to `new`, as plain data for the Markdown and JSON renderers."""
    old_cov, new_cov = coverage_data(old), coverage_data(new)
    old_nodes, new_nodes = _taxonomy_nodes(old), _taxonomy_nodes(new)
    tasks = compare(_task_records(old), _task_records(new), [_name_key, _definition_key], "subcategory")
    datasets = compare(_dataset_records(old), _dataset_records(new), [_source_key, _name_key], "subcategories")
    releases = _releases(old, new)
    changes = {
        "categories": compare(old_nodes["categories"], new_nodes["categories"], [_name_key], "category"),
        "subcategories": compare(old_nodes["subcategories"], new_nodes["subcategories"], [_name_key], "category"),
        "tasks": tasks,
        "datasets": datasets,
    }
    summary = {f"{kind}_{change}": len(items) for kind, by_change in changes.items()
               for change, items in by_change.items()}
    coverage = _coverage_changes(old_cov, new_cov)
    names = {**{k: v["name"] for k, v in old_nodes["subcategories"].items()},
             **{k: v["name"] for k, v in new_nodes["subcategories"].items()}}
    return {
        "old": {**(old_side or {}), "release": old.current_release},
        "new": {**(new_side or {}), "release": new.current_release},
        "releases": releases,
        "summary": summary,
        **changes,
        "datasets_added_by_release": _by_release(datasets["added"], releases),
        "coverage": coverage,
        "totals": {side: {k: cov["totals"][k] for k in ("tasks", "tasks_covered", "datasets", "benchmarks")}
                   for side, cov in (("old", old_cov), ("new", new_cov))},
        "subcategory_names": names,
        "unchanged": not any(summary.values()) and not coverage,
    }
