"""Parse one untrusted YAML file into plain values, keeping the file, line and column of every key and value."""

from __future__ import annotations

import re
import stat
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
    data: Any = None
    values: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    # Plain (unquoted) scalars that YAML turned into something other than a string, with their source text.
    plain: dict[Path_, str] = field(default_factory=dict)
    containers: set = field(default_factory=set)
    # Every scalar value (not key) with its path, in file order: rules scan this instead of walking the tree.
    scalars: list[tuple[Path_, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    first_line: str = ""

    def where(self, path: Path_) -> tuple[int, int]:
        """The location of the value at `path`, or of its nearest located ancestor.

        A mapping or list is located at its key, where a reader looks for it, not at its first child.
        """
        path = tuple(path)
        while path:
            if path in self.containers and path in self.keys:
                return self.keys[path]
            if path in self.values:
                return self.values[path]
            path = path[:-1]
        return self.values.get((), (1, 1))

    def where_key(self, path: Path_) -> tuple[int, int]:
        path = tuple(path)
        return self.keys.get(path) or self.where(path)


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
    bad = _REFUSED_CHAR.search(text)
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


def parse_yaml(raw: bytes, limits: Limits = DEFAULT_LIMITS) -> YamlDoc:
    """Parse bytes into a YamlDoc. Never raises for bad input: problems are returned in `doc.problems`."""
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
    doc.first_line = text.split("\n", 1)[0].rstrip("\r")
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
            self.doc.scalars.append((child, value))
        if plain_text is not None:
            self.doc.plain[child] = plain_text


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


def read_yaml_file(path: Path, limits: Limits = DEFAULT_LIMITS) -> YamlDoc:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
            doc = YamlDoc()
            doc.problems.append(Problem("CLR009", 1, 1, "not a regular file"))
            return doc
        size = info.st_size
        if size > limits.max_bytes:
            doc = YamlDoc()
            doc.problems.append(
                Problem("CLR007", 1, 1, f"the file is {size:,} bytes, over the limit of {limits.max_bytes:,} bytes")
            )
            return doc
        with path.open("rb") as handle:  # read at most one byte past the limit, whatever stat said
            raw = handle.read(limits.max_bytes + 1)
    except OSError as exc:
        doc = YamlDoc()
        doc.problems.append(Problem("CLR009", 1, 1, f"cannot read the file: {exc.strerror or exc}"))
        return doc
    return parse_yaml(raw, limits)
