"""Read a source's files as they are distributed (csv, json, parquet, xlsx, text, xml, docx, ...) into Arrow tables."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator

import pyarrow as pa

from clinreg.core.model import TableSpec
from clinreg.sources.errors import RecordProblem, SourceUnavailable

# A reader refuses files larger than this rather than exhausting memory on a hostile or mistaken mirror.
MAX_FILE_BYTES = 8 << 30
MAX_CELL_CHARS = 50_000_000
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_ATTRIBUTE = re.compile(r"^[A-Za-z_][\w.:-]*$")
_EXTENSIONS = (
    (".csv.gz", "csv"), (".tsv.gz", "tsv"), (".jsonl.gz", "jsonl"), (".json.gz", "json"),
    (".csv", "csv"), (".tsv", "tsv"), (".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "json"),
    (".parquet", "parquet"), (".xlsx", "xlsx"), (".feather", "feather"), (".arrow", "arrow"),
    (".txt", "text"), (".xml", "xml"), (".docx", "docx"), (".tok", "lines"),
)


@dataclass
class MatchedFile:
    """A file a table reads, with the values its `{name}` parts matched."""

    path: Path
    relative: str
    parts: dict[str, str]


# --------------------------------------------------------------------------------------------- files


def _pattern_regex(pattern: str, where: str = "") -> re.Pattern:
    """A `{name}`/glob pattern as a regex over `/`-separated relative paths; no wildcard crosses a `/`."""
    from clinreg.text.patterns import glob_class_problem

    problem = glob_class_problem(pattern)
    if problem:
        raise RecordProblem(f"{where or 'a read step'}: file pattern {pattern!r} is unusable: {problem}")
    out, i, seen = [], 0, set()
    while i < len(pattern):
        c = pattern[i]
        m = _PLACEHOLDER.match(pattern, i)
        if m:
            # a name used twice must match the same text both times (`{id}/{id}.xml`)
            out.append(f"(?P={m.group(1)})" if m.group(1) in seen else f"(?P<{m.group(1)}>[^/]+)")
            seen.add(m.group(1))
            i = m.end()
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and "]" in pattern[i + 2 :]:
            close = pattern.index("]", i + 2)
            body = pattern[i + 1 : close].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            i = close + 1
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("^" + "".join(out) + "$", re.S)


def check_relative(pattern: str, where: str) -> PurePosixPath:
    """A file pattern must be relative and stay inside the mirror folder: no absolute path, no `..`."""
    path = PurePosixPath(pattern)
    if pattern.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", pattern) or path.is_absolute():
        raise RecordProblem(f"{where}: file {pattern!r} is absolute; name files relative to the mirror folder")
    if "\\" in pattern:
        raise RecordProblem(f"{where}: file {pattern!r} holds a backslash; write paths with `/` between folders")
    if ".." in path.parts:
        raise RecordProblem(f"{where}: file {pattern!r} climbs out of the mirror folder")
    return path


def hub_blobs(root: Path) -> Path | None:
    """The `blobs` folder a huggingface_hub cache snapshot's links lead into, when `root` is such a snapshot.

    huggingface_hub lays out a downloaded repository as `<cache>/datasets--<owner>--<name>/snapshots/<commit>/`,
    whose files are links into `<cache>/datasets--<owner>--<name>/blobs/`. Those links stay inside the cache's
    folder for that repository, so they are read; a link anywhere else is still refused.
    """
    if root.parent.name != "snapshots" or not root.parent.parent.name.startswith(("datasets--", "models--")):
        return None
    return root.parent.parent / "blobs"


def _readable(folder: Path) -> Callable[[Path], bool]:
    """Whether a resolved path may be read for `folder`: inside it, or in its hub cache blobs (hub_blobs)."""
    root = folder.resolve()
    blobs = hub_blobs(root)
    return lambda real: real.is_relative_to(root) or (blobs is not None and real.is_relative_to(blobs))


def _leads_out(where: str, relative: str) -> SourceUnavailable:
    return SourceUnavailable(f"{where}: {relative} is a link that leads out of the mirror folder; refusing to read it")


def match_files(folder: Path, pattern: str, allowed: dict[str, list[str]], where: str) -> list[MatchedFile]:
    """The files under `folder` that `pattern` names, in path order, each resolved inside `folder`."""
    check_relative(pattern, where)
    readable = _readable(folder)
    regex = _pattern_regex(pattern, where)
    if not _PLACEHOLDER.search(pattern) and not any(c in pattern for c in "*?["):
        candidates = [pattern] if (folder / pattern).is_file() or (folder / pattern).is_symlink() else []
    else:
        fixed = []
        for part in PurePosixPath(pattern).parts:
            if _PLACEHOLDER.search(part) or any(c in part for c in "*?["):
                break
            fixed.append(part)
        start = folder.joinpath(*fixed)
        candidates = []
        if start.is_dir():
            depth = len(PurePosixPath(pattern).parts) - len(fixed)
            candidates = sorted(_walk(start, folder, depth, where, readable))
        candidates = [c for c in candidates if regex.match(c)]
    found = []
    for relative in candidates:
        path = folder / relative
        resolved = path.resolve()
        if not readable(resolved):
            raise _leads_out(where, relative)
        if not resolved.is_file():
            continue
        m = regex.match(relative)
        parts = m.groupdict() if m else {}
        if any(name in allowed and value not in allowed[name] for name, value in parts.items()):
            continue
        found.append(MatchedFile(resolved, relative, parts))
    return found


MAX_WALK_ENTRIES = 1_000_000


def _walk(start: Path, folder: Path, depth: int, where: str, readable: Callable[[Path], bool]) -> Iterator[str]:
    """Relative paths of the files exactly `depth` levels below `start` (hidden entries skipped).

    Each real directory is listed once, a directory outside the mirror folder (reached through a link) is never
    listed, and the walk stops with an error past MAX_WALK_ENTRIES entries: links to `.` or `/` cannot make it
    walk exponentially many paths or the whole file system.
    """
    seen: set[Path] = set()
    level = [start]
    visited = 0
    for step in range(depth):
        entries = []
        for directory in level:
            real = directory.resolve()
            if not readable(real):
                raise _leads_out(where, directory.relative_to(folder).as_posix())
            if real in seen:
                continue
            seen.add(real)
            try:
                listed = sorted(directory.iterdir())
            except OSError:
                continue
            visited += len(listed)
            if visited > MAX_WALK_ENTRIES:
                raise SourceUnavailable(f"{where}: a file pattern lists more than {MAX_WALK_ENTRIES:,} entries "
                                        "(links that loop back into the folder?); refusing to go on")
            entries.extend(e for e in listed if not e.name.startswith("."))
        level = entries if step == depth - 1 else [e for e in entries if e.is_dir()]
    for entry in level:
        if entry.is_file():
            yield entry.relative_to(folder).as_posix()


def infer_format(name: str) -> str | None:
    lower = name.lower()
    for ext, fmt in _EXTENSIONS:
        if lower.endswith(ext):
            return fmt
    return None


# What a compressed file, archive member or office part may unpack to: at least MIN_INFLATED, and beyond that
# INFLATION_RATIO times its packed size (text compresses 3 to 15 times; a bomb, hundreds of times), never more
# than MAX_FILE_BYTES. Unpacking stops, naming the file, as soon as the bound is passed, before the memory is spent.
MIN_INFLATED = 128 << 20
INFLATION_RATIO = 32


def inflation_limit(packed: int) -> int:
    return min(MAX_FILE_BYTES, max(MIN_INFLATED, INFLATION_RATIO * packed))


def inflate(stream: Any, limit: int, what: str) -> bytes:
    """Read a decompressing stream in 1 MiB chunks, refusing it once it passes `limit` bytes."""
    out, total = bytearray(), 0
    while chunk := stream.read(1 << 20):
        total += len(chunk)
        if total > limit:
            raise _inflated_too_far(what, limit)
        out += chunk
    return bytes(out)


def _inflated_too_far(what: str, limit: int) -> SourceUnavailable:
    why = ("the most a file may have" if limit >= MAX_FILE_BYTES else
           f"at most {INFLATION_RATIO} times its packed size, and at least {MIN_INFLATED >> 20} MiB, may be unpacked")
    return SourceUnavailable(f"{what}: unpacks to more than {limit:,} bytes ({why})")


def _checked_size(path: Path) -> int:
    """The file's size, refused past MAX_FILE_BYTES."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise SourceUnavailable(f"{path.name}: {size} bytes is more than the {MAX_FILE_BYTES} a file may have")
    return size


