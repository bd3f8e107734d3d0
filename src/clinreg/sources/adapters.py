"""Named adapters: the few read steps that truly need code, each documented and tested like a rule.

A record names an adapter in a read step (`adapter: {name: ..., options: {...}}`); records never carry code.
Each adapter takes the split's table and returns a new one; its docstring (options, a bad and a good example) is
its documentation, and `describe()` returns them all.
"""

from __future__ import annotations

import bisect
import inspect
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from clinreg.core.builderrors import ColumnMissing, RecordProblem
from clinreg.templating.columns import find_column, python_values

Tables = Callable[[str], pa.Table]
ADAPTERS: dict[str, Callable[..., pa.Table]] = {}


def adapter(fn: Callable[..., pa.Table]) -> Callable[..., pa.Table]:
    ADAPTERS[fn.__name__] = fn
    return fn


def describe() -> dict[str, str]:
    """Each adapter's name and documentation."""
    return {name: inspect.cleandoc(fn.__doc__ or "") for name, fn in ADAPTERS.items()}


def run_adapter(name: str, table: pa.Table, options: dict[str, Any], tables: Tables, where: str,
                counts: dict[str, int] | None = None) -> pa.Table:
    fn = ADAPTERS.get(name)
    if fn is None:
        raise RecordProblem(f"{where}: no adapter {name!r} (adapters: {', '.join(ADAPTERS)})")
    accepted = set(inspect.signature(fn).parameters) - {"table", "tables", "where", "counts"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise RecordProblem(f"{where}: adapter {name!r} has no option {', '.join(map(repr, unknown))} (options: "
                            f"{', '.join(sorted(accepted))})")
    return fn(table, tables=tables, where=where, counts=counts if counts is not None else {}, **options)


def _column(table: pa.Table, name: str, where: str) -> pa.Array:
    column = find_column(table, name)
    if column is None:
        raise ColumnMissing(f"{where}: column {name!r} is not in the data (columns: {', '.join(table.column_names)})")
    return column


@adapter
def meds_timeline(table: pa.Table, *, tables: Tables, where: str, counts: dict[str, int], events: str,
                  subject: str = "subject_id", time: str = "time", code: str = "code",
                  prediction_time: str = "prediction_time", column: str = "ehr_timeline") -> pa.Table:
    """
    For each label row of a MEDS release (EHRSHOT), the codes of that patient's events up to the prediction
    time, in time order, as one line each (`- ICD10CM/I50.9`), in a new column.

    Options: `events` (required) names the `read.tables` entry holding the events (`data/data.parquet`);
    `subject`, `time`, `code` name its columns; `prediction_time` names the label table's time column;
    `column` names the new column (default `ehr_timeline`). Events at exactly the prediction time count,
    as in HELM's scenario. A patient with no events gets an empty timeline.

    Bad:
        steps: [{adapter: {name: meds_timeline}}]                        # which table holds the events?
    Good:
        steps: [{adapter: {name: meds_timeline, options: {events: events}}}]
    """
    frame = tables(events)
    subjects = python_values(_column(frame, subject, where))
    times = _column(frame, time, where)
    codes = python_values(_column(frame, code, where))
    order = np.lexsort((np.arange(len(subjects)), _sortable(times), np.array([str(s) for s in subjects])))
    timeline: dict[str, tuple[list, list]] = {}
    time_values = python_values(times)
    for i in order:
        key = str(subjects[i])
        stamps, names = timeline.setdefault(key, ([], []))
        stamps.append(time_values[i])
        names.append(codes[i])
    label_subjects = python_values(_column(table, subject, where))
    label_times = python_values(_label_times(_column(table, prediction_time, where), times.type, prediction_time,
                                             where))
    out = []
    for who, when in zip(label_subjects, label_times):
        stamps, names = timeline.get(str(who), ([], []))
        upto = bisect.bisect_right(stamps, when) if when is not None else 0
        out.append("\n".join(f"- {c}" for c in names[:upto] if c is not None))
    if column in table.column_names:
        table = table.drop_columns([column])
    return table.append_column(column, pa.array(out, pa.string()))


def _label_times(values: pa.Array, wanted: pa.DataType, name: str, where: str) -> pa.Array:
    """Prediction times in the events' time type (a label table read from csv holds them as text)."""
    if values.type == wanted:
        return values
    try:
        return pc.cast(values, wanted)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
        raise RecordProblem(
            f"{where}: {name!r} ({values.type}) cannot be compared with the events' times ({wanted}): "
            f"{' '.join(str(err).split())[:200]}"
        ) from None


def _sortable(times: pa.Array) -> np.ndarray:
    if pa.types.is_timestamp(times.type) or pa.types.is_date(times.type):
        return pc.cast(pc.cast(times, pa.timestamp("us")), pa.int64()).to_numpy(zero_copy_only=False)
    return np.array([str(t) for t in python_values(times)])


@adapter
def marked_paragraphs(table: pa.Table, *, tables: Tables, where: str, counts: dict[str, int],
                      prefix: str = "Run ", separator: str = ": ", text: str = "text", flag: str = "red",
                      question: str = "Question", response: str = "Response", label: str = "True/False") -> pa.Table:
    """
    Groups a document's paragraphs (a `docx` read) into records: a paragraph that starts with `prefix` and
    holds `separator` opens a record whose question is the text after the first `separator`; the paragraphs
    up to the next such paragraph are its response (each stripped, joined by newlines). The record's label
    is `"True"` when any response paragraph is flagged (the docx reader's `red` column: a run coloured
    FF0000), else `"False"`. This is how the race-based medicine supplement marks harmful responses.

    A paragraph that starts with `prefix` but lacks `separator` opens no record, and its response paragraphs
    are lost with it (counted as dropped), as in HELM's scenario.

    Bad:
        steps: [{adapter: {name: marked_paragraphs, options: {prefix: 3}}}]
    Good:
        steps: [{adapter: {name: marked_paragraphs, options: {prefix: "Run "}}}]
    """
    paragraphs = python_values(_column(table, text, where))
    flags = python_values(_column(table, flag, where))
    records: list[list[Any]] = []
    current: list[Any] | None = None
    malformed = 0
    for body, marked in zip(paragraphs, flags):
        stripped = (body or "").strip()
        if stripped.startswith(prefix) and separator.strip() in stripped:
            if separator in stripped:
                current = [stripped.split(separator, 1)[1].strip(), [], False]
                records.append(current)
            else:
                current = None
                malformed += 1
            continue
        if current is not None:
            current[1].append(stripped)
            current[2] = current[2] or bool(marked)
    if malformed:
        key = f"{prefix.strip()} line without {separator.strip()!r}"
        counts[key] = counts.get(key, 0) + malformed
    return pa.table({
        question: pa.array([r[0] for r in records], pa.string()),
        response: pa.array(["\n".join(r[1]).strip() for r in records], pa.string()),
        label: pa.array(["True" if r[2] else "False" for r in records], pa.string()),
    })
