"""What changed between two registries: records added, removed, renamed, moved or edited, and coverage per subcategory."""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path
from typing import Any

from clinreg.core.paths import RootError, is_registry_tree, resolve_root
from clinreg.core.semver import parse_semver
from clinreg.core.store import Registry, load_registry
from clinreg.core.yamlsrc import DEFAULT_LIMITS
from clinreg.errors import ClinregError
from clinreg.reports.coverage import coverage_data
from clinreg.text.git import run_git

# Lists of records with ids are compared by id (`mappings.pubmed_qa.metric.name`), not by position.
KEYED_LISTS = ("mappings", "variants")


class SideError(ClinregError, ValueError):
    """OLD or NEW is neither a registry folder, a release version nor a git ref."""

    default_code = "CLR984"


# --------------------------------------------------------------------------------------------- opening a side


def open_side(spec: str, root: str | Path | None, workdir: Path) -> tuple[Registry, dict[str, Any]]:
    """Load OLD or NEW: an existing folder, else a release in registry/releases.yaml, else a git ref of the root's repo."""
    path = Path(spec)
    if spec and path.is_dir():
        if not is_registry_tree(path):
            raise SideError(f"{spec}: not a registry tree (it needs taxonomy/ and registry/ folders)")
        return load_registry(path), {"spec": spec, "kind": "folder", "root": str(path)}
    try:
        base_root = resolve_root(root)
    except RootError as exc:
        raise SideError(str(exc)) from None
    base = load_registry(base_root)
    if base.releases is not None and spec in {r.version for r in base.releases.releases}:
        return load_registry(base_root, release=spec), {"spec": spec, "kind": "release", "root": str(base_root)}
    commit = _git_commit(base_root, spec)
    if commit is None:
        known = ", ".join(r.version for r in base.releases.releases) if base.releases else "none"
        raise SideError(f"{spec}: not a registry folder, a release (known: {known}) or a git ref of {base_root}")
    target = workdir / f"{len(list(workdir.iterdir()))}-{commit[:12]}"
    _extract_tree(base_root, commit, target)
    return load_registry(target), {"spec": spec, "kind": "git", "root": str(base_root), "commit": commit}


def _git_commit(root: Path, ref: str) -> str | None:
    if not ref or ref.startswith("-"):
        return None
    try:
        found = run_git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except FileNotFoundError:
        raise SideError(f"{ref}: not a registry folder or a release, and git is not on PATH to read it as a git ref") from None
    except (OSError, subprocess.SubprocessError):
        return None
    return found.stdout.decode().strip() if found.returncode == 0 else None


# A registry file over the reader's size limit is refused anyway (CLR007); a commit with one is refused before any
# blob is read, so that a huge file in a pull request costs nothing. The total bounds the archive on disk.
MAX_TREE_BYTES = 256 * 1024 * 1024


def _blob_sizes(top: Path, treeish: str) -> list[tuple[str, int]]:
    """(path, size) of every blob under taxonomy/ and registry/ at `treeish`, from the object headers alone."""
    listing = run_git(top, "ls-tree", "-r", "-l", "-z", treeish, "--", "taxonomy", "registry")
    if listing.returncode != 0:
        raise SideError(f"{treeish}: git ls-tree failed: {listing.stderr.decode(errors='replace').strip()}")
    sizes = []
    for entry in listing.stdout.decode("utf-8", errors="replace").split("\0"):
        if not entry:
            continue
        meta, _, path = entry.partition("\t")
        fields = meta.split()
        if len(fields) == 4 and fields[1] == "blob" and fields[3].isdigit():
            sizes.append((path, int(fields[3])))
    return sizes


def _check_sizes(top: Path, treeish: str, commit: str) -> None:
    total = 0
    for path, size in _blob_sizes(top, treeish):
        if size > DEFAULT_LIMITS.max_bytes:
            raise SideError(f"{commit[:12]}: {path} is {size:,} bytes; registry files are at most "
                            f"{DEFAULT_LIMITS.max_bytes:,} bytes (CLR007), so the commit is not read")
        total += size
        if total > MAX_TREE_BYTES:
            raise SideError(f"{commit[:12]}: the registry tree holds more than {MAX_TREE_BYTES:,} bytes; not read")


def _extract_tree(root: Path, commit: str, target: Path) -> None:
    """Write the taxonomy/ and registry/ folders of `root` as they were at `commit` into `target`."""
    top = Path(run_git(root, "rev-parse", "--show-toplevel").stdout.decode().strip()).resolve()
    prefix = root.resolve().relative_to(top).as_posix()
    treeish = commit if prefix == "." else f"{commit}:{prefix}"
    # Run from the top: ls-tree and archive otherwise limit themselves to the working directory's subfolder.
    listing = run_git(top, "ls-tree", "--name-only", treeish)
    names = set(listing.stdout.decode().split("\n")) if listing.returncode == 0 else set()
    if not {"taxonomy", "registry"} <= names:
        raise SideError(f"{commit[:12]}: has no registry tree at {prefix} (it needs taxonomy/ and registry/)")
    _check_sizes(top, treeish, commit)
    target.mkdir(parents=True)
    tar_path = target.with_name(target.name + ".tar")
    # Streamed to a file, not held in memory: the sizes are checked, but a tree can still hold many files.
    archive = run_git(top, "archive", "--format=tar", f"--output={tar_path}", treeish, "--", "taxonomy", "registry")
    if archive.returncode != 0:
        raise SideError(f"{commit[:12]}: git archive failed: {archive.stderr.decode(errors='replace').strip()}")
    try:
        with tarfile.open(tar_path) as tar:
            if hasattr(tarfile, "data_filter"):
                try:
                    tar.extractall(target, filter="data")
                except tarfile.FilterError as exc:  # e.g. a committed link that points out of the tree
                    raise SideError(f"{commit[:12]}: refused to extract {exc.tarinfo.name!r}: {exc}") from None
            else:  # Python without extraction filters: git archive holds only the repository's own paths
                tar.extractall(target)
    finally:
        tar_path.unlink(missing_ok=True)


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
        out[ds_id] = {"content": ds.model_dump(mode="json", by_alias=False, exclude={"id", "schema_"}, exclude_none=True),
                      "name": ds.name, "added_in": ds.added_in, "in_medhelm": ds.in_medhelm, "removed_in": ds.removed_in,
                      "access": ds.access.tier, "tasks": tasks,
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
                        "content": cat.model_dump(mode="json", exclude={"id", "schema_", "subcategories"}, exclude_none=True)}
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


def diff_registries(old: Registry, new: Registry, old_side: dict | None = None, new_side: dict | None = None) -> dict[str, Any]:
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
    summary = {f"{kind}_{change}": len(items) for kind, by_change in changes.items() for change, items in by_change.items()}
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