class Inflating(io.RawIOBase):
    """A gzip member's bytes, read as a stream and refused once they pass readers.inflation_limit (the bound the
    whole-file reader applies, without holding the unpacked text)."""

    def __init__(self, path: Path) -> None:
        self.name = path.name
        self.limit = inflation_limit(_checked_size(path))
        self.inner = gzip.open(path, "rb")
        self.total = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            n = self.inner.readinto(buffer)
        except (OSError, EOFError, zlib.error) as err:
            raise SourceUnavailable(f"{self.name}: not a readable gzip file ({_one_line(err)})") from None
        self.total += n
        if self.total > self.limit:
            raise _inflated_too_far(self.name, self.limit)
        return n

    def close(self) -> None:
        self.inner.close()
        super().close()


def open_bytes(path: Path) -> Any:
    """The file's bytes as a buffered stream: unpacked, within the inflation bound, for a .gz file."""
    if path.name.lower().endswith(".gz"):
        return io.BufferedReader(Inflating(path), buffer_size=1 << 20)
    _checked_size(path)
    return path.open("rb")


class CarriageReturns(OSError):
    """Raised inside Arrow's read when the text holds what LineFeeds cannot hand it safely (an OSError, so that
    the reader's own error handling sends the file the Python way)."""


class LineFeeds(io.RawIOBase):
    """A byte stream with every CRLF as LF, as the Python readers read text (`_open_text`), also inside quoted
    values. Arrow's CSV reader loses the LF of a quoted CRLF that a block boundary splits (found by the
    streamed-CSV hypothesis test), so it is never given one. A CR that ends a chunk waits for the next."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.pending = b""
        self.held = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            chunk = self.inner.read(1 << 20)
            if not chunk:
                self.pending, self.held = self.held, b""
                break
            chunk = self.held + chunk
            self.held = b""
            kept = chunk.rstrip(b"\r")  # every trailing CR waits: CR CR | LF must meet the check below whole
            chunk, self.held = kept, chunk[len(kept):]
            self.pending = chunk.replace(b"\r\n", b"\n")
            if b"\r\n" in self.pending:
                # CR CR LF reads as CR LF, which Arrow could split at a block boundary: the Python reader decides.
                raise CarriageReturns("a CR before a CRLF")
        n = min(len(buffer), len(self.pending))
        buffer[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n

    def close(self) -> None:
        self.inner.close()
        super().close()


def csv_bytes(path: Path) -> Any:
    """The file's bytes for Arrow's CSV reader: unpacked within the bound (`open_bytes`), CRLF read as LF."""
    return io.BufferedReader(LineFeeds(open_bytes(path)), buffer_size=1 << 20)


def _arrow_may_read(path: Path, spec: TableSpec) -> bool:
    """Whether Arrow's C++ readers may try the file: plain UTF-8 as declared, not gzip-compressed (those go
    through _open_text, which bounds the unpacking)."""
    return spec.encoding.lower().replace("-", "").replace("_", "") == "utf8" and not path.name.lower().endswith(".gz")


def _open_text(path: Path, encoding: str) -> str:
    size = _checked_size(path)
    if path.name.lower().endswith(".gz"):
        try:
            with gzip.open(path, "rb") as stream:
                raw = inflate(stream, inflation_limit(size), path.name)  # a small .gz can inflate to far more
        except (OSError, EOFError, zlib.error) as err:
            raise SourceUnavailable(f"{path.name}: not a readable gzip file ({_one_line(err)})") from None
    else:
        raw = path.read_bytes()
    if encoding.lower().replace("-", "") in ("utf8", "utf8sig"):
        encoding = "utf-8-sig"  # a byte-order mark is not part of the first column's name
    # Line ends are read as Python reads text files: CRLF (also inside quoted CSV fields) becomes LF.
    return raw.decode(encoding).replace("\r\n", "\n")


# --------------------------------------------------------------------------------------------- archives

MAX_MEMBERS = 100_000


def extract_members(folder: Path, spec: TableSpec, where: str, scratch: Path) -> Path:
    """The archive members that `files` names, extracted into `scratch` after checking names and sizes."""
    matched = match_files(folder, spec.archive, {}, where)
    if len(matched) != 1:
        raise SourceUnavailable(f"{where}: no archive {spec.archive!r} in {folder}" if not matched else f"{where}: {spec.archive!r} matches several files")
    patterns = spec.files if isinstance(spec.files, list) else list(spec.files.values()) if isinstance(spec.files, dict) else [spec.files]
    regexes = [_pattern_regex(check_relative(p, where).as_posix(), where) for p in patterns]
    target = scratch / ("archive-" + re.sub(r"[^A-Za-z0-9_.-]", "_", spec.archive))[:100]
    try:
        archive = zipfile.ZipFile(matched[0].path)
    except (zipfile.BadZipFile, OSError) as err:
        raise SourceUnavailable(f"{where}: {spec.archive} is not a readable zip archive: {_one_line(err)}") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise SourceUnavailable(f"{where}: {spec.archive} holds more than {MAX_MEMBERS} members")
        for info in members:
            name = info.filename
            if info.is_dir() or not any(r.match(name) for r in regexes):
                continue
            try:
                check_relative(name, where)
            except RecordProblem:
                raise SourceUnavailable(f"{where}: {spec.archive} member {name!r} would land outside the folder") from None
            limit = inflation_limit(info.compress_size)
            if info.file_size > limit:
                raise SourceUnavailable(f"{where}: {spec.archive} member {name} unpacks to more than {limit:,} bytes")
            out = target / name
            out.parent.mkdir(parents=True, exist_ok=True)
            try:
                with archive.open(info) as source, open(out, "wb") as sink:
                    copied = 0
                    while chunk := source.read(1 << 20):
                        copied += len(chunk)
                        if copied > limit:  # the declared size can lie
                            raise SourceUnavailable(f"{where}: {spec.archive} member {name} unpacks to more than {limit:,} bytes")
                        sink.write(chunk)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as err:
                # zipfile stops at the declared size and then fails the CRC; also bad data, encryption, odd methods
                raise SourceUnavailable(f"{where}: {spec.archive} member {name} cannot be unpacked: {_one_line(err)}") from None
    target.mkdir(parents=True, exist_ok=True)
    return target


# --------------------------------------------------------------------------------------------- tables


def read_table(folder: Path, spec: TableSpec, where: str, scratch: Path | None = None) -> pa.Table:
    """Every file a spec names, read and concatenated in path order, with its `{name}` parts as columns."""
    if spec.archive is not None:
        if scratch is None:
            raise RecordProblem(f"{where}: reading inside an archive needs a scratch folder")
        folder = extract_members(folder, spec, where, scratch)
    if isinstance(spec.files, dict):
        if (spec.format or "lines") != "lines":
            raise RecordProblem(f"{where}: `files` as a mapping of column to file is only for `format: lines`")
        return _read_lines(folder, spec, where)
    patterns = [spec.files] if isinstance(spec.files, str) else list(spec.files)
    tables = []
    for pattern in patterns:
        matched = match_files(folder, pattern, spec.where, where)
        if not matched:
            raise SourceUnavailable(f"{where}: no file matches {pattern!r} in {folder}")
        fmt = spec.format or infer_format(pattern) or infer_format(matched[0].relative)
        if fmt is None:
            raise RecordProblem(f"{where}: cannot tell the format of {pattern!r}; give `format:`")
        if fmt == "text":
            tables.append(_read_text_files(matched, spec, where))
            continue
        reader = _READERS.get(fmt)
        if reader is None:
            raise RecordProblem(f"{where}: `format: {fmt}` needs `files` as a mapping of column to file")
        for item in matched:
            try:
                table = reader(item.path, spec)
            except Exception as err:
                raise located(err, where, item, fmt) from None
            tables.append(_with_parts(table, item.parts, where))
    return _concat(tables, where)


def located(err: Exception, where: str, item: MatchedFile, fmt: str) -> Exception:
    """A reader's error as one located line: ours with the file's path in the mirror, a parser's own type (every
    parser raises its own) as SourceUnavailable."""
    if isinstance(err, (SourceUnavailable, RecordProblem)):
        return type(err)(f"{where}: {_relative(str(err), item)}")
    return SourceUnavailable(f"{where}: cannot read {item.relative} as {fmt}: {_one_line(err)}")


def _relative(message: str, item: MatchedFile) -> str:
    """A reader's message, which starts with the file's name, with the name replaced by its path in the mirror."""
    name = item.path.name
    return item.relative + message[len(name):] if message.startswith(name) else message


def _with_parts(table: pa.Table, parts: dict[str, str], where: str) -> pa.Table:
    for name, value in parts.items():
        if name in table.column_names:
            raise RecordProblem(f"{where}: the file pattern's {{{name}}} clashes with a column of the same name")
        table = table.append_column(name, pa.array([value] * table.num_rows, pa.string()))
    return table


def _concat(tables: list[pa.Table], where: str) -> pa.Table:
    if len(tables) == 1:
        return tables[0]
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as err:
        raise SourceUnavailable(f"{where}: the files do not share columns of one type: {_one_line(err)}") from None


def _from_rows(rows: list[dict[str, Any]]) -> pa.Table:
    """Rows of Python values as a table; columns whose values mix types are kept as text."""
    names: dict[str, None] = {}
    for row in rows:
        for key in row:
            names.setdefault(str(key), None)
    columns = {}
    for name in names:
        values = [row.get(name) for row in rows]
        try:
            columns[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            columns[name] = pa.array([None if v is None else (v if isinstance(v, str) else json.dumps(v)) for v in values], pa.string())
    return pa.table(columns) if columns else pa.table({})


def _read_csv(path: Path, spec: TableSpec, delimiter: str = ",") -> pa.Table:
    """Every value as text, as the file has it. Through Arrow's C++ reader where the file is plain UTF-8 and
    Arrow reads it as the Python reader would; else with the csv module, as before."""
    table = _read_csv_arrow(path, spec, delimiter)
    return table if table is not None else _read_csv_python(path, spec, delimiter)


def _read_csv_arrow(path: Path, spec: TableSpec, delimiter: str) -> pa.Table | None:
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    if spec.encoding.lower().replace("-", "").replace("_", "") != "utf8" or not _checked_size(path):
        return None
    sep = spec.delimiter or delimiter
    with open_bytes(path) as handle:  # a .gz file unpacks as a stream, within the inflation bound
        first = handle.readline(1 << 20)
    line = first[:-2] if first.endswith(b"\r\n") else first.rstrip(b"\n")
    if first.startswith(b"\xef\xbb\xbf") or b'"' in line or b"\r" in line:
        return None  # a byte-order mark, or a header the csv module parses its own way: the Python reader decides
    header = line.decode("utf-8", errors="replace").split(sep)
    if len(set(header)) != len(header) or any(not h for h in header):
        return None  # the Python reader names repeated columns
    try:
        with csv_bytes(path) as source:
            table = pcsv.read_csv(
                source,
                read_options=pcsv.ReadOptions(use_threads=False, block_size=8 << 20),
                parse_options=pcsv.ParseOptions(delimiter=sep, newlines_in_values=True, ignore_empty_lines=True),
                convert_options=pcsv.ConvertOptions(column_types={h: pa.string() for h in header}, strings_can_be_null=True,
                                                    null_values=[""], quoted_strings_can_be_null=True),
            )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowCapacityError, OSError):
        return None  # ragged rows, bad UTF-8, a field over Arrow's limits: the Python reader decides
    if table.column_names != header:
        return None
    columns = []
    for column in table.columns:
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
        if pc.any(pc.match_substring(column, "\r")).as_py():
            # The Python reader reads the text with CRLF as LF, inside quoted values too.
            column = pc.replace_substring(column, "\r\n", "\n")
        columns.append(column)
    return pa.table(columns, names=header)


def _read_csv_python(path: Path, spec: TableSpec, delimiter: str = ",") -> pa.Table:
    text = _open_text(path, spec.encoding)
    csv.field_size_limit(MAX_CELL_CHARS)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=spec.delimiter or delimiter)
    header = next(reader, None)
    if header is None:
        return pa.table({})
    if len(set(header)) != len(header):
        dupes = sorted({h for h in header if header.count(h) > 1})
        raise SourceUnavailable(f"{path.name}: the header repeats column(s) {', '.join(map(repr, dupes))}")
    columns: list[list[str | None]] = [[] for _ in header]
    line_no = reader.line_num + 1  # the file line a record starts on (a quoted field can span lines)
    for record in reader:
        start, line_no = line_no, reader.line_num + 1
        if not record:
            continue  # a blank line is no record (pandas, and so `datasets`, skip them too)
        if len(record) > len(header):
            # Some files end every record in empty fields the header does not name (Medbullets' `,,,,,`).
            if any(field.strip() for field in record[len(header):]):
                raise SourceUnavailable(f"{path.name}:{start}: {len(record)} fields where the header has {len(header)}")
            record = record[: len(header)]
        for i, column in enumerate(columns):
            value = record[i] if i < len(record) else ""
            column.append(value if value != "" else None)
    # Every value stays text, as the file has it: `0`/`1` labels, ids with leading zeros, `TRUE`/`FALSE`.
    return pa.table({name: pa.array(values, pa.string()) for name, values in zip(header, columns)})


def _read_json(path: Path, spec: TableSpec) -> pa.Table:
    data = json.loads(_open_text(path, spec.encoding))
    return _from_rows(json_records(data, spec.records, spec.key_column, path.name))


def json_records(data: Any, records: str | None, key_column: str | None, name: str) -> list[dict[str, Any]]:
    """The records a `records` path names: dotted keys, with `*` for every value of an object (or item of a list).

    At each `*` the object's key goes into `key_column` (when given), and the plain fields of the parent
    objects are carried into each record that lacks them (HEAD-QA's exam name and year; PubMedQA's id).
    """
    parts = records.split(".") if records else []
    found: list[dict[str, Any]] = []

    def walk(node: Any, rest: list[str], inherited: dict[str, Any]) -> None:
        if not rest:
            items = node if isinstance(node, list) else None
            if items is None or not all(isinstance(r, dict) for r in items):
                if isinstance(node, dict) and parts and parts[-1] == "*":
                    items = [node]
                else:
                    where = f" at {records!r}" if records else ""
                    raise SourceUnavailable(f"{name}: expected a list of objects{where}; give `records:`")
            for item in items:
                found.append({**inherited, **item})
            return
        head, tail = rest[0], rest[1:]
        if head == "*":
            if isinstance(node, dict):
                entries = list(node.items())
            elif isinstance(node, list):
                entries = list(enumerate(node))
            else:
                raise SourceUnavailable(f"{name}: `*` in records {records!r} meets a {type(node).__name__}, not an object")
            for key, value in entries:
                carried = dict(inherited)
                if key_column:
                    carried[key_column] = key
                if isinstance(value, dict):
                    carried.update({k: v for k, v in value.items() if not isinstance(v, (dict, list))} if tail else {})
                walk(value, tail, carried)
            return
        if not isinstance(node, dict) or head not in node:
            raise SourceUnavailable(f"{name}: no {head!r} in the file (records path {records!r})")
        walk(node[head], tail, inherited)

    walk(data, parts, {})
    return found


def _read_jsonl(path: Path, spec: TableSpec) -> pa.Table:
    """JSON lines: through Arrow's C++ reader where it gives exactly the table the Python reader would (plain
    UTF-8, and only null, boolean, integer, float, text, list and struct values), else line by line in Python."""
    table = _read_jsonl_arrow(path, spec)
    return table if table is not None else _read_jsonl_python(path, spec)


# Types Arrow's JSON reader produces that json.loads + pa.array produce too. Arrow also reads ISO-looking
# strings as timestamps, which the Python reader keeps as text: such a file goes the Python way.
_LONG_DIGITS = re.compile(rb"\d{19,}")


def _has_float(t: pa.DataType) -> bool:
    if pa.types.is_struct(t):
        return any(_has_float(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _has_float(t.value_type)
    return pa.types.is_floating(t)


def _plain_json_type(t: pa.DataType, in_list: bool = False) -> bool:
    # Lists only of scalars: Arrow's reader mistakes nulls inside nested lists and lists of nulls (found by the
    # hypothesis test against the Python reader).
    if pa.types.is_struct(t):
        return not in_list and all(_plain_json_type(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return not in_list and _plain_json_type(t.value_type, in_list=True)
    return ((pa.types.is_null(t) and not in_list) or pa.types.is_boolean(t) or t == pa.int64() or t == pa.float64()
            or pa.types.is_string(t) or pa.types.is_large_string(t))


def _read_jsonl_arrow(path: Path, spec: TableSpec) -> pa.Table | None:
    import pyarrow.json as pj

    if not _arrow_may_read(path, spec):
        return None
    _checked_size(path)
    with path.open("rb") as handle:
        if handle.read(3) == b"\xef\xbb\xbf":  # a byte-order mark: the Python reader drops it
            return None
    try:
        table = pj.read_json(path, read_options=pj.ReadOptions(use_threads=True, block_size=8 << 20),
                             parse_options=pj.ParseOptions(newlines_in_values=False))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowCapacityError, OSError):
        return None  # a bad line, mixed types, a duplicate key, a huge integer: the Python reader decides
    if not table.num_columns or not all(_plain_json_type(f.type) for f in table.schema):
        return None
    if any(_has_float(f.type) for f in table.schema):
        import mmap

        # Arrow reads an integer past int64 as a float; the Python reader keeps it exact, as text. Only a table
        # with a float column can hold one, so only then is the file scanned for a long run of digits.
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            if _LONG_DIGITS.search(view):
                return None
    try:
        # Arrow's reader drops a null that opens a list (its offsets then outrun the values): a full validation
        # catches that, and any such file goes the Python way.
        table.validate(full=True)
    except (pa.ArrowInvalid, pa.ArrowIndexError):
        return None
    return table.combine_chunks()


def _read_jsonl_python(path: Path, spec: TableSpec) -> pa.Table:
    rows = []
    # Only "\n" ends a record: str.splitlines() also splits at U+2028, U+0085 and form feeds, which JSON allows raw in strings.
    for line_no, line in enumerate(_open_text(path, spec.encoding).split("\n"), start=1):
        if not line.strip():
            continue
        rows.append(json_line_object(line, path.name, line_no))
    return _from_rows(rows)


def json_line_object(line: str, name: str, line_no: int) -> dict[str, Any]:
    """One line of a JSON-lines file as its object, or a located error."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as err:
        raise SourceUnavailable(f"{name}:{line_no}: not JSON: {err.msg}") from None
    if not isinstance(row, dict):
        raise SourceUnavailable(f"{name}:{line_no}: a line must hold one JSON object")
    return row


