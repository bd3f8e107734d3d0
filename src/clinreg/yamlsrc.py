"""Parse one untrusted YAML file into plain values, keeping the file, line and column of every key and value."""

from __future__ import annotations

import re
from array import array
from sys import intern
from weakref import ref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

try:  # The C parser is a fixed choice; the pure-Python one is only a fallback for odd platforms.
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

Path_ = tuple  # a path into the document: keys and list indices


@dataclass(frozen=True)
class Limits:
    """Resource limits for one registry file. Registry files are small; anything beyond these is hostile or a mistake."""

    max_bytes: int = 1024 * 1024
    max_depth: int = 40
    max_aliases: int = 16
    max_nodes: int = 200_000
    # Converting a long plain number (a sexagesimal 1:2:3:..., or 1_1_1...) costs time quadratic in its length.
    max_number_chars: int = 1000


DEFAULT_LIMITS = Limits()


@dataclass
class Problem:
    """A parse problem, before it becomes a Diagnostic (the store adds the file and the rule's severity)."""

    code: str
    line: int
    column: int
    message: str
    hint: str | None = None


@dataclass
class YamlDoc:
    """A parsed file: its values, and the line and column of every value and key.

    The location tables (`values`, `keys`, `containers`) are built as dicts by the reference reader. The fast
    reader, which reads almost every file, stores them packed instead: the paths in file order (tuples that
    equal paths of other files share) and their locations as one 64-bit integer each in an array. That holds
    a large tree in about a third of the memory; a file's first lookup scans its paths, a second one indexes
    them, and the index of the last file looked up is kept (rules report file by file). Both forms answer alike.

    YamlDoc is internal to clinreg. On a packed doc, `values`, `keys` and `containers` build a new dict or set
    on each access (a read-only view: writing to it changes nothing), and two docs of the same text compare
    equal only when both were read by the same reader.
    """

    data: Any = None
    # Plain (unquoted) scalars that YAML turned into something other than a string, with their source text.
    plain: dict[Path_, str] = field(default_factory=dict)
    # Every scalar value (not key) and its path, in file order, flat: path, value, path, value, ... (a pair per
    # scalar would cost a tuple each). Rules scan this instead of walking the tree; see `scalars`.
    scalar_items: list = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    first_line: str = ""
    # Dict form (reference reader), or None once packed.
    _values: dict | None = field(default_factory=dict, repr=False)
    _keys: dict | None = field(default_factory=dict, repr=False)
    _containers: set | None = field(default_factory=set, repr=False)
    # Packed form: (paths, their locations, their keys' locations); see pack and _pack_loc.
    _packed: tuple | None = field(default=None, repr=False)

    @property
    def values(self) -> dict[Path_, tuple[int, int]]:
        """Path -> (line, column) of every value; a mapping or list is located where it starts."""
        if self._packed is None:
            return self._values
        paths, locs, _ = self._packed
        return {p: _unpack_loc(v) for p, v in zip(paths, locs)}

    @property
    def keys(self) -> dict[Path_, tuple[int, int]]:
        """Path -> (line, column) of the key that holds each mapping entry."""
        if self._packed is None:
            return self._keys
        paths, _, key_locs = self._packed
        return {p: _unpack_loc(k) for p, k in zip(paths, key_locs) if k}

    @property
    def containers(self) -> set:
        """The paths of mappings and lists."""
        if self._packed is None:
            return self._containers
        paths, locs, _ = self._packed
        return {p for p, v in zip(paths, locs) if v & 1}

    def pack(self, paths: list, locs: list, key_locs: list) -> None:
        """Take the location tables in packed form: every value's path once, in file order, with its location
        and its key's location (0 for a list item or the top), each from _pack_loc. A key always comes just
        before its value, so the key table's order is the value table's."""
        self._packed = (tuple(paths), array("Q", locs), array("Q", key_locs))
        self._values = self._keys = self._containers = None

    @property
    def scalars(self) -> list[tuple[Path_, Any]]:
        """Every scalar value (not key) with its path, in file order."""
        items = iter(self.scalar_items)
        return list(zip(items, items))

    def _lookup(self, path: Path_) -> tuple[tuple[int, int] | None, tuple[int, int] | None, bool]:
        """(value location, key location, whether a mapping or list) of `path`, None where there is none."""
        if self._packed is None:
            return self._values.get(path), self._keys.get(path), path in self._containers
        global _LAST_INDEX
        last = _LAST_INDEX
        paths = self._packed[0]
        mine = last is not None and last[0]() is self
        if mine and last[1] is not None:
            i = last[1].get(path)
        elif not mine:
            # A file's first lookup: most files are asked about once or twice, and a scan in C finds a path
            # faster than indexing them all. A second lookup, or a miss, indexes the file.
            try:
                i = paths.index(path)
            except ValueError:
                i = None
            _LAST_INDEX = (ref(self), None if i is not None else dict(zip(paths, range(len(paths)))))
        else:
            index = dict(zip(paths, range(len(paths))))
            _LAST_INDEX = (ref(self), index)
            i = index.get(path)
        if i is None:
            return None, None, False
        loc, key_loc = self._packed[1][i], self._packed[2][i]
        return _unpack_loc(loc), _unpack_loc(key_loc) if key_loc else None, bool(loc & 1)

    def where(self, path: Path_) -> tuple[int, int]:
        """The location of the value at `path`, or of its nearest located ancestor.

        A mapping or list is located at its key, where a reader looks for it, not at its first child.
        """
        path = tuple(path)
        while path:
            value_loc, key_loc, is_container = self._lookup(path)
            if is_container and key_loc is not None:
                return key_loc
            if value_loc is not None:
                return value_loc
            path = path[:-1]
        return self._lookup(())[0] or (1, 1)

    def where_key(self, path: Path_) -> tuple[int, int]:
        path = tuple(path)
        return self._lookup(path)[1] or self.where(path)


