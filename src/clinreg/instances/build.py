"""Build a record's instances, the one way every caller does: `RecordBuild` locates the data, picks mappings and
splits, reads Arrow batches, counts skips, samples `--limit` and stamps the provenance. `clinreg build`, the
harness export, the lock and `clinreg.build_instances` all run it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Literal

import numpy as np
import pyarrow as pa

from clinreg.core.builderrors import GoldLeak, RecordProblem
from clinreg.core.model import Dataset
from clinreg.core.store import Registry, gc_paused, load_registry
from clinreg.instances.batch import InstanceBatch, MappingBuild
from clinreg.instances.heap import keep_heap_top
from clinreg.instances.labels import BAD, OK, UNLABELED
from clinreg.instances.leaks import batch_leaks, describe, exempt_rows
from clinreg.instances.mappingselection import select_mappings
from clinreg.instances.rowselection import RowSelection
from clinreg.instances.sampling import SplitSample, select_across
from clinreg.instances.schema import Instance
from clinreg.instances.stamp import stamped
from clinreg.sources.location import DataLocation
from clinreg.sources.origin import locate, open_reader
from clinreg.sources.splits import SplitReader

BATCH_ROWS = 1000
OnBadLabel = Literal["error", "skip"]


@dataclass(frozen=True)
class Notice:
    """One line about rows a build left out. `kind`: `dropped` by a read step or a filter, `skipped` because the
    label is outside the scheme (`on_bad_label="skip"`), or `unlabeled` (the scheme's own no-answer values)."""

    kind: Literal["dropped", "skipped", "unlabeled"]
    text: str


@dataclass
class SplitTally:
    """What happened to the rows of one split of one mapping."""

    dataset: str
    mapping: str
    split: str
    rows: int = 0
    instances: int = 0
    unlabeled: int = 0
    skipped: int = 0
    skipped_rows: list[int] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)

    def notices(self) -> list[Notice]:
        where = f"{self.dataset}/{self.mapping}: split {self.split!r}"
        out = [Notice("dropped", f"{where}: dropped {n} row(s): {reason}") for reason, n in self.dropped.items()]
        if self.skipped:
            rows = ", ".join(map(str, self.skipped_rows)) + (" ..." if self.skipped > len(self.skipped_rows) else "")
            out.append(Notice("skipped",
                              f"{where}: skipped {self.skipped} row(s) whose label is outside the scheme (rows "
                              f"{rows})"))
        if self.unlabeled:
            out.append(Notice("unlabeled", f"{where}: skipped {self.unlabeled} unlabeled row(s)"))
        return out


@dataclass
class BuildReport:
    """Counts and resolved sources of a build, for stderr notices and the lock file."""

    tallies: list[SplitTally] = field(default_factory=list)
    locations: dict[str, DataLocation] = field(default_factory=dict)

    @property
    def instances(self) -> int:
        return sum(t.instances for t in self.tallies)

    @property
    def skipped(self) -> int:
        return sum(t.skipped for t in self.tallies)

    @property
    def unlabeled(self) -> int:
        return sum(t.unlabeled for t in self.tallies)

    def notices(self) -> list[Notice]:
        return [notice for tally in self.tallies for notice in tally.notices()]


class NoProgress:
    def begin(self, label: str, total: int | None) -> None:
        pass

    def advance(self, rows: int) -> None:
        pass


class RecordBuild:
    """One build of a record, from its data to complete instances.

    Made eagerly, in this order, so that nothing is read or written before a failure can stop it: `limit` is
    checked, the mappings and splits are chosen (an unknown one stops here), the data is located (the `data_dir`
    mirror, a fixture folder of the registry at `root`, then the hub; pass `location` to share one for several
    builds of the record) and each chosen mapping's template is compiled. `batches()` then reads the rows and
    yields instance batches whose provenance is complete: the registry's release and canary, and the source
    actually read (the hub commit, or the mirror's content hash and commit). `report` counts the rows skipped
    and dropped, per split, and keeps the location.
    """

    def __init__(
        self,
        record: Dataset,
        registry: Registry,
        mapping: str | None = None,
        split: str | None = None,
        data_dir: str | Path | None = None,
        limit: int | None = None,
        seed: int = 0,
        streaming: bool = False,
        *,
        on_bad_label: OnBadLabel = "error",
        root: Path | None = None,
        location: DataLocation | None = None,
        report: BuildReport | None = None,
    ) -> None:
        if limit is not None and limit < 1:
            raise RecordProblem(f"{record.id}: --limit must be at least 1")
        self.record, self.registry = record, registry
        self.limit, self.seed, self.streaming, self.on_bad_label = limit, seed, streaming, on_bad_label
        plans = select_mappings(record, mapping, split)
        self.root = root if root is not None else registry.root
        self.location = location or locate(record, data_dir, self.root)
        self.report = report if report is not None else BuildReport()
        self.report.locations[record.id] = self.location
        self.plans = [(MappingBuild(record, m), splits) for m, splits in plans]

    def batches(self, progress: NoProgress | None = None) -> Iterator[InstanceBatch]:
        """The instances in batches, provenance stamped: what the writers, the export and the lock consume."""
        return stamped(self._batches(progress or NoProgress()), self.registry, self.location)

    def instances(self) -> Iterator[Instance]:
        """The instances one by one, validated, in split order and source order."""
        for batch in self.batches():
            for row in batch.rows():
                yield Instance.model_validate(row)

    def _batches(self, progress: NoProgress) -> Iterator[InstanceBatch]:
        keep_heap_top()  # once per process: each batch reuses the heap the last one freed
        self.location.start_hashing()  # ready when the first batch is stamped
        reader = open_reader(self.location, streaming=self.streaming)
        # A build makes many small containers per row and no cycles (a million-row build peaks at the same memory
        # with the collector off), so the collector's full passes would only rescan all the process holds, several
        # times a build. It is back on when the batches end or the consumer stops early.
        try:
            with gc_paused():
                for build, splits in self.plans:
                    tallies = {s: SplitTally(self.record.id, build.mapping.id, s) for s in splits}
                    self.report.tallies.extend(tallies.values())
                    passing = (
                        (s, _passing_rows(reader, build, s, tallies[s], self.on_bad_label, progress)) for s in splits
                    )
                    for batch in _emit(build, passing, tallies, self.limit, self.seed):
                        _refuse_leaks(build, batch)
                        yield batch
        finally:
            reader.close()


