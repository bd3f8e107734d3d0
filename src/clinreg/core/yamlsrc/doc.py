"""The parsed file (YamlDoc) with its location tables, the limits a file is read under, and a parse problem."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any
from weakref import ref


Path_ = tuple  # a path into the document: keys and list indices


@dataclass(frozen=True)
class Limits:
    """Resource limits for one registry file. Registry files are small; anything beyond these is hostile or a
    mistake."""

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
    key_path: tuple | None = None  # the keys and indices of the value it is about, when the reader knows them


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
    # Comments that probably cut a plain value short (`comments.CutComment`); the CLR010 rule reports them.
    cut_comments: list = field(default_factory=list)
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
