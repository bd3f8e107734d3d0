"""A source's files before any format is read: finding what a file pattern names inside the mirror folder,
the size and unpacking bounds every read obeys, gzip streams, text decoding, and zip archives' members."""

from __future__ import annotations

import gzip
import io
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator

from clinreg.core.builderrors import RecordProblem, SourceUnavailable, one_line
from clinreg.core.model import TableSpec
from clinreg.core.specfiles import file_patterns
from clinreg.text.patterns import glob_class_problem
from clinreg.text.safeio import open_regular, read_regular_file

# A reader refuses files larger than this rather than exhausting memory on a hostile or mistaken mirror.
MAX_FILE_BYTES = 8 << 30
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
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


def _pattern_regex(pattern: str, where: str = "") -> re.Pattern:
    """A `{name}`/glob pattern as a regex over `/`-separated relative paths; no wildcard crosses a `/`."""
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


def file_stem(name: str) -> str:
    """A file name without its format's extension (`Dr. Smith - 2.txt` -> `Dr. Smith - 2`, `x.csv.gz` -> `x`)."""
    lower = name.lower()
    for ext, _ in _EXTENSIONS:
        if lower.endswith(ext):
            return name[: -len(ext)]
    return PurePosixPath(name).stem


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


def checked_size(path: Path) -> int:
    """The file's size, refused past MAX_FILE_BYTES."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):  # a FIFO would block, a device never end
        raise SourceUnavailable(f"{path.name}: not a regular file")
    size = info.st_size
    if size > MAX_FILE_BYTES:
        raise SourceUnavailable(f"{path.name}: {size} bytes is more than the {MAX_FILE_BYTES} a file may have")
    return size


class Inflating(io.RawIOBase):
    """A gzip member's bytes, read as a stream and refused once they pass inflation_limit (the bound the
    whole-file reader applies, without holding the unpacked text)."""

    def __init__(self, path: Path) -> None:
        self.name = path.name
        self.limit = inflation_limit(checked_size(path))
        self.inner = gzip.open(path, "rb")
        self.total = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            n = self.inner.readinto(buffer)
        except (OSError, EOFError, zlib.error) as err:
            raise SourceUnavailable(f"{self.name}: not a readable gzip file ({one_line(err)})") from None
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
    checked_size(path)
    return open_regular(path)


def read_text(path: Path, encoding: str) -> str:
    """The file's text, decoded (a .gz file unpacked within the inflation bound), with CRLF read as LF."""
    size = checked_size(path)
    if path.name.lower().endswith(".gz"):
        try:
            with gzip.open(path, "rb") as stream:
                raw = inflate(stream, inflation_limit(size), path.name)  # a small .gz can inflate to far more
        except (OSError, EOFError, zlib.error) as err:
            raise SourceUnavailable(f"{path.name}: not a readable gzip file ({one_line(err)})") from None
    else:
        raw = read_regular_file(path, MAX_FILE_BYTES)  # a FIFO or a device put in its place is refused
    if encoding.lower().replace("-", "") in ("utf8", "utf8sig"):
        encoding = "utf-8-sig"  # a byte-order mark is not part of the first column's name
    # Line ends are read as Python reads text files: CRLF (also inside quoted CSV fields) becomes LF.
    return raw.decode(encoding).replace("\r\n", "\n")


# --------------------------------------------------------------------------------------------- archives

MAX_MEMBERS = 100_000


def _member_clash(name: str, files: set[str], folders: set[str]) -> str | None:
    """Why a member cannot be unpacked beside the members already unpacked from the same archive (`files`, and
    the `folders` they need), in the archive's own names; records it when it can."""
    parts = PurePosixPath(name).parts
    prefixes = ["/".join(parts[:depth]) for depth in range(1, len(parts))]
    clash = next((p for p in prefixes if p in files), None)
    key = "/".join(parts)
    if clash is not None:
        return f"member {clash!r} is a file, but this member needs it to be a folder"
    if key in folders:
        return "other members need it to be a folder"
    if key in files:
        return "the archive holds it twice"
    files.add(key)
    folders.update(prefixes)
    return None


def extract_members(folder: Path, spec: TableSpec, where: str, scratch: Path) -> Path:
    """The archive members that `files` names, extracted into `scratch` after checking names and sizes."""
    matched = match_files(folder, spec.archive, {}, where)
    if len(matched) != 1:
        raise SourceUnavailable(f"{where}: no archive {spec.archive!r} in {folder}" if not matched
                                else f"{where}: {spec.archive!r} matches several files")
    regexes = [_pattern_regex(check_relative(p, where).as_posix(), where) for p in file_patterns(spec.files)]
    target = scratch / ("archive-" + re.sub(r"[^A-Za-z0-9_.-]", "_", spec.archive))[:100]
    try:
        archive = zipfile.ZipFile(matched[0].path)
    except (zipfile.BadZipFile, OSError) as err:
        raise SourceUnavailable(f"{where}: {spec.archive} is not a readable zip archive: {one_line(err)}") from None
    files: set[str] = set()
    folders: set[str] = set()
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
                raise SourceUnavailable(f"{where}: {spec.archive} member {name!r} would land outside the "
                                        "folder") from None
            limit = inflation_limit(info.compress_size)
            if info.file_size > limit:
                raise SourceUnavailable(f"{where}: {spec.archive} member {name} unpacks to more than {limit:,} bytes")
            out = target / name
            clash = _member_clash(name, files, folders)
            if clash:
                raise SourceUnavailable(f"{where}: {spec.archive} member {name!r} cannot be unpacked: {clash}")
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as source, open(out, "wb") as sink:
                    copied = 0
                    while chunk := source.read(1 << 20):
                        copied += len(chunk)
                        if copied > limit:  # the declared size can lie
                            raise SourceUnavailable(f"{where}: {spec.archive} member {name} unpacks to more than "
                                                    f"{limit:,} bytes")
                        sink.write(chunk)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as err:
                # zipfile stops at the declared size and then fails the CRC; also bad data, encryption, odd methods
                raise SourceUnavailable(f"{where}: {spec.archive} member {name} cannot be unpacked: "
                                        f"{one_line(err)}") from None
            except OSError as err:  # told without the path of the scratch folder, which means nothing to the user
                raise SourceUnavailable(f"{where}: {spec.archive} member {name!r} cannot be unpacked: "
                                        f"{err.strerror or type(err).__name__}") from None
    target.mkdir(parents=True, exist_ok=True)
    return target