def _read_parquet(path: Path, spec: TableSpec) -> pa.Table:
    import pyarrow.parquet as pq

    return pq.read_table(path, use_threads=False)


def _read_feather(path: Path, spec: TableSpec) -> pa.Table:
    import pyarrow.feather as feather

    return feather.read_table(path, use_threads=False)


def _read_arrow(path: Path, spec: TableSpec) -> pa.Table:
    import pyarrow.ipc as ipc

    with pa.memory_map(str(path)) as source:
        try:
            return ipc.open_file(source).read_all()
        except pa.ArrowInvalid:
            source.seek(0)
            return ipc.open_stream(source).read_all()


# Office files are zip archives of XML: a small file can unpack to a huge one, or list millions of parts or
# shared strings that the parser would hold at once. These bounds are checked before any XML is parsed.
MAX_OFFICE_INFLATED = 1 << 30  # all members together, unpacked
MAX_OFFICE_MEMBERS = 10_000
MAX_SHARED_STRINGS = 2_000_000


def check_office_file(path: Path, what: str) -> None:
    """Refuse an .xlsx or .docx whose parts would take more memory to read than a build may spend, naming it."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise SourceUnavailable(f"{path.name}: not a readable {what} ({_one_line(err)})") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_OFFICE_MEMBERS:
            raise SourceUnavailable(f"{path.name}: the {what} holds {len(members):,} parts (at most {MAX_OFFICE_MEMBERS:,})")
        bound = min(MAX_OFFICE_INFLATED, inflation_limit(path.stat().st_size))
        stated = sum(i.file_size for i in members)
        if stated > bound:
            raise SourceUnavailable(f"{path.name}: the {what} unpacks to {stated:,} bytes (at most {bound:,})")
        total = 0
        for info in members:  # the stated sizes can lie: count what each member really unpacks to
            strings, tail = 0, b""
            try:
                with archive.open(info) as member:
                    while chunk := member.read(1 << 20):
                        total += len(chunk)
                        if total > bound:
                            raise SourceUnavailable(f"{path.name}: the {what} unpacks to more than {bound:,} bytes")
                        if info.filename.endswith("sharedStrings.xml"):
                            window = tail + chunk
                            strings += sum(window.count(m) for m in (b"<si>", b"<si ", b":si>", b":si "))
                            strings -= sum(tail.count(m) for m in (b"<si>", b"<si ", b":si>", b":si "))
                            tail = chunk[-4:]
                            if strings > MAX_SHARED_STRINGS:
                                raise SourceUnavailable(f"{path.name}: the {what} lists more than {MAX_SHARED_STRINGS:,} "
                                                        "shared strings")
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as err:
                raise SourceUnavailable(f"{path.name}: {info.filename} cannot be unpacked: {_one_line(err)}") from None


def _read_xlsx(path: Path, spec: TableSpec) -> pa.Table:
    tables = list(xlsx_batches(path, spec))
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables)


def xlsx_batches(path: Path, spec: TableSpec, batch_rows: int = 10_000) -> Iterator[pa.Table]:
    """The sheet's rows, every value as the text a reader sees, in tables of `batch_rows` (openpyxl's read-only
    mode parses the sheet as a stream); at least one table."""
    import openpyxl

    check_office_file(path, "workbook")
    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        if spec.sheet is not None and spec.sheet not in book.sheetnames:
            raise SourceUnavailable(f"{path.name}: no sheet {spec.sheet!r} (sheets: {', '.join(book.sheetnames)})")
        sheet = book[spec.sheet] if spec.sheet else book.worksheets[0]
        rows = sheet.iter_rows(values_only=True)
        header = next(rows, None)
        if header is None:
            yield pa.table({})
            return
        names = [str(h).strip() if h is not None else "" for h in header]
        while names and names[-1] == "":
            names.pop()
        if "" in names or len(set(names)) != len(names):
            raise SourceUnavailable(f"{path.name}: the header row of sheet {sheet.title!r} has an empty or repeated column name")
        columns: list[list[Any]] = [[] for _ in names]
        count, yielded = 0, False
        for row in rows:
            cells = list(row[: len(names)]) + [None] * max(0, len(names) - len(row))
            if all(c is None or (isinstance(c, str) and not c.strip()) for c in cells):
                continue  # spreadsheets end in blank rows
            for column, value in zip(columns, cells):
                column.append(_cell(value))
            count += 1
            if count == batch_rows:
                yield pa.table({name: pa.array(values, pa.string()) for name, values in zip(names, columns)})
                columns, count, yielded = [[] for _ in names], 0, True
        if count or not yielded:
            yield pa.table({name: pa.array(values, pa.string()) for name, values in zip(names, columns)})
    finally:
        book.close()


def _cell(value: Any) -> str | None:
    """A spreadsheet cell as the text a reader sees: whole numbers without `.0`, booleans as TRUE/FALSE."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        return value.isoformat()
    text = str(value)
    return text if text != "" else None