# The last packed file looked up (a weak reference: it does not keep the file alive), with its path index
# once it has one: (ref to doc, path -> position, or None).
_LAST_INDEX: tuple | None = None


def _pack_loc(line: int, column: int, container: bool = False) -> int:
    """One integer for a 1-based (line, column) and whether a mapping or list starts there."""
    return (line << 32) | (column << 1) | container


def _unpack_loc(packed: int) -> tuple[int, int]:
    return packed >> 32, (packed >> 1) & 0x7FFFFFFF


_SAFE_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
}
_STR = "tag:yaml.org,2002:str"
_COLLECTION_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}
_MERGE = "tag:yaml.org,2002:merge"
_resolver = yaml.resolver.Resolver()
_constructor = yaml.constructor.SafeConstructor()
_TRUE_FALSE = {"true", "false"}
# Every alternative is anchored and unambiguous, so matching stays linear on hostile input. (An earlier
# `\d[\d_]*_[\d_]*$` backtracked quadratically on `1_1_1_..._1.5`.)
_AMBIGUOUS_INT = re.compile(r"^[-+]?(0[0-7_]+|0x[0-9a-fA-F_]+|0b[01_]+|[0-9][0-9_]*(:[0-5]?[0-9])+)$")
_UNDERSCORED_INT = re.compile(r"^[-+]?[0-9][0-9_]*$")
# Characters refused before parsing: C0/C1 controls and non-characters (YAML forbids them), and the line
# breaks that YAML 1.1 counts but GitHub and git do not (NEL, LS, PS, a CR without LF). Those would make
# reported line numbers wrong, and would let a pull request hide a key on what a reviewer sees as one line.
# Also a byte-order mark anywhere but the very start: libyaml reads one differently from str and from bytes.
_REFUSED_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|\r(?!\n)")
_CANNOT_START_REFUSED = bytes(b for b in range(256) if b in (0x09, 0x0A) or 0x20 <= b <= 0x7E or (b >= 0x80 and b not in (0xC2, 0xE2, 0xEF)))


class _Abort(Exception):
    def __init__(self, problem: Problem):
        self.problem = problem


def _at(mark) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def is_yaml11_trap(text: str, value: Any) -> bool:
    """True for plain scalars that YAML 1.1 silently converts: yes/no/on/off/y/n, 012, 0x1F, 1:30."""
    if isinstance(value, bool):
        return text.lower() not in _TRUE_FALSE
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return bool(_AMBIGUOUS_INT.match(text)) or ("_" in text and bool(_UNDERSCORED_INT.match(text))) or ":" in text
    return False


def _byte_location(raw: bytes, offset: int) -> tuple[int, int]:
    """Line and column (in characters, as editors count them) of a byte offset into possibly broken UTF-8."""
    start = raw.rfind(b"\n", 0, offset) + 1
    return raw.count(b"\n", 0, offset) + 1, len(raw[start:offset].decode("utf-8", "replace")) + 1


