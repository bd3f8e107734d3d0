"""The reference reader: every event kind, every problem reported at its line and column, limits applied as
the file is read."""

from __future__ import annotations

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

from clinreg.core.yamlsrc.doc import Limits, Path_, Problem, YamlDoc
from clinreg.core.yamlsrc.tags import (
    COLLECTION_TAGS, IMPLICIT_FIRST_CHARS, MERGE, NO_KEY, SAFE_TAGS, STR, Loader, mark_at, constructor, resolver,
)


class Abort(Exception):
    def __init__(self, problem: Problem):
        self.problem = problem


class Builder:
    """Build values from parser events (not from a composed node tree), so depth and alias limits apply as
    the file is read: the C composer recurses natively and would crash on hostile nesting."""

    def __init__(self, doc: YamlDoc, limits: Limits):
        self.doc = doc
        self.limits = limits
        self.anchors: dict[str, tuple[Any, tuple[int, int]]] = {}
        self.aliases = 0
        self.nodes = 0

    def run(self, text: str) -> None:
        loader = Loader(text)
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
                    raise Abort(Problem("CLR007", *mark_at(event.start_mark),
                                        f"the file has more than {limits.max_nodes:,} values"))
                value, plain_text = self._scalar(event)
                if event.anchor:
                    self.anchors[event.anchor] = (value, mark_at(event.start_mark))
                self._emit(stack, value, mark_at(event.start_mark), event, plain_text)
                continue
            if cls is MappingStartEvent or cls is SequenceStartEvent:
                self.nodes += 1
                is_map = cls is MappingStartEvent
                self._check_tag(event, "tag:yaml.org,2002:map" if is_map else "tag:yaml.org,2002:seq")
                if len(stack) >= limits.max_depth:
                    raise Abort(Problem("CLR007", *mark_at(event.start_mark),
                                        f"nesting deeper than {limits.max_depth} levels"))
                path = self._child_path(stack)
                if path is None:
                    raise Abort(Problem("CLR001", *mark_at(event.start_mark),
                                        "a mapping or list used as a key; keys must be plain strings"))
                doc.values[path] = mark_at(event.start_mark)
                doc.containers.add(path)
                stack.append([{} if is_map else [], path, NO_KEY, None, event.anchor])
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
                line, col = mark_at(event.start_mark)
                if self.aliases > limits.max_aliases:
                    raise Abort(Problem("CLR007", line, col,
                                        f"more than {limits.max_aliases} aliases (*name); registry files need none"))
                if event.anchor not in self.anchors:
                    raise Abort(Problem("CLR001", line, col,
                                        f"alias *{event.anchor} refers to an unknown or unfinished anchor"))
                value, _ = self.anchors[event.anchor]
                self._charge(value, line, col)
                self._emit(stack, _copy(value), (line, col), event)
                continue
            if cls is DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise Abort(Problem("CLR001", *mark_at(event.start_mark),
                                        "a registry file holds a single YAML document; found a second '---'"))
            # StreamStart, StreamEnd and DocumentEnd carry nothing
        if documents == 0 or doc.data is NO_KEY:
            doc.data = None

    def _charge(self, value: Any, line: int, col: int) -> None:
        """Count what an alias would expand to, so a billion-laughs file stops at the node budget."""
        size = _size(value, self.limits.max_nodes - self.nodes + 1)
        self.nodes += size
        if self.nodes > self.limits.max_nodes:
            raise Abort(Problem("CLR007", line, col, "alias expansion is too large (an alias bomb?)"))

    def _check_tag(self, event, default: str) -> None:
        tag = event.tag
        if tag is None or tag == "!" or tag == default:
            return
        # A collection takes only its own tag; a scalar only a scalar tag (`!!str` on a mapping is not a string).
        if default != STR or tag not in SAFE_TAGS or tag in COLLECTION_TAGS:
            line, col = mark_at(event.start_mark)
            raise Abort(
                Problem("CLR004", line, col, f"tag {tag!r} is not allowed; only plain YAML values are",
                        "remove the tag")
            )

    def _scalar(self, event: ScalarEvent) -> tuple[Any, str | None]:
        self._check_tag(event, STR)
        value = event.value
        if event.tag is not None and event.tag != "!":
            tag = event.tag
        elif event.implicit[0]:  # plain (unquoted) scalar: YAML 1.1 resolves its type from its text
            if value and value[0] not in IMPLICIT_FIRST_CHARS:
                return value, None  # no implicit type starts with this character: a string
            tag = resolver.resolve(yaml.ScalarNode, value, event.implicit)
        else:
            return value, None
        if tag == STR:
            return value, None
        if len(value) > self.limits.max_number_chars:
            line, col = mark_at(event.start_mark)
            raise Abort(Problem("CLR007", line, col,
                                f"a {len(value):,}-character value that YAML reads as a number or date "
                                 f"(the limit is {self.limits.max_number_chars:,})", "quote it if it is text"))
        if tag == MERGE:
            line, col = mark_at(event.start_mark)
            raise Abort(
                Problem("CLR008", line, col, "merge keys ('<<') are not allowed", "write the keys out in full")
            )
        try:
            constructed = constructor.construct_object(yaml.ScalarNode(tag, value, event.start_mark, event.end_mark))
        except (yaml.constructor.ConstructorError, ValueError, OverflowError) as exc:
            line, col = mark_at(event.start_mark)
            shown = value if len(value) <= 40 else value[:40] + "..."
            raise Abort(Problem("CLR001", line, col, f"cannot read value {shown!r}: {' '.join(str(exc).split())[:200]}",
                                 "quote it if it is text")) from None
        return constructed, value

    def _child_path(self, stack: list[list]) -> Path_ | None:
        if not stack:
            return ()
        container, path, pending, _, _ = stack[-1]
        if isinstance(container, list):
            return path + (len(container),)
        if pending is NO_KEY:
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
        elif pending is NO_KEY:
            if isinstance(value, (dict, list)):
                raise Abort(Problem("CLR001", *loc, "a mapping or list used as a key; keys must be plain strings"))
            try:
                hash(value)
            except TypeError:  # pragma: no cover
                raise Abort(Problem("CLR001", *loc, "an unhashable key")) from None
            if value in container:
                first = self.doc.keys.get(path + (value,), (0, 0))
                raise Abort(
                    Problem(
                        "CLR003",
                        *loc,
                        f"duplicate key {value!r} (first defined at line {first[0]})",
                        "remove one of the two; YAML would silently keep only the last",
                        key_path=path + (value,),
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
            frame[2] = NO_KEY
        self.doc.values[child] = loc
        if type(value) is not dict and type(value) is not list:
            self.doc.scalar_items += (child, value)
        if plain_text is not None:
            self.doc.plain[child] = plain_text


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


def syntax_problem(exc: yaml.MarkedYAMLError, text: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line, col = mark_at(mark)
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
