"""Read a source's table as it is distributed: every file a spec names (inside an archive, when it says so),
each through its format's reader, concatenated in path order with the file pattern's `{name}` parts as columns."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pyarrow as pa

from clinreg.core.builderrors import RecordProblem, SourceUnavailable, one_line
from clinreg.core.model import TableSpec
from clinreg.core.specfiles import file_patterns
from clinreg.sources.files import MatchedFile, extract_members, infer_format, match_files
from clinreg.sources.formats.arrow import read_arrow, read_feather, read_parquet
from clinreg.sources.formats.csv import read_csv
from clinreg.sources.formats.json import read_json
from clinreg.sources.formats.jsonl import read_jsonl
from clinreg.sources.formats.office import read_docx, read_xlsx
from clinreg.sources.formats.text import read_lines, read_text_files
from clinreg.sources.formats.xml import read_xml

# The readers of one file each; `text` (a folder of files, one row each) and `lines` (line-aligned files) read
# several files into one table and are called apart.
READERS: dict[str, Callable[[Path, TableSpec], pa.Table]] = {
    "csv": read_csv,
    "tsv": lambda path, spec: read_csv(path, spec, "\t"),
    "json": read_json,
    "jsonl": read_jsonl,
    "parquet": read_parquet,
    "feather": read_feather,
    "arrow": read_arrow,
    "xlsx": read_xlsx,
    "xml": read_xml,
    "docx": read_docx,
}


def read_table(folder: Path, spec: TableSpec, where: str, scratch: Path | None = None) -> pa.Table:
    """Every file a spec names, read and concatenated in path order, with its `{name}` parts as columns."""
    if spec.archive is not None:
        if scratch is None:
            raise RecordProblem(f"{where}: reading inside an archive needs a scratch folder")
        folder = extract_members(folder, spec, where, scratch)
    if isinstance(spec.files, dict):
        if (spec.format or "lines") != "lines":
            raise RecordProblem(f"{where}: `files` as a mapping of column to file is only for `format: lines`")
        return read_lines(folder, spec, where)
    tables = []
    for pattern in file_patterns(spec.files):
        matched = match_files(folder, pattern, spec.where, where)
        if not matched:
            raise SourceUnavailable(f"{where}: no file matches {pattern!r} in {folder}")
        fmt = spec.format or infer_format(pattern) or infer_format(matched[0].relative)
        if fmt is None:
            raise RecordProblem(f"{where}: cannot tell the format of {pattern!r}; give `format:`")
        if fmt == "text":
            tables.append(read_text_files(matched, spec, where))
            continue
        reader = READERS.get(fmt)
        if reader is None:
            raise RecordProblem(f"{where}: `format: {fmt}` needs `files` as a mapping of column to file")
        for item in matched:
            try:
                table = reader(item.path, spec)
            except Exception as err:  # noqa: BLE001 - any reader failure becomes one located error
                raise located(err, where, item, fmt) from None
            tables.append(with_parts(table, item.parts, where))
    return concat_tables(tables, where)


def located(err: Exception, where: str, item: MatchedFile, fmt: str) -> Exception:
    """A reader's error as one located line: ours with the file's path in the mirror, a parser's own type (every
    parser raises its own) as SourceUnavailable."""
    if isinstance(err, (SourceUnavailable, RecordProblem)):
        return type(err)(f"{where}: {_relative(str(err), item)}")
    return SourceUnavailable(f"{where}: cannot read {item.relative} as {fmt}: {one_line(err)}")


def _relative(message: str, item: MatchedFile) -> str:
    """A reader's message, which starts with the file's name, with the name replaced by its path in the mirror."""
    name = item.path.name
    return item.relative + message[len(name):] if message.startswith(name) else message


def with_parts(table: pa.Table, parts: dict[str, str], where: str) -> pa.Table:
    """`table` with a column per `{name}` part of its file's pattern, the part's value in every row."""
    for name, value in parts.items():
        if name in table.column_names:
            raise RecordProblem(f"{where}: the file pattern's {{{name}}} clashes with a column of the same name")
        table = table.append_column(name, pa.array([value] * table.num_rows, pa.string()))
    return table


def concat_tables(tables: list[pa.Table], where: str) -> pa.Table:
    """Several files' tables as one, their columns unified (a column missing from a file is null there)."""
    if len(tables) == 1:
        return tables[0]
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as err:
        raise SourceUnavailable(f"{where}: the files do not share columns of one type: {one_line(err)}") from None