def _refuse_leaks(build: MappingBuild, batch: InstanceBatch) -> None:
    """Stop on an open-ended instance whose reference is in its input (CLR907), unless the record says why."""
    if build.closed or build.mapping.gold_in_input or not len(batch):
        return
    found = batch_leaks(batch, exempt_rows(build.mapping, batch.split))
    if found:
        raise GoldLeak(describe(build.where, batch.split, found), code="CLR907", record=build.record.id,
                       split=batch.split, row=found[0][0])


def _emit(build: MappingBuild, passing, tallies: dict[str, SplitTally], limit: int | None,
          seed: int) -> Iterator[InstanceBatch]:
    if limit is None:
        for split, rows in passing:
            for table, indices in rows:
                batch = build.instances(table, split, indices)
                tallies[split].instances += len(batch)
                yield batch
        return
    samples = []
    for split, rows in passing:
        sample = SplitSample(limit, seed, split)
        for table, indices in rows:
            sample.add(table, indices)
        samples.append(sample)
    for sample, (table, indices) in zip(samples, select_across(samples, limit)):
        for start in range(0, len(indices), BATCH_ROWS):
            chunk = table.slice(start, BATCH_ROWS)
            batch = build.instances(chunk, sample.split, indices[start : start + BATCH_ROWS])
            tallies[sample.split].instances += len(batch)
            yield batch


def _passing_rows(reader: SplitReader, build: MappingBuild, split: str, tally: SplitTally, on_bad_label: OnBadLabel,
                  progress) -> Iterator[tuple[pa.Table, np.ndarray]]:
    """Batches of the rows whose label fits the scheme, with their source indices; counts the others."""
    progress.begin(f"{build.where} {split}", reader.num_rows(split, build.record.id))
    selection = RowSelection(build.mapping, build.where)
    offset = 0
    for table in reader.batches(split, build.record.id, BATCH_ROWS):
        n = table.num_rows
        indices = np.arange(offset, offset + n, dtype=np.int64)
        offset += n
        tally.rows += n
        if selection.active:
            chosen = selection.keep(table, split, offset - n)
            if not chosen.all():
                table, indices = table.filter(pa.array(chosen)), indices[chosen]
        status, values = build.status(table)
        bad = np.flatnonzero(status == BAD)
        if len(bad):
            if on_bad_label == "error":
                raise build.bad_label(split, indices[bad], values.take(pa.array(bad)))
            tally.skipped += len(bad)
            tally.skipped_rows.extend(int(i) for i in indices[bad][: max(0, 10 - len(tally.skipped_rows))])
        tally.unlabeled += int((status == UNLABELED).sum())
        keep = status == OK
        progress.advance(n)
        yield (table, indices) if keep.all() else (table.filter(pa.array(keep)), indices[keep])
    for drops in (getattr(reader, "dropped", {}).get(split, {}), selection.dropped):
        for reason, count in drops.items():  # a reason both the read step and a filter give adds up
            tally.dropped[reason] = tally.dropped.get(reason, 0) + count


def build_instances(
    record: Dataset,
    mapping: str | None = None,
    split: str | None = None,
    data_dir: str | Path | None = None,
    limit: int | None = None,
    seed: int = 0,
    streaming: bool = False,
    *,
    on_bad_label: OnBadLabel = "error",
    root: Path | None = None,
    report: BuildReport | None = None,
    registry: Registry | None = None,
) -> Iterator[Instance]:
    """Instances of a record's mapping(s), validated, in split order and source order: exactly what
    `clinreg build` writes, provenance included.

    `registry` is the registry the record belongs to (its release and canary are stamped on every instance);
    by default the one at `root`, found as `clinreg build --root` finds it (the working directory when it holds
    a registry tree, else the registry embedded in the package). The data is read from, in this order: the
    `data_dir/<owner>__<name>` mirror folder, a fixture folder the record names inside the registry, then the
    hub at the pinned revision (a loading script is never run). The hub is asked which commit that revision is; offline
    (`HF_HUB_OFFLINE`, `HF_DATASETS_OFFLINE`), or when the hub cannot be reached, huggingface_hub's cache serves a copy
    it holds. `limit` keeps a seeded sample of that many source rows per mapping. Rows whose label is outside the scheme
    raise BadLabel, or are skipped and counted in `report` with `on_bad_label="skip"`. A wrong mapping, split or
    limit, or data that cannot be found, raises on the call; the rows are read as the instances are taken.
    """
    if registry is None:
        registry = load_registry(root)
    build = RecordBuild(record, registry, mapping, split, data_dir, limit, seed, streaming, on_bad_label=on_bad_label,
                        root=root, report=report)
    return build.instances()
