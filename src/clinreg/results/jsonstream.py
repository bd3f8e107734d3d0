"""One large JSON document read a member at a time: a run's `scenario_state.json` (HELM) or an Inspect `.json` log
holds one long array (`request_states`, `samples`) beside a few small members. Reading it whole takes ten times
the file's size in memory; read here, memory is the largest single element (bounded by `record_limit`), however
long the array.

The standard library's own decoder parses each element (`JSONDecoder.raw_decode` at an offset of a buffer that
grows only while one element is incomplete), so every value reads exactly as `json.loads` reads it, with the strict
readers' rules (no duplicate keys; NaN and the infinities refused, or read as null). No dependency: an incremental
parser such as ijson would tokenise the whole document in Python or C and hand back numbers as Decimal, where only
the element boundaries are needed here.
"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path
from typing import Any, Iterator

from clinreg.results.strictinput import JSON_CONSTANT, Unreadable, _ConstantRefused, _no_constant, _no_duplicates

CHUNK = 1024 * 1024
NOT_AN_OBJECT = "not_an_object"  # Unreadable.kind when the document is not a JSON object at all
_SPACE = re.compile(r"[ \t\n\r]*")


class _Buffer:
    def __init__(self, handle: Any, limit: int, record_limit: int) -> None:
        self.handle, self.limit, self.record_limit = handle, limit, record_limit
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text, self.pos, self.read, self.eof, self.lines = "", 0, 0, False, 0
        self.first = True

    def fill(self, at_least: int = CHUNK) -> bool:
        """Read more (at least `at_least` bytes, so that an element long in coming is parsed O(n) times in all);
        False at the end of the file."""
        if self.eof:
            return False
        data = self.handle.read(max(CHUNK, at_least))
        self.read += len(data)
        if self.read > self.limit:
            raise Unreadable(f"larger than {self.limit // (1024 * 1024)} MiB; refusing to read it")
        try:
            more = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise Unreadable("not UTF-8", self.line()) from None
        if self.first and more:
            more, self.first = more.removeprefix("\ufeff"), False
        self.lines += self.text.count("\n", 0, self.pos)
        self.text, self.pos = self.text[self.pos:] + more, 0
        self.eof = not data
        return True

    def line(self) -> int:
        return self.place(self.pos)[0]

    def place(self, pos: int) -> tuple[int, int]:
        """(line, column) of an offset of the buffer, in the whole file."""
        return self.lines + self.text.count("\n", 0, pos) + 1, pos - self.text.rfind("\n", 0, pos)

    def skip(self) -> str:
        """Skip whitespace; the next character, or '' at the end."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.fill():
                return ""

    def expect(self, chars: str, what: str) -> str:
        c = self.skip()
        if not c or c not in chars:
            raise Unreadable(f"not valid JSON: expected {what}", *self.place(self.pos))
        self.pos += 1
        return c

    def value(self, decoder: json.JSONDecoder) -> Any:
        """The JSON value at the current place, read whole (more is read while it is incomplete)."""
        self.skip()
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.pos)
            except RecursionError:
                raise Unreadable("nested too deep", self.line()) from None
            except _ConstantRefused as exc:
                raise Unreadable(f"not valid JSON: {exc}", self.line(), kind=JSON_CONSTANT) from None
            except json.JSONDecodeError as exc:
                if self._more():
                    continue
                raise Unreadable(f"not valid JSON: {exc.msg}", *self.place(exc.pos)) from None
            except ValueError as exc:  # a duplicate key
                raise Unreadable(f"not valid JSON: {exc}", self.line()) from None
            if end == len(self.text) and self._more():  # a number or a word may go on in the next chunk
                continue
            if end - self.pos > self.record_limit:
                raise Unreadable(f"one element is over {self.record_limit:,} characters; refusing to read it",
                                 *self.place(self.pos))
            self.pos = end
            return value

    def _more(self) -> bool:
        pending = len(self.text) - self.pos
        if pending > self.record_limit:
            raise Unreadable(f"one element is over {self.record_limit:,} characters; refusing to read it",
                             self.line())
        return self.fill(pending)


def stream_members(path: Path, array_key: str, limit: int, record_limit: int,
                   constants: bool = False) -> Iterator[tuple[str, Any, bool]]:
    """The top-level object of the JSON file at `path`, member by member: (key, value, False) for each, except the
    member `array_key` when it is an array, which gives (array_key, element, True) for each of its elements. Raises
    Unreadable (located by line) for a file that is not such an object, over `limit` bytes, or with one value over
    `record_limit` characters. With `constants`, NaN and the infinities read as null."""
    decoder = json.JSONDecoder(parse_constant=(lambda name: None) if constants else _no_constant,
                               object_pairs_hook=_no_duplicates)
    try:
        if not path.is_file():  # a FIFO would block, a device never end
            raise Unreadable("not a regular file" if path.exists() else "no such file")
        handle = path.open("rb")
    except OSError as exc:
        raise Unreadable(f"cannot read it: {exc.strerror or exc}") from None
    with handle:
        buf = _Buffer(handle, limit, record_limit)
        if buf.skip() != "{":
            raise Unreadable("not a JSON object", buf.line(), kind=NOT_AN_OBJECT)
        buf.pos += 1
        seen: set[str] = set()
        if buf.skip() == "}":
            buf.pos += 1
        else:
            while True:
                if buf.skip() != '"':
                    raise Unreadable("not valid JSON: expected a key", buf.line())
                key = buf.value(decoder)
                if key in seen:
                    raise Unreadable(f"not valid JSON: duplicate key {key!r}", buf.line())
                seen.add(key)
                buf.expect(":", "':'")
                if key == array_key and buf.skip() == "[":
                    buf.pos += 1
                    if buf.skip() == "]":
                        buf.pos += 1
                        yield key, [], False
                    else:
                        while True:
                            yield key, buf.value(decoder), True
                            if buf.expect(",]", "',' or ']'") == "]":
                                break
                else:
                    yield key, buf.value(decoder), False
                if buf.expect(",}", "',' or '}'") == "}":
                    break
        if buf.skip():
            raise Unreadable("not valid JSON: extra data after the object", buf.line())
