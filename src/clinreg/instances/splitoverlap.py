"""A record's split figures from its data: each split's fingerprint, duplicates inside each evaluation split and
overlaps between an evaluation split and every other split of the record (method: clinreg.instances.overlap).

A mapping's evaluation splits are its `splits`; the record's other splits are the ones its source declares
(`source.splits`, `read.splits`) or its other mappings read. Every split is built with the mapping, as `build`
builds it, except that rows whose label is outside the scheme, or missing, are left out and counted (`not
compared`) rather than stopping the check: a training split without labels is still compared by its texts
where they render.
"""

from __future__ import annotations

from typing import Any, Iterator

from clinreg.core.builderrors import BuildError
from clinreg.core.model import Dataset
from clinreg.instances.batch import MappingBuild
from clinreg.instances.build import NoProgress, SplitTally, _passing_rows
from clinreg.instances.overlap import (
    OVERLAP_METHOD, EvalIndex, Fingerprint, Item, Summary, normalise, summarise,
)
from clinreg.sources.location import DataLocation
from clinreg.sources.origin import open_reader
from clinreg.sources.splits import SplitReader


def record_splits(record: Dataset) -> list[str]:
    """Every split the record names: its source's, its read step's and its mappings', in that order."""
    names = list(getattr(record.source, "splits", None) or [])
    read = getattr(record.source, "read", None)
    if read is not None:
        names += list(read.splits)
    for mapping in record.mappings:
        names += mapping.splits
    return list(dict.fromkeys(names))


def _items(reader: SplitReader, build: MappingBuild, split: str, tally: SplitTally) -> Iterator[Item]:
    for table, indices in _passing_rows(reader, build, split, tally, "skip", NoProgress()):
        batch = build.instances(table, split, indices)
        for row, variant, text, options, gold in zip(batch.source_index, batch.variant, batch.input, batch.choices,
                                                     batch.gold):
            answer = gold["letter"] if gold["letter"] is not None else gold["value"]
            rest = "\x1e".join(normalise(o) for o in [*options, answer or ""])
            yield Item(split, int(row), variant, normalise(text), rest)


def _split_entry(fingerprint: Fingerprint, tally: SplitTally, empty: int, evaluation: bool) -> dict[str, Any]:
    return {"evaluation": evaluation, "instances": len(fingerprint.digests), "fingerprint": fingerprint.value(),
            "empty_texts": empty, "rows": tally.rows, "not_compared": tally.skipped + tally.unlabeled,
            "dropped_by_filters": sum(tally.dropped.values())}


def mapping_figures(reader: SplitReader, record: Dataset, mapping_index: int, splits: list[str]) -> dict[str, Any]:
    """One mapping's figures: per split its fingerprint and counts (or why it could not be read), duplicates
    within each evaluation split and overlaps of each evaluation split with each other split."""
    mapping = record.mappings[mapping_index]
    build = MappingBuild(record, mapping)
    index = EvalIndex()
    out: dict[str, Any] = {"mapping": mapping.id, "evaluation_splits": list(mapping.splits), "splits": {},
                           "within": {}, "across": []}
    readable = []
    for split in mapping.splits:
        tally, fingerprint, empty = SplitTally(record.id, mapping.id, split), Fingerprint(), len(index.empty)
        try:
            for item in _items(reader, build, split, tally):
                fingerprint.add(item)
                index.add(item)
        except BuildError as err:
            out["splits"][split] = {"evaluation": True, "unreadable": str(err)}
            continue
        readable.append(split)
        out["splits"][split] = _split_entry(fingerprint, tally, len(index.empty) - empty, True)
    for split in readable:
        out["within"][split] = summarise(index.within(split), both_sides=True)
    for i, split in enumerate(readable):
        for other in readable[i + 1:]:
            found = (m for item in index.items if item.split == other for m in index.query(item) if m.a.split == split)
            out["across"].append({"evaluation": split, "other": other, **summarise(found)})
    for other in (s for s in splits if s not in mapping.splits):
        tally, fingerprint, empty = SplitTally(record.id, mapping.id, other), Fingerprint(), 0
        found_in = {split: Summary() for split in readable}
        try:
            for item in _items(reader, build, other, tally):
                fingerprint.add(item)
                empty += not item.text
                for match in index.query(item):
                    if match.a.split in found_in:  # not an evaluation split that failed part-way
                        found_in[match.a.split].add(match)
        except BuildError as err:
            out["splits"][other] = {"evaluation": False, "unreadable": str(err)}
            continue
        out["splits"][other] = _split_entry(fingerprint, tally, empty, False)
        out["across"] += [{"evaluation": split, "other": other, **found_in[split].to_dict()} for split in readable]
    return out


def record_figures(record: Dataset, location: DataLocation, *, with_source: bool = True) -> dict[str, Any]:
    """Every mapping's figures, read from `location`, with the method and (`with_source`) the source read."""
    splits = record_splits(record)
    reader = open_reader(location, streaming=True)
    try:
        mappings = []
        for i in range(len(record.mappings)):
            try:
                mappings.append(mapping_figures(reader, record, i, splits))
            except BuildError as err:
                mappings.append({"mapping": record.mappings[i].id, "unreadable": str(err)})
    finally:
        reader.close()
    out = {"record_version": record.version, "method": OVERLAP_METHOD, "mappings": mappings}
    if with_source:
        out["source"] = location.describe()
    return out


def pairs_text(matches: dict[str, Any], limit: int = 10) -> str:
    """`test/4 ~ test/9, test/12 ~ train/40 (Jaccard 0.85) ...`: the pairs a summary lists, in words."""
    shown = [f"{p['a']} ~ {p['b']}" + ("" if p["exact"] else f" (Jaccard {p['jaccard']:.2f})")
             for p in matches["pairs"][:limit]]
    more = len(matches["pairs"]) - len(shown) + matches["more"]
    return ", ".join(shown) + (f" and {more} more" if more else "")


def counted(matches: dict[str, Any]) -> str:
    return f"{matches['exact_pairs']} exact and {matches['near_pairs']} near-duplicate pair(s)"



def figures_lines(record_id: str, figures: list[dict[str, Any]]) -> list[str]:
    """Each mapping's figures in a few lines: per split its fingerprint and count, then the duplicate counts."""
    lines = []
    for entry in figures:
        where = f"{record_id}/{entry['mapping']}"
        if "unreadable" in entry:
            lines.append(f"{where}: overlap not computed: {entry['unreadable']}")
            continue
        for split, s in entry["splits"].items():
            role = "evaluation split" if s["evaluation"] else "other split"
            if "unreadable" in s:
                lines.append(f"{where}: {role} {split!r}: not read: {s['unreadable']}")
                continue
            lines.append(f"{where}: {role} {split!r}: {s['instances']} instance(s), fingerprint {s['fingerprint']}"
                         + (f", {s['not_compared']} row(s) not compared (label missing or outside the scheme)"
                            if s["not_compared"] else ""))
        for split, found in entry["within"].items():
            lines.append(f"{where}: duplicates inside {split!r}: {counted(found)}")
        for found in entry["across"]:
            lines.append(f"{where}: {found['evaluation']!r} vs {found['other']!r}: {counted(found)}, "
                         f"{found['rows']} evaluation instance(s) involved")
        if not entry["across"] and not any("unreadable" in s for s in entry["splits"].values()) \
                and all(s["evaluation"] for s in entry["splits"].values()):
            lines.append(f"{where}: overlap across splits not checked: the record names no other split")
    return lines
