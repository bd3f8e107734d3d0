"""The overlap figures file (`clinreg.overlap.json` at the registry root): each record's split fingerprints and
overlap figures as computed from a copy of its data by `clinreg overlap`, with the source read (the mirror's
content hash or the hub revision), so that cards, `clinreg show` and the leaderboard can show them without the data.

The file is generated, never hand-written: `clinreg overlap --data-dir DIR` writes it and `clinreg overlap --check`
recomputes it and names every record whose figures drifted. A record the file does not hold (no copy of its data
was readable where the file was written) is "not computed", never zero. Reading needs no build extra; computing
does.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from clinreg.core.builderrors import BuildError
from clinreg.core.model import Dataset
from clinreg.core.store import Registry
from clinreg.text.jsonout import read_json_object
from clinreg.text.safeio import atomic_write_text

FIGURES_FILE = "clinreg.overlap.json"
FIGURES_VERSION = 1
NOT_COMPUTED = "not computed: data not readable here"


class FiguresUnreadable(BuildError):
    """The overlap figures file is not JSON, or not a clinreg figures file (CLR985)."""

    default_code = "CLR985"
    exit_code = 2


def compute_figures(registry: Registry, data_dir: str | Path | None, *, hub: bool = False) -> dict[str, Any]:
    """Every record's figures where its data can be located (the mirror under `data_dir`, a fixture folder of
    the registry, the hub with `hub`); the others under `not_computed` with the reason."""
    from clinreg.instances.overlap import OVERLAP_METHOD
    from clinreg.instances.splitoverlap import record_figures
    from clinreg.sources.origin import locate

    records: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for record_id in sorted(registry.datasets):
        record = registry.datasets[record_id]
        try:
            records[record_id] = record_figures(record, locate(record, data_dir, registry.root, hub=hub))
        except BuildError as err:
            text = str(err)
            skipped[record_id] = text.replace(f" {data_dir}", "") if data_dir is not None else text
    return {"clinreg_overlap": FIGURES_VERSION, "method": OVERLAP_METHOD, "records": records,
            "not_computed": skipped}


def merge_figures(old: dict[str, Any] | None, fresh: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """What a new figures file holds: the records computed now, and each record the earlier file held that was not
    computed now (its data not at hand this time), kept as it was, with its record version (so that a card shows it
    stale once the record changes): a run without the data never wipes figures. The ids kept are returned."""
    if not old:
        return fresh, []
    kept = {k: v for k, v in (old.get("records") or {}).items()
            if k not in fresh["records"] and k in fresh["not_computed"]}
    merged = {**fresh, "records": {**kept, **fresh["records"]},
              "not_computed": {k: v for k, v in fresh["not_computed"].items() if k not in kept}}
    return merged, sorted(kept)


def write_figures(path: Path, figures: dict[str, Any]) -> None:
    atomic_write_text(path, json.dumps(figures, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")


def read_figures(path: Path) -> dict[str, Any] | None:
    """The figures file, or None where there is none."""
    if not path.is_file():
        return None
    return read_json_object(path, "overlap figures file", "records", FiguresUnreadable)


def _stored(path: Path) -> dict[str, Any] | None:
    """The figures file as cards read it: read once per version of the file (a site reads it for every card)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return _read_once(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def _read_once(path: str, mtime_ns: int, size: int) -> dict[str, Any] | None:
    return read_figures(Path(path))


def drift(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between the file and a fresh computation, record by record (a record computed in neither is
    not drift; one computed in only one of them is)."""
    out = []
    for record_id in sorted(set(old["records"]) | set(new["records"])):
        before, after = old["records"].get(record_id), new["records"].get(record_id)
        if before == after:
            continue
        if before is None:
            out.append(f"{record_id}: computed now but not in the file")
        elif after is None:
            out.append(f"{record_id}: in the file but not computed now ({new['not_computed'].get(record_id, '')})")
        else:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            out.append(f"{record_id}: {', '.join(changed)} changed")
    if old.get("method") != new.get("method"):
        out.append("the method changed")
    return out


def record_entry(registry: Registry, record_id: str) -> dict[str, Any]:
    """What a card says of a record's computed figures: `status` computed, stale (for another record version)
    or not computed, with the figures and where they were computed from."""
    root = getattr(registry, "root", None)
    figures = _stored(Path(root) / FIGURES_FILE) if root is not None else None
    if figures is None:
        return {"status": "not computed",
                "note": f"{NOT_COMPUTED} (no {FIGURES_FILE} beside the registry; `clinreg overlap --data-dir DIR` "
                        "computes it from a copy of the data)"}
    entry = figures["records"].get(record_id)
    if entry is None:
        why = figures.get("not_computed", {}).get(record_id)
        return {"status": "not computed", "note": NOT_COMPUTED + (f" ({why})" if why else "")}
    version = registry.datasets[record_id].version if record_id in registry.datasets else None
    stale = entry.get("record_version") != version
    return {"status": "stale" if stale else "computed", "figures": entry, "method": figures.get("method"),
            "note": (f"computed for record version {entry.get('record_version')}, not this version {version}; "
                     "recompute with `clinreg overlap`") if stale else f"stored in {FIGURES_FILE}, computed from "
                    f"{describe_source(entry.get('source', {}))} by `clinreg overlap`"}


def describe_source(source: dict[str, Any]) -> str:
    if source.get("kind") == "hub":
        return f"the hub copy {source.get('repo')} at {source.get('revision') or 'its default revision'}"
    digest = source.get("content_sha256")
    return f"the mirror folder {source.get('folder', '?')}" + (f" (content sha256 {digest[:12]})" if digest else "")


def declared_facts(record: Dataset) -> tuple[list[dict[str, Any]], str | None]:
    c = record.contamination
    if c is None:
        return [], None
    facts = [{"statement": " ".join(f.statement.split()), "source": " ".join(f.source.split()), "level": f.level,
              "models": list(f.models), "splits": list(f.splits)} for f in c.declared]
    return facts, " ".join(c.note.split()) if c.note else None


def _computed(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """Per mapping, the evaluation splits' fingerprints and the figures a reader compares, in short."""
    out = []
    for m in entry["figures"].get("mappings", []):
        if "unreadable" in m:
            out.append({"mapping": m["mapping"], "unreadable": m["unreadable"]})
            continue
        splits = [{"split": name, "evaluation": s["evaluation"], "instances": s.get("instances"),
                   "fingerprint": s.get("fingerprint"), "unreadable": s.get("unreadable")}
                  for name, s in m["splits"].items()]
        within = [{"split": name, "exact_pairs": w["exact_pairs"], "near_pairs": w["near_pairs"], "rows": w["rows"]}
                  for name, w in m["within"].items()]
        across = [{"evaluation": a["evaluation"], "other": a["other"], "exact_pairs": a["exact_pairs"],
                   "near_pairs": a["near_pairs"], "rows": a["rows"],
                   "of": m["splits"].get(a["evaluation"], {}).get("instances")} for a in m["across"]]
        out.append({"mapping": m["mapping"], "splits": splits, "within": within, "across": across})
    return out


def contamination_view(reg: Registry, record: Dataset) -> dict[str, Any]:
    """The record's declared facts and its computed figures (`status`: computed, stale or not computed)."""
    facts, note = declared_facts(record)
    entry = record_entry(reg, record.id)
    view = {"declared": facts, "declared_note": note, "status": entry["status"], "note": entry["note"]}
    if "figures" in entry:
        view["method"] = entry["method"]
        view["computed"] = _computed(entry)
        view["overlap_words"] = overlap_words(view)
    return view


def overlap_words(view: dict[str, Any], found_only: bool = False) -> list[str]:
    """The computed figures in sentences (what the card, `show` and the leaderboard say); `found_only`: only the
    figures that found a pair."""
    if "computed" not in view:
        return [] if found_only else [view["note"]]
    out = []
    for m in view["computed"]:
        if "unreadable" in m:
            out.append(f"{m['mapping']}: not computed: {m['unreadable']}")
            continue
        for w in m["within"]:
            if found_only and not w["exact_pairs"] + w["near_pairs"]:
                continue
            out.append(f"{m['mapping']}: inside {w['split']!r}, {w['exact_pairs']} exact and {w['near_pairs']} "
                       f"near-duplicate pair(s) ({w['rows']} instance(s) involved)")
        for a in m["across"]:
            if found_only and not a["exact_pairs"] + a["near_pairs"]:
                continue
            of = f" of {a['of']}" if a["of"] is not None else ""
            out.append(f"{m['mapping']}: {a['rows']}{of} instance(s) of {a['evaluation']!r} read like "
                       f"{a['other']!r} ({a['exact_pairs']} exact, {a['near_pairs']} near-duplicate pair(s))")
    return out
