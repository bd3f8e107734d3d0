"""`check-data`: compare a local mirror with its record on the first rows of each split, as located diagnostics."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from clinreg.core.codes import CODES
from clinreg.core.diagnostics import Diagnostic
from clinreg.core.model import LETTERS, Dataset, IndexScheme, LetterScheme, Mapping, MappedScheme, NumberScheme
from clinreg.instances.batch import MappingBuild
from clinreg.templating.columns import has_column
from clinreg.core.builderrors import (
    BuildError, JoinFailure, RecordProblem, SourceUnavailable, SplitMissing, TemplateFailure,
)
from clinreg.instances.labels import BAD, OK, UNLABELED
from clinreg.instances.leaks import batch_leaks, describe, exempt_rows
from clinreg.instances.rowselection import RowSelection
from clinreg.instances.splitoverlap import counted, mapping_figures, pairs_text, record_splits
from clinreg.sources.origin import locate, open_reader
from clinreg.sources.splits import FileSplitReader, SplitReader

Where = tuple  # a path into the record's YAML: keys and list indices


class DataCheck:
    """Diagnostics located in one record file."""

    def __init__(self, record: Dataset, source_file: Any, strict: bool = False) -> None:
        self.record, self.file, self.strict = record, source_file, strict
        self.diagnostics: list[Diagnostic] = []
        self.summary: list[dict[str, Any]] = []

    def add(self, code: str, path: Where, message: str, hint: str | None = None) -> None:
        line, column = self.file.where(*path) if hasattr(self.file, "where") else (1, 1)
        rel = getattr(self.file, "rel", f"registry/datasets/{self.record.id}.yaml")
        self.diagnostics.append(Diagnostic(code, CODES[code].severity_in(self.strict), rel, line, column, message,
                                           hint))


def check_data(record: Dataset, source_file: Any, data_dir: str | Path | None, rows: int, root: Path | None = None,
               summary: list[dict[str, Any]] | None = None, overlap: list[dict[str, Any]] | None = None,
               strict: bool = False) -> list[Diagnostic]:
    """Check declared splits, referenced columns, template variables and the labels of the first `rows` rows.

    Finds the data as `build` does (clinreg.sources.origin.locate): the `data_dir` mirror folder, a fixture folder
    of the registry at `root`, then the hub, asked first which commit the pinned revision is; offline, or when
    the hub cannot be reached, huggingface_hub's cache. The rows are streamed, except that a record read by
    clinreg's own readers (`source.read`) has each split read whole with its steps, so that a join failing past
    the first rows is still reported.

    `summary`, when given, receives one entry per mapping and split: rows checked, labelled, unlabelled and
    dropped by the mapping's filters.

    `overlap`, when given (a list), turns on the overlap check and receives each mapping's split figures
    (clinreg.instances.splitoverlap): it reads every split whole, not only the first `rows`, and reports
    duplicates inside an evaluation split (CLR914) and overlaps with the record's other splits (CLR915), as
    warnings, or errors with `strict`.
    """
    check = DataCheck(record, source_file, strict)
    check.summary = summary if summary is not None else []
    location = locate(record, data_dir, root)
    reader = open_reader(location, streaming=True)
    try:
        samples = _samples(check, reader, rows)
        for i, mapping in enumerate(record.mappings):
            _check_mapping(check, ("mappings", i), mapping, samples)
        if overlap is not None:
            _check_overlap(check, reader, overlap)
    finally:
        reader.close()
    return check.diagnostics


def _declared_splits(record: Dataset) -> Iterator[tuple[str, Where]]:
    for j, split in enumerate(getattr(record.source, "splits", []) or []):
        yield split, ("source", "splits", j)
    for i, mapping in enumerate(record.mappings):
        for j, split in enumerate(mapping.splits):
            yield split, ("mappings", i, "splits", j)


def _samples(check: DataCheck, reader: SplitReader, rows: int) -> dict[str, pa.Table | None]:
    samples: dict[str, pa.Table | None] = {}
    for split, path in _declared_splits(check.record):
        if split in samples:
            continue
        try:
            samples[split] = _head(reader, split, rows, check.record.id)
        except JoinFailure as err:
            samples[split] = None
            read = check.record.source.read
            at = (("source", "read", "splits", split, "steps", err.step, "join")
                  if read is not None and split in read.splits and err.step is not None else path)
            check.add("CLR908", at, str(err))
        except SplitMissing as err:
            samples[split] = None
            check.add("CLR902", path,
                      f"split {split!r} is not in mirror folder {reader.location.folder.name}: {err.reason}")
        except SourceUnavailable as err:
            samples[split] = None
            check.add("CLR901", err.path or path, str(err))
    return samples


def _head(reader: SplitReader, split: str, rows: int, record_id: str) -> pa.Table:
    if isinstance(reader, FileSplitReader):
        # The whole split with its steps, as a build reads it: a join's error past the first rows (a repeated
        # one-to-one key, an unmatched row) is still reported, as `build` would stop on it.
        return reader.open(split, record_id).slice(0, rows)
    tables, count = [], 0
    for table in reader.batches(split, record_id, min(rows, 1000)):
        tables.append(table)
        count += table.num_rows
        if count >= rows:
            break
    if not tables:
        return pa.table({})
    return pa.concat_tables(tables, promote_options="permissive").slice(0, rows)


def _referenced(mapping: Mapping, path: Where, build: MappingBuild | None) -> Iterator[tuple[Where, str, str]]:
    """Every column the mapping reads: (where in the record, column name, what it is for)."""
    label = mapping.label
    if not mapping.variants:
        yield path + ("label", "column"), label.column, "label column"
    if isinstance(label, NumberScheme):
        for key in ("lower_column", "upper_column"):
            if getattr(label, key):
                yield path + ("label", key), getattr(label, key), "range column"
    spec = mapping.choices
    if spec is not None:
        for j, name in enumerate(spec.columns or []):
            yield path + ("choices", "columns", j), name, "choices column"
        for key in ("struct", "items"):
            if getattr(spec, key):
                yield path + ("choices", key), getattr(spec, key), f"choices {key} column"
    for key, what in (("references", "references column"), ("metadata_columns", "metadata column"),
                      ("fields_read", "field read")):
        for j, name in enumerate(getattr(mapping, key)):
            yield path + (key, j), name, what
    for j, variant in enumerate(mapping.variants):
        for name, column in variant.columns.items():
            yield path + ("variants", j, "columns", name), column, "variant column"
    if build is not None:
        variant_names = {name for v in mapping.variants for name in v.columns}
        for template, where in [(build.template, path + ("input_template",))] + [
            (t, path + ("choices", "fixed")) for t in build.fixed_templates
        ]:
            for name in sorted(template.variables - {"row"} - variant_names):
                yield where, name, "template variable"
            for name in sorted(template.row_keys):
                yield where, name, "template column row[...]"


def _check_mapping(check: DataCheck, path: Where, mapping: Mapping, samples: dict[str, pa.Table | None]) -> None:
    try:
        build = MappingBuild(check.record, mapping)
    except RecordProblem as err:
        check.add("CLR906", path + ("input_template",), str(err))
        build = None
    readable = {s: samples.get(s) for s in mapping.splits if samples.get(s) is not None and samples[s].num_columns}
    missing_any = False
    for where, name, what in _referenced(mapping, path, build):
        absent = [s for s, table in readable.items() if not has_column(table.schema, name)]
        if absent:
            missing_any = True
            columns = ", ".join(readable[absent[0]].column_names)
            check.add("CLR903", where, f"{what} {name!r} is not in split {', '.join(absent)} (columns: {columns})")
    if build is None or missing_any:
        return
    for split, table in readable.items():
        _check_rows(check, path, build, split, table)


def _check_rows(check: DataCheck, path: Where, build: MappingBuild, split: str, table: pa.Table) -> None:
    indices = np.arange(table.num_rows)
    counts = {"mapping": build.mapping.id, "split": split, "rows": table.num_rows, "labelled": 0, "unlabelled": 0,
              "dropped": 0}
    check.summary.append(counts)
    selection = RowSelection(build.mapping, build.where)
    if selection.active:
        try:
            chosen = selection.keep(table, split, 0)
        except BuildError as err:
            check.add("CLR906" if isinstance(err, TemplateFailure) else "CLR903", path + ("filters",), str(err))
            return
        table, indices = table.filter(pa.array(chosen)), indices[chosen]
        counts["dropped"] = int((~chosen).sum())
    label_path = path + (("variants", 0, "label") if build.mapping.variants else ("label", "column"))
    try:
        status, values = build.status(table)
    except BuildError as err:
        check.add("CLR903", label_path, str(err))
        return
    counts["labelled"] = int((status == OK).sum())
    counts["unlabelled"] = int((status == UNLABELED).sum())
    empty = _empty_records(table)
    bad_real = (status == BAD) & ~empty
    bad_empty = (status == BAD) & empty
    if bad_real.any():
        chosen = np.flatnonzero(bad_real)
        check.add("CLR904", label_path, build.bad_label_message(split, indices[chosen], values.take(pa.array(chosen))),
                  "fix the record's label scheme, or the rows (row numbers count from 0)")
    if bad_empty.any():
        chosen = indices[np.flatnonzero(bad_empty)]
        rows = ", ".join(map(str, chosen[:10])) + (" ..." if len(chosen) > 10 else "")
        check.add("CLR905", label_path,
                  f"split {split!r} has {len(chosen)} empty record(s) (rows {rows}): every column is null",
                  "`clinreg build` stops on them; pass --on-bad-label skip to skip and count them")
    keep = status == OK
    try:
        batch = build.instances(table.filter(pa.array(keep)), split, indices[keep])
        if build.closed:
            _check_option_count(check, label_path, build.scheme, split, batch)
        if not build.closed and not build.mapping.gold_in_input:
            found = batch_leaks(batch, exempt_rows(build.mapping, split))
            if found:
                check.add("CLR907", path + ("input_template",), describe(build.where, split, found))
    except TemplateFailure as err:
        check.add("CLR906", path + ("input_template",), str(err))
    except BuildError as err:
        check.add("CLR903", path, str(err))


def _letter_count(scheme: object) -> int | None:
    """How many letters a closed scheme lets a gold answer be (None where the options themselves decide)."""
    if isinstance(scheme, LetterScheme):
        return len(scheme.letters)
    if isinstance(scheme, IndexScheme):
        return scheme.count
    if isinstance(scheme, MappedScheme):
        return len(set(scheme.map.values()))
    return None


def _check_option_count(check: DataCheck, label_path: Where, scheme: object, split: str, batch) -> None:
    """CLR909: sampled rows that offer more options than the scheme has letters."""
    letters = _letter_count(scheme)
    if letters is None:
        return
    over = [(row, len(options)) for row, options in zip(batch.source_index, batch.choices)
            if len(options) > letters]
    if over:
        most = max(n for _, n in over)
        rows = ", ".join(str(row) for row, _ in over[:10]) + (" ..." if len(over) > 10 else "")
        check.add("CLR909", label_path,
                  f"the label scheme has {letters} letters ({LETTERS[0]}-{LETTERS[letters - 1]}), "
                  f"but {len(over)} row(s) of split {split!r} offer up to {most} options (rows {rows}); the prompt "
                  f"names letters up to {LETTERS[most - 1]}",
                  "give the scheme a letter per option, or read fewer options")


def _empty_records(table: pa.Table) -> np.ndarray:
    if table.num_columns == 0:
        return np.zeros(table.num_rows, dtype=bool)
    empty = pc.is_null(table.column(0))
    for name in table.column_names[1:]:
        empty = pc.and_(empty, pc.is_null(table.column(name)))
    return np.asarray(pc.fill_null(empty, False).to_numpy(zero_copy_only=False), dtype=bool).reshape(-1)


def _check_overlap(check: DataCheck, reader: SplitReader, out: list[dict[str, Any]]) -> None:
    """CLR914 and CLR915 from each mapping's split figures, located at the evaluation split in the record."""
    splits = record_splits(check.record)
    for i, mapping in enumerate(check.record.mappings):
        try:
            figures = mapping_figures(reader, check.record, i, splits)
        except BuildError as err:  # the checks above report what stops the build
            out.append({"mapping": mapping.id, "unreadable": str(err)})
            continue
        out.append(figures)
        where = {split: ("mappings", i, "splits", j) for j, split in enumerate(mapping.splits)}
        for split, found in figures["within"].items():
            if found["pairs"]:
                check.add("CLR914", where[split],
                          f"{check.record.id}/{mapping.id}: split {split!r} holds {counted(found)} "
                          f"({found['rows']} row(s)): {pairs_text(found)}",
                          "rows count from 0; read the rows, and say in the record's notes why copies are kept")
        for entry in figures["across"]:
            if entry["pairs"]:
                check.add("CLR915", where[entry["evaluation"]],
                          f"{check.record.id}/{mapping.id}: {entry['rows']} instance(s) of evaluation split "
                          f"{entry['evaluation']!r} read like split {entry['other']!r} ({counted(entry)}): "
                          f"{pairs_text(entry)}",
                          "a model trained on the other split has seen these; report scores with and without them")
