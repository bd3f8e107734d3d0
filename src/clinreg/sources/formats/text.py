"""Text read as text: a folder of text files, one row per file, and line-aligned files (line N of each is row N)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pyarrow as pa

from clinreg.core.builderrors import RecordProblem, SourceUnavailable, one_line
from clinreg.core.model import TableSpec
from clinreg.sources.files import MatchedFile, file_stem, match_files, read_text


def read_text_files(matched: list[MatchedFile], spec: TableSpec, where: str) -> pa.Table:
    """One row per file: its stem in `file`, its text in `text_column`, and its `{name}` parts."""
    rows = []
    for name in matched[0].parts:
        if name in ("file", spec.text_column):
            raise RecordProblem(f"{where}: the file pattern's {{{name}}} clashes with the {name!r} column a text file "
                                "gives")
    for item in matched:
        try:
            text = read_text(item.path, spec.encoding)
        except UnicodeDecodeError as err:
            raise SourceUnavailable(f"{where}: {item.relative} is not {spec.encoding} text: {one_line(err)}") from None
        stem = file_stem(PurePosixPath(item.relative).name)
        rows.append({"file": stem, spec.text_column: text, **item.parts})
    return pa.table({k: pa.array([r[k] for r in rows], pa.string()) for k in rows[0]})


def read_lines(folder: Path, spec: TableSpec, where: str) -> pa.Table:
    """Line-aligned files: line N of every file is row N (MIMIC-RRS findings and impressions)."""
    columns: dict[str, list[str]] = {}
    for name, relative in spec.files.items():
        matched = match_files(folder, relative, {}, where)
        if len(matched) != 1:
            raise SourceUnavailable(f"{where}: no file {relative!r} in {folder}" if not matched
                                    else f"{where}: {relative!r} matches several files")
        text = read_text(matched[0].path, spec.encoding)
        columns[name] = text.split("\n")
        if columns[name] and columns[name][-1] == "":
            columns[name].pop()  # the newline that ends the last line
    counts = {name: len(lines) for name, lines in columns.items()}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{spec.files[n]} {c}" for n, c in counts.items())
        raise SourceUnavailable(f"{where}: line-aligned files differ in length ({shown} lines)")
    return pa.table({name: pa.array(lines, pa.string()) for name, lines in columns.items()})