def _text_location(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


_UTF16_32_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def _decode(raw: bytes) -> tuple[str | None, Problem | None]:
    if raw.startswith(_UTF16_32_BOMS):
        return None, Problem("CLR006", 1, 1, "the file is UTF-16 or UTF-32 text; registry files are UTF-8",
                             "save the file as UTF-8")
    if raw.startswith(b"\xef\xbb\xbf"):  # A UTF-8 byte-order mark is accepted and ignored (documented in SECURITY.md).
        raw = raw[3:]
    if b"\x00" in raw:
        line, col = _byte_location(raw, raw.index(b"\x00"))
        return None, Problem("CLR006", line, col, "the file holds binary data (a NUL byte); registry files are UTF-8 text")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _byte_location(raw, exc.start)
        return None, Problem(
            "CLR006", line, col, f"the file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})", "save the file as UTF-8"
        )
    # Most files hold no byte that could start a refused character: deleting every byte that cannot
    # (printable ASCII, tab, LF, and UTF-8 bytes other than the lead bytes of U+0080-U+009F, U+2028/9 and
    # U+FEFF/FFFE/FFFF) leaves nothing, at C speed. Anything left, including any CR, goes to the regex.
    bad = _REFUSED_CHAR.search(text) if raw.translate(None, _CANNOT_START_REFUSED) else None
    if bad:
        line, col = _text_location(text, bad.start())
        return None, _refused_char_problem(bad.group(), line, col)
    return text, None


def _refused_char_problem(char: str, line: int, col: int) -> Problem:
    if char == "\r":
        return Problem("CLR006", line, col, "a carriage return (CR) without a line feed; YAML reads it as a line break, git and GitHub do not",
                       "save the file with LF (or CRLF) line endings")
    code = f"U+{ord(char):04X}"
    if char == "\ufeff":
        return Problem("CLR006", line, col, "a byte-order mark (U+FEFF) after the start of the file",
                       "remove it; only one, as the very first character, is allowed")
    if char in "\x85\u2028\u2029":
        return Problem("CLR006", line, col, f"the line separator {code}, which YAML reads as a line break but git and GitHub do not",
                       "replace it with a newline or a space")
    what = "non-character" if char in "\ufffe\uffff" else "control character"
    return Problem("CLR006", line, col, f"the {what} {code}; registry files are plain text",
                   'remove it, or write it as an escape inside a double-quoted string, e.g. "\\t"')


READERS = ("fast", "reference")
# Registry files are a few kilobytes. A far larger one is odd or hostile, and would likely be read twice
# (the fast reader gives up, the reference reader starts again), so it goes straight to the reference reader.
_FAST_MAX_CHARS = 256 * 1024


def parse_yaml(raw: bytes, limits: Limits = DEFAULT_LIMITS, reader: str = "fast") -> YamlDoc:
    """Parse bytes into a YamlDoc. Never raises for bad input: problems are returned in `doc.problems`.

    `reader="fast"` (the default) reads ordinary files with `_read_fast` and hands anything unusual to the
    reference reader (`_Builder`), so both give the same result; `reader="reference"` always uses the latter.
    """
    if reader not in READERS:
        raise ValueError(f"reader must be one of {READERS}, not {reader!r}")
    doc = YamlDoc()
    if len(raw) > limits.max_bytes:
        doc.problems.append(
            Problem("CLR007", 1, 1, f"the file is {len(raw):,} bytes, over the limit of {limits.max_bytes:,} bytes")
        )
        return doc
    text, problem = _decode(raw)
    if problem:
        doc.problems.append(problem)
        return doc
    assert text is not None
    end = text.find("\n")
    first_line = (text if end < 0 else text[:end]).rstrip("\r")
    if reader == "fast" and len(text) <= _FAST_MAX_CHARS:
        fast = _read_fast(text, limits)
        if fast is not None:
            fast.first_line = first_line
            return fast
    doc.first_line = first_line
    try:
        _Builder(doc, limits).run(text)
    except _Abort as abort:
        doc.data = None
        doc.problems.append(abort.problem)
    except yaml.MarkedYAMLError as exc:
        doc.data = None
        doc.problems.append(_syntax_problem(exc, text))
    except yaml.reader.ReaderError as exc:  # pragma: no cover - the characters it refuses are refused in _decode first
        doc.data = None
        # The C reader reports a byte offset into the UTF-8 text.
        line, col = _byte_location(text.encode("utf-8"), exc.position)
        doc.problems.append(Problem("CLR006", line, col, f"YAML refuses the character U+{exc.character:04X}" if isinstance(exc.character, int)
                                    else "YAML refuses a character in the file"))
    except yaml.YAMLError as exc:  # pragma: no cover - unmarked errors are rare
        doc.data = None
        doc.problems.append(Problem("CLR001", 1, 1, "YAML error: " + " ".join(str(exc).split())[:200]))
    except RecursionError:
        doc.data = None
        doc.problems.append(Problem("CLR007", 1, 1, "the file nests too deeply to read"))
    return doc


def _syntax_problem(exc: yaml.MarkedYAMLError, text: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line, col = _at(mark)
    message = (exc.problem or exc.context or "invalid YAML").strip()
    hint = None
    bad_line = text.split("\n")[line - 1] if 0 < line <= text.count("\n") + 1 else ""
    if "nesting depth" in message:
        return Problem("CLR007", line, col, "nesting deeper than the parser allows")
    if "\t" in message or "\t" in bad_line[: max(col, 1)]:
        message = "a tab character where YAML expects spaces"
        hint = "indent with spaces; YAML does not allow tabs for indentation"
    elif exc.context:
        message = f"{exc.context.strip()}: {message}" if exc.problem else message
    if "mapping values are not allowed" in message:
        hint = "a value holding ': ' must be quoted, e.g. `name: \"Note: draft\"` (or use `>-` for long text)"
    return Problem("CLR001", line, col, f"YAML syntax error: {message}", hint)


_IMPLICIT_FIRST_CHARS = frozenset(k for k in _resolver.yaml_implicit_resolvers if k is not None)


class _Builder:
    """Build values from parser events (not from a composed node tree), so depth and alias limits apply as
    the file is read: the C composer recurses natively and would crash on hostile nesting."""

    def __init__(self, doc: YamlDoc, limits: Limits):
        self.doc = doc
        self.limits = limits
        self.anchors: dict[str, tuple[Any, tuple[int, int]]] = {}
        self.aliases = 0
        self.nodes = 0

    def run(self, text: str) -> None:
        loader = _Loader(text)
        try:
            self._consume(loader.get_event)
        finally:
            loader.dispose()

    def _consume(self, next_event) -> None:
        documents = 0
        # Stack entries: [container, path, pending_key, key_loc, anchor]
        stack: list[list] = []
        limits, doc = self.limits, self.doc
        while True:
            event = next_event()  # pulled straight from the C parser: far cheaper than the `yaml.parse` generator
            if event is None:
                break
            cls = type(event)
            if cls is ScalarEvent:  # the common case first
                self.nodes += 1
                if self.nodes > limits.max_nodes:
                    raise _Abort(Problem("CLR007", *_at(event.start_mark), f"the file has more than {limits.max_nodes:,} values"))
                value, plain_text = self._scalar(event)
                if event.anchor:
                    self.anchors[event.anchor] = (value, _at(event.start_mark))
                self._emit(stack, value, _at(event.start_mark), event, plain_text)
                continue
            if cls is MappingStartEvent or cls is SequenceStartEvent:
                self.nodes += 1
                is_map = cls is MappingStartEvent
                self._check_tag(event, "tag:yaml.org,2002:map" if is_map else "tag:yaml.org,2002:seq")
                if len(stack) >= limits.max_depth:
                    raise _Abort(Problem("CLR007", *_at(event.start_mark), f"nesting deeper than {limits.max_depth} levels"))
                path = self._child_path(stack)
                if path is None:
                    raise _Abort(Problem("CLR001", *_at(event.start_mark), "a mapping or list used as a key; keys must be plain strings"))
                doc.values[path] = _at(event.start_mark)
                doc.containers.add(path)
                stack.append([{} if is_map else [], path, _NO_KEY, None, event.anchor])
                continue
            if cls is MappingEndEvent or cls is SequenceEndEvent:
                container, path, _, _, anchor = stack.pop()
                if anchor:
                    self.anchors[anchor] = (container, doc.values[path])
                self._emit(stack, container, doc.values[path], event)
                continue
            if cls is AliasEvent:
                self.nodes += 1
                self.aliases += 1
                line, col = _at(event.start_mark)
                if self.aliases > limits.max_aliases:
                    raise _Abort(Problem("CLR007", line, col, f"more than {limits.max_aliases} aliases (*name); registry files need none"))
                if event.anchor not in self.anchors:
                    raise _Abort(Problem("CLR001", line, col, f"alias *{event.anchor} refers to an unknown or unfinished anchor"))
                value, _ = self.anchors[event.anchor]
                self._charge(value, line, col)
                self._emit(stack, _copy(value), (line, col), event)
                continue
            if cls is DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise _Abort(Problem("CLR001", *_at(event.start_mark), "a registry file holds a single YAML document; found a second '---'"))
            # StreamStart, StreamEnd and DocumentEnd carry nothing
        if documents == 0 or doc.data is _NO_KEY:
            doc.data = None

    def _charge(self, value: Any, line: int, col: int) -> None:
        """Count what an alias would expand to, so a billion-laughs file stops at the node budget."""
        size = _size(value, self.limits.max_nodes - self.nodes + 1)
        self.nodes += size
        if self.nodes > self.limits.max_nodes:
            raise _Abort(Problem("CLR007", line, col, "alias expansion is too large (an alias bomb?)"))

    def _check_tag(self, event, default: str) -> None:
        tag = event.tag
        if tag is None or tag == "!" or tag == default:
            return
        # A collection takes only its own tag; a scalar only a scalar tag (`!!str` on a mapping is not a string).
        if default != _STR or tag not in _SAFE_TAGS or tag in _COLLECTION_TAGS:
            line, col = _at(event.start_mark)
            raise _Abort(
                Problem("CLR004", line, col, f"tag {tag!r} is not allowed; only plain YAML values are", "remove the tag")
            )

    def _scalar(self, event: ScalarEvent) -> tuple[Any, str | None]:
        self._check_tag(event, _STR)
        value = event.value
        if event.tag is not None and event.tag != "!":
            tag = event.tag
        elif event.implicit[0]:  # plain (unquoted) scalar: YAML 1.1 resolves its type from its text
            if value and value[0] not in _IMPLICIT_FIRST_CHARS:
                return value, None  # no implicit type starts with this character: a string
            tag = _resolver.resolve(yaml.ScalarNode, value, event.implicit)
        else:
            return value, None
        if tag == _STR:
            return value, None
        if len(value) > self.limits.max_number_chars:
            line, col = _at(event.start_mark)
            raise _Abort(Problem("CLR007", line, col, f"a {len(value):,}-character value that YAML reads as a number or date "
                                 f"(the limit is {self.limits.max_number_chars:,})", "quote it if it is text"))
        if tag == _MERGE:
            line, col = _at(event.start_mark)
            raise _Abort(
                Problem("CLR008", line, col, "merge keys ('<<') are not allowed", "write the keys out in full")
            )
        try:
            constructed = _constructor.construct_object(yaml.ScalarNode(tag, value, event.start_mark, event.end_mark))
        except (yaml.constructor.ConstructorError, ValueError, OverflowError) as exc:
            line, col = _at(event.start_mark)
            shown = value if len(value) <= 40 else value[:40] + "..."
            raise _Abort(Problem("CLR001", line, col, f"cannot read value {shown!r}: {' '.join(str(exc).split())[:200]}",
                                 "quote it if it is text"))
        return constructed, value

    def _child_path(self, stack: list[list]) -> Path_ | None:
        if not stack:
            return ()
        container, path, pending, _, _ = stack[-1]
        if isinstance(container, list):
            return path + (len(container),)
        if pending is _NO_KEY:
            return None  # a collection in key position
        return path + (pending,)

    def _emit(self, stack: list[list], value: Any, loc: tuple[int, int], event, plain_text: str | None = None) -> None:
        if not stack:
            self.doc.data = value
            self.doc.values[()] = loc
            return
        frame = stack[-1]
        container, path, pending, key_loc, _ = frame
        if isinstance(container, list):
            child = path + (len(container),)
            container.append(value)
        elif pending is _NO_KEY:
            if isinstance(value, (dict, list)):
                raise _Abort(Problem("CLR001", *loc, "a mapping or list used as a key; keys must be plain strings"))
            try:
                hash(value)
            except TypeError:  # pragma: no cover
                raise _Abort(Problem("CLR001", *loc, "an unhashable key"))
            if value in container:
                first = self.doc.keys.get(path + (value,), (0, 0))
                raise _Abort(
                    Problem(
                        "CLR003",
                        *loc,
                        f"duplicate key {value!r} (first defined at line {first[0]})",
                        "remove one of the two; YAML would silently keep only the last",
                    )
                )
            frame[2] = value
            frame[3] = loc
            self.doc.keys[path + (value,)] = loc
            if plain_text is not None:
                self.doc.plain[path + (value, "[key]")] = plain_text
            return
        else:
            child = path + (pending,)
            container[pending] = value
            frame[2] = _NO_KEY
        self.doc.values[child] = loc
        if type(value) is not dict and type(value) is not list:
            self.doc.scalar_items += (child, value)
        if plain_text is not None:
            self.doc.plain[child] = plain_text


class _Unusual(Exception):
    """Raised inside `_read_fast` at anything it leaves to the reference reader."""


# Plain scalars that resolve to a non-string, with what they construct to. Every constructed scalar type
# (int, float, bool, None, date, datetime) is immutable, so one object can be shared between files.
_PLAIN_CACHE: dict[str, tuple[str, Any]] = {}
_PLAIN_CACHE_MAX = 4096
_SCALAR_CONSTRUCTORS = {tag: _constructor.yaml_constructors[tag] for tag in _SAFE_TAGS - _COLLECTION_TAGS - {_STR}}


def _resolve_plain(value: str, implicit: tuple[bool, bool], mark) -> tuple[str, Any]:
    """The tag YAML 1.1 gives a plain scalar, and its value; raises _Unusual where the reference reader
    reports a problem (over-long numbers, merge keys, values that fail to construct)."""
    cached = _PLAIN_CACHE.get(value)
    if cached is not None:
        return cached
    if len(value) > DEFAULT_LIMITS.max_number_chars and value[0] in "0123456789+-.":
        # Matching a long would-be number costs time; the reference reader would match it again to refuse it.
        raise _Unusual
    tag = _resolver.resolve(yaml.ScalarNode, value, implicit)
    if tag == _STR:
        result: tuple[str, Any] = (_STR, value)
    else:
        construct = _SCALAR_CONSTRUCTORS.get(tag)
        if construct is None or len(value) > DEFAULT_LIMITS.max_number_chars:
            raise _Unusual
        try:
            result = (tag, construct(_constructor, yaml.ScalarNode(tag, value, mark, mark)))
        except Exception:
            raise _Unusual from None
    if len(value) <= 64:
        if len(_PLAIN_CACHE) >= _PLAIN_CACHE_MAX:
            _PLAIN_CACHE.clear()
        _PLAIN_CACHE[value] = result
    return result


# Paths repeat from one record to the next (("mappings", 0, "tasks")). Tuples are immutable, so equal ones
# are shared: on a large tree this saves a third of the parse's memory.
_SHARED_PATHS: dict[tuple, tuple] = {}
_SHARED_MAX = 200_000


def _read_fast(text: str, limits: Limits) -> YamlDoc | None:
    """Read an ordinary registry file in one tight loop over libyaml's events, or return None.

    The reference reader (`_Builder`) handles every event kind and reports each problem. This loop handles
    only what ordinary files hold, with the per-event work inlined, and gives up (returns None) at anything
    else: a tag, an anchor or alias, a duplicate or non-scalar key, a top-level scalar, a second document,
    a limit, a syntax error. The caller then reads the file again with the reference reader, so a file's
    result never depends on which reader produced it. tests/test_yamlsrc.py checks that the two agree.
    """
    if limits.max_number_chars != DEFAULT_LIMITS.max_number_chars:
        return None  # _PLAIN_CACHE holds results checked against the default only
    doc = YamlDoc()
    plain = doc.plain
    scalar_items = doc.scalar_items
    # The location tables, packed (see YamlDoc): paths and locations in file order.
    paths: list = []
    locs: list = []
    key_locs: list = []
    add_path, add_loc, add_key_loc = paths.append, locs.append, key_locs.append
    key_loc = 0
    first_chars = _IMPLICIT_FIRST_CHARS
    max_depth, max_nodes = limits.max_depth, limits.max_nodes
    scalar_event, mapping_start, sequence_start = ScalarEvent, MappingStartEvent, SequenceStartEvent
    mapping_end, sequence_end, document_start = MappingEndEvent, SequenceEndEvent, DocumentStartEvent
    no_key = _NO_KEY
    if len(_SHARED_PATHS) > _SHARED_MAX:
        _SHARED_PATHS.clear()
    shared_paths = _SHARED_PATHS
    # The open collection is held in locals; `stack` keeps the ones around it.
    stack: list[tuple] = []
    container: Any = None
    cpath: tuple = ()
    is_map = False
    key: Any = no_key
    kpath: tuple = ()
    # A path is shared only when all its parts are strings or list indices: (0,) == (False,) == (0.0,),
    # so a path holding another key type must never be swapped for an equal one from another file.
    cclean = kclean = True
    nodes = 0
    documents = 0
    root: Any = None
    loader = _Loader(text)
    get_event = loader.get_event
    try:
        while True:
            event = get_event()
            if event is None:
                break
            cls = event.__class__
            if cls is scalar_event:
                if container is None or event.anchor is not None or event.tag is not None:
                    raise _Unusual
                nodes += 1
                value = event.value
                mark = event.start_mark
                loc = ((mark.line + 1) << 32) | ((mark.column + 1) << 1)  # _pack_loc, inlined
                plain_text = None
                if event.implicit[0] and (not value or value[0] in first_chars):
                    tag, constructed = _resolve_plain(value, event.implicit, mark)
                    if tag != _STR:
                        plain_text, value = value, constructed
                if is_map:
                    if key is no_key:
                        if value in container:
                            raise _Unusual
                        if plain_text is None:  # a string key: every record repeats the same few, so share one copy
                            value = intern(value)
                        key = value
                        kpath = cpath + (value,)
                        kclean = cclean and plain_text is None
                        if kclean:
                            kpath = shared_paths.setdefault(kpath, kpath)
                        key_loc = loc
                        if plain_text is not None:
                            plain[kpath + ("[key]",)] = plain_text
                        continue
                    container[key] = value
                    child = kpath
                    key = no_key
                    add_key_loc(key_loc)
                else:
                    child = cpath + (len(container),)
                    if cclean:
                        child = shared_paths.setdefault(child, child)
                    container.append(value)
                    add_key_loc(0)
                add_path(child)
                add_loc(loc)
                scalar_items += (child, value)
                if plain_text is not None:
                    plain[child] = plain_text
                continue
            if cls is mapping_start or cls is sequence_start:
                if event.anchor is not None or event.tag is not None or len(stack) >= max_depth:
                    raise _Unusual
                nodes += 1
                new: Any = {} if cls is mapping_start else []
                if container is None:
                    if root is not None:
                        raise _Unusual
                    path: tuple = ()
                    root = new
                    clean = True
                    add_key_loc(0)
                elif is_map:
                    if key is no_key:
                        raise _Unusual
                    path = kpath
                    clean = kclean
                    container[key] = new
                    key = no_key
                    add_key_loc(key_loc)
                else:
                    path = cpath + (len(container),)
                    clean = cclean
                    container.append(new)
                    add_key_loc(0)
                mark = event.start_mark
                add_path(path)
                add_loc(((mark.line + 1) << 32) | ((mark.column + 1) << 1) | 1)  # _pack_loc(..., container=True)
                stack.append((container, cpath, is_map, cclean))
                container, cpath, is_map, key, cclean = new, path, cls is mapping_start, no_key, clean
                continue
            if cls is mapping_end or cls is sequence_end:
                container, cpath, is_map, cclean = stack.pop()
                key = no_key
                continue
            if cls is document_start:
                documents += 1
                if documents > 1:
                    raise _Unusual
                continue
            if cls is AliasEvent:
                raise _Unusual
            # StreamStart, StreamEnd and DocumentEnd carry nothing
        if nodes > max_nodes:
            raise _Unusual
    except Exception:  # _Unusual, a YAML error, or anything else: the reference reader decides what it is
        return None
    finally:
        loader.dispose()
    doc.data = root
    doc.pack(paths, locs, key_locs)
    return doc


class _NoKey:
    def __repr__(self) -> str:  # pragma: no cover
        return "<no key>"


_NO_KEY = _NoKey()


def _size(value: Any, budget: int) -> int:
    stack = [value]
    n = 0
    while stack and n <= budget:
        item = stack.pop()
        n += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return n


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def read_yaml_file(path: Path, limits: Limits = DEFAULT_LIMITS, reader: str = "fast") -> YamlDoc:
    from clinreg.treewalk import read_limited

    raw, problem = read_limited(path, limits.max_bytes)
    if raw is None:
        doc = YamlDoc()
        doc.problems.append(Problem(problem[0], 1, 1, problem[1]))
        return doc
    return parse_yaml(raw, limits, reader)