def _read_text_files(matched: list[MatchedFile], spec: TableSpec, where: str) -> pa.Table:
    """One row per file: its stem in `file`, its text in `text_column`, and its `{name}` parts."""
    rows = []
    for name in matched[0].parts:
        if name in ("file", spec.text_column):
            raise RecordProblem(f"{where}: the file pattern's {{{name}}} clashes with the {name!r} column a text file gives")
    for item in matched:
        try:
            text = _open_text(item.path, spec.encoding)
        except UnicodeDecodeError as err:
            raise SourceUnavailable(f"{where}: {item.relative} is not {spec.encoding} text: {_one_line(err)}") from None
        stem = _stem(PurePosixPath(item.relative).name)
        rows.append({"file": stem, spec.text_column: text, **item.parts})
    return pa.table({k: pa.array([r[k] for r in rows], pa.string()) for k in rows[0]})


def _stem(name: str) -> str:
    """A file name without its format's extension (`Dr. Smith - 2.txt` -> `Dr. Smith - 2`, `x.csv.gz` -> `x`)."""
    lower = name.lower()
    for ext, _ in _EXTENSIONS:
        if lower.endswith(ext):
            return name[: -len(ext)]
    return PurePosixPath(name).stem


def _read_lines(folder: Path, spec: TableSpec, where: str) -> pa.Table:
    """Line-aligned files: line N of every file is row N (MIMIC-RRS findings and impressions)."""
    columns: dict[str, list[str]] = {}
    for name, relative in spec.files.items():
        matched = match_files(folder, relative, {}, where)
        if len(matched) != 1:
            raise SourceUnavailable(f"{where}: no file {relative!r} in {folder}" if not matched else f"{where}: {relative!r} matches several files")
        text = _open_text(matched[0].path, spec.encoding)
        columns[name] = text.split("\n")
        if columns[name] and columns[name][-1] == "":
            columns[name].pop()  # the newline that ends the last line
    counts = {name: len(lines) for name, lines in columns.items()}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{spec.files[n]} {c}" for n, c in counts.items())
        raise SourceUnavailable(f"{where}: line-aligned files differ in length ({shown} lines)")
    return pa.table({name: pa.array(lines, pa.string()) for name, lines in columns.items()})


