"""Which mappings and splits a build covers, decided from the record alone (no data, no heavy imports)."""

from __future__ import annotations

from clinreg.core.builderrors import RecordProblem
from clinreg.core.model import Dataset, Mapping


def select_mappings(record: Dataset, mapping: str | None, split: str | None) -> list[tuple[Mapping, list[str]]]:
    """The mappings to build and their splits; every mapping when `mapping` is None."""
    known = {m.id: m for m in record.mappings}
    if mapping is not None and mapping not in known:
        raise RecordProblem(f"{record.id}: no mapping {mapping!r} (mappings: {', '.join(known)})")
    chosen = [known[mapping]] if mapping else list(record.mappings)
    if split is None:
        return [(m, list(m.splits)) for m in chosen]
    with_split = [m for m in chosen if split in m.splits]
    if not with_split and split in getattr(record.source, "splits", []):
        with_split = chosen
    if not with_split:
        declared = sorted({s for m in chosen for s in m.splits})
        raise RecordProblem(f"{record.id}: no split {split!r} in {'mapping ' + mapping if mapping else 'its mappings'} "
                            f"(splits: {', '.join(declared)})")
    return [(m, [split]) for m in with_split]
