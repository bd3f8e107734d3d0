"""The fast reader: one tight loop over libyaml's events for ordinary files, giving up at anything unusual."""

from __future__ import annotations

from sys import intern
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

from clinreg.core.yamlsrc.comments import CommentScan, cut_comments
from clinreg.core.yamlsrc.doc import DEFAULT_LIMITS, Limits, YamlDoc
from clinreg.core.yamlsrc.tags import (
    COLLECTION_TAGS, IMPLICIT_FIRST_CHARS, NO_KEY, SAFE_TAGS, STR, Loader, constructor, resolver,
)


class _Unusual(Exception):
    """Raised inside `read_fast` at anything it leaves to the reference reader."""


# Plain scalars that resolve to a non-string, with what they construct to. Every constructed scalar type
# (int, float, bool, None, date, datetime) is immutable, so one object can be shared between files.
_PLAIN_CACHE: dict[str, tuple[str, Any]] = {}
_PLAIN_CACHE_MAX = 4096
_SCALAR_CONSTRUCTORS = {tag: constructor.yaml_constructors[tag] for tag in SAFE_TAGS - COLLECTION_TAGS - {STR}}


def _resolve_plain(value: str, implicit: tuple[bool, bool], mark) -> tuple[str, Any]:
    """The tag YAML 1.1 gives a plain scalar, and its value; raises _Unusual where the reference reader
    reports a problem (over-long numbers, merge keys, values that fail to construct)."""
    cached = _PLAIN_CACHE.get(value)
    if cached is not None:
        return cached
    if len(value) > DEFAULT_LIMITS.max_number_chars and value[0] in "0123456789+-.":
        # Matching a long would-be number costs time; the reference reader would match it again to refuse it.
        raise _Unusual
    tag = resolver.resolve(yaml.ScalarNode, value, implicit)
    if tag == STR:
        result: tuple[str, Any] = (STR, value)
    else:
        construct = _SCALAR_CONSTRUCTORS.get(tag)
        if construct is None or len(value) > DEFAULT_LIMITS.max_number_chars:
            raise _Unusual
        try:
            result = (tag, construct(constructor, yaml.ScalarNode(tag, value, mark, mark)))
        except Exception:  # noqa: BLE001 - any constructor failure sends the file to the reference reader
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


def read_fast(text: str, limits: Limits) -> YamlDoc | None:
    """Read an ordinary registry file in one tight loop over libyaml's events, or return None.

    The reference reader (`Builder`) handles every event kind and reports each problem. This loop handles
    only what ordinary files hold, with the per-event work inlined, and gives up (returns None) at anything
    else: a tag, an anchor or alias, a duplicate or non-scalar key, a top-level scalar, a second document,
    a limit, a syntax error. The caller then reads the file again with the reference reader, so a file's
    result never depends on which reader produced it. tests/core/test_yamlsrc.py checks that the two agree.

    It also fills `doc.cut_comments` as `comments.cut_comments(text)` would, from the same events: only a
    file in which a comment follows content on some line pays for it (tests/core/test_yaml_comments.py).
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
    first_chars = IMPLICIT_FIRST_CHARS
    max_depth, max_nodes = limits.max_depth, limits.max_nodes
    scalar_event, mapping_start, sequence_start = ScalarEvent, MappingStartEvent, SequenceStartEvent
    mapping_end, sequence_end, document_start = MappingEndEvent, SequenceEndEvent, DocumentStartEvent
    no_key = NO_KEY
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
    scan = CommentScan.of(text)
    hash_lines = scan.hash_lines if scan is not None else ()
    cuts: list | None = []
    loader = Loader(text)
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
                    if tag != STR:
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
                if hash_lines and not event.style and event.end_mark.line in hash_lines:
                    if not (kclean if is_map else cclean):
                        cuts = None  # a key YAML reads as a non-string: cut_comments names it as written
                        hash_lines = ()
                        continue
                    cut = scan.check(event.value, event.end_mark, child, is_map)
                    if cut is not None:
                        cuts.append(cut)
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
    except Exception:  # noqa: BLE001 - _Unusual, a YAML error or anything else: the reference reader decides
        return None
    finally:
        loader.dispose()
    doc.data = root
    doc.cut_comments = cuts if cuts is not None else cut_comments(text)
    doc.pack(paths, locs, key_locs)
    return doc