def _read_xml(path: Path, spec: TableSpec) -> pa.Table:
    from defusedxml import ElementTree as SafeET

    if path.stat().st_size > MAX_FILE_BYTES:
        raise SourceUnavailable(f"{path.name}: larger than {MAX_FILE_BYTES} bytes")
    # defusedxml refuses entity declarations and external references: no billion laughs, no file or network reads.
    root = SafeET.fromstring(path.read_bytes(), forbid_dtd=True)
    if not spec.rows:
        raise RecordProblem(f"{path.name}: `format: xml` needs `rows:` (the elements that become rows)")
    elements = []
    for rows_path in [spec.rows] if isinstance(spec.rows, str) else spec.rows:
        elements.extend([root] if rows_path in (".", "/") else root.findall(rows_path))
    fields = spec.fields or {"text": "."}
    rows = [{name: _xml_value(element, root, expr) for name, expr in fields.items()} for element in elements]
    return pa.table({name: pa.array([r[name] for r in rows], pa.string()) for name in fields})


def _xml_value(element: Any, root: Any, expr: str) -> str | None:
    if expr == "name()":
        return element.tag
    base = element
    if expr.startswith("/"):
        base, expr = root, expr.lstrip("/") or "."
    head, at, tail = expr.rpartition("@")
    # `a/b@attr` reads an attribute; an `@` inside a predicate (`Answer[@ReferenceRank='1']/AnswerText`) does not.
    path, attribute = (head, tail) if at and _ATTRIBUTE.match(tail) else (expr, "")
    path = path.rstrip("/") or "."
    target = base if path == "." else base.find(path)
    if target is None:
        return None
    if attribute:
        return target.get(attribute)
    return "".join(target.itertext())


def _read_docx(path: Path, spec: TableSpec) -> pa.Table:
    """A .docx read with the standard library: its paragraphs, or one of its tables (header row first)."""
    from defusedxml import ElementTree as SafeET

    ns = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    check_office_file(path, "document")
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("word/document.xml")
        with archive.open(info) as member:  # bounded again here: the office check counted the whole file
            xml = inflate(member, inflation_limit(path.stat().st_size), f"{path.name}: word/document.xml")
        root = SafeET.fromstring(xml, forbid_dtd=True)
    body = root.find(f"{ns}body")
    if body is None:
        raise SourceUnavailable(f"{path.name}: no document body")

    def text(node: Any) -> str:
        return "".join(t.text or "" for t in node.iter(f"{ns}t"))

    if spec.docx_table is None:
        # The body's own paragraphs, as Word's paragraph list (and python-docx) has them: not those in table cells.
        elements = body.findall(f"{ns}p")
        rows = [{"paragraph": i, spec.text_column: text(p), "red": _has_red(p, ns)} for i, p in enumerate(elements)]
        return pa.table({
            "paragraph": pa.array([r["paragraph"] for r in rows], pa.int64()),
            spec.text_column: pa.array([r[spec.text_column] for r in rows], pa.string()),
            "red": pa.array([r["red"] for r in rows], pa.bool_()),
        })
    tables = list(body.iter(f"{ns}tbl"))
    if spec.docx_table >= len(tables):
        raise SourceUnavailable(f"{path.name}: no table {spec.docx_table} (the document has {len(tables)})")
    grid = [[text(cell) for cell in row.iter(f"{ns}tc")] for row in tables[spec.docx_table].iter(f"{ns}tr")]
    if not grid:
        return pa.table({})
    header, body_rows = grid[0], grid[1:]
    if "" in header or len(set(header)) != len(header):  # a dict of columns would silently keep only the last
        raise SourceUnavailable(f"{path.name}: the header row of table {spec.docx_table} has an empty or repeated column name")
    return pa.table({h: pa.array([r[i] if i < len(r) else None for r in body_rows], pa.string()) for i, h in enumerate(header)})


def _has_red(paragraph: Any, ns: str) -> bool:
    """Whether any run of the paragraph is coloured pure red (how some supplements mark a judgement)."""
    return any((c.get(f"{ns}val") or "").upper() == "FF0000" for c in paragraph.iter(f"{ns}color"))


_READERS: dict[str, Callable[[Path, TableSpec], pa.Table]] = {
    "csv": _read_csv,
    "tsv": lambda path, spec: _read_csv(path, spec, "\t"),
    "json": _read_json,
    "jsonl": _read_jsonl,
    "parquet": _read_parquet,
    "feather": _read_feather,
    "arrow": _read_arrow,
    "xlsx": _read_xlsx,
    "xml": _read_xml,
    "docx": _read_docx,
}


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 300 else text[:297] + "..."
