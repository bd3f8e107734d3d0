"""Parse one untrusted YAML file into plain values, keeping the file, line and column of every key and value.

`parse_yaml` decodes the bytes (`decode`), reads an ordinary file with the fast reader (`fast`) and anything
unusual with the reference reader (`reference`), which reports every problem; both fill a `YamlDoc` (`doc`)
and share the YAML 1.1 tag handling in `tags`. `comments` finds the comments that cut a plain value short."""

from __future__ import annotations

from pathlib import Path

import yaml

from clinreg.core.treewalk import read_limited
from clinreg.core.yamlsrc.comments import cut_comments
from clinreg.core.yamlsrc.decode import byte_location, decode_bytes
from clinreg.core.yamlsrc.doc import DEFAULT_LIMITS, Limits, Path_, Problem, YamlDoc  # noqa: F401
from clinreg.core.yamlsrc.fast import read_fast
from clinreg.core.yamlsrc.reference import Abort, Builder, syntax_problem
from clinreg.core.yamlsrc.tags import is_yaml11_trap  # noqa: F401


READERS = ("fast", "reference")
# Registry files are a few kilobytes. A far larger one is odd or hostile, and would likely be read twice
# (the fast reader gives up, the reference reader starts again), so it goes straight to the reference reader.
_FAST_MAX_CHARS = 256 * 1024


def parse_yaml(raw: bytes, limits: Limits = DEFAULT_LIMITS, reader: str = "fast") -> YamlDoc:
    """Parse bytes into a YamlDoc. Never raises for bad input: problems are returned in `doc.problems`.

    `reader="fast"` (the default) reads ordinary files with `read_fast` and hands anything unusual to the
    reference reader (`Builder`), so both give the same result; `reader="reference"` always uses the latter.
    """
    if reader not in READERS:
        raise ValueError(f"reader must be one of {READERS}, not {reader!r}")
    doc = YamlDoc()
    if len(raw) > limits.max_bytes:
        doc.problems.append(
            Problem("CLR007", 1, 1, f"the file is {len(raw):,} bytes, over the limit of {limits.max_bytes:,} bytes")
        )
        return doc
    text, problem = decode_bytes(raw)
    if problem:
        doc.problems.append(problem)
        return doc
    assert text is not None
    end = text.find("\n")
    first_line = (text if end < 0 else text[:end]).rstrip("\r")
    if reader == "fast" and len(text) <= _FAST_MAX_CHARS:
        fast = read_fast(text, limits)
        if fast is not None:
            fast.first_line = first_line  # read_fast found its cut comments on the way
            return fast
    doc.first_line = first_line
    try:
        Builder(doc, limits).run(text)
    except Abort as abort:
        doc.data = None
        doc.problems.append(abort.problem)
    except yaml.MarkedYAMLError as exc:
        doc.data = None
        doc.problems.append(syntax_problem(exc, text))
    except yaml.reader.ReaderError as exc:  # pragma: no cover - decode_bytes refuses these characters first
        doc.data = None
        # The C reader reports a byte offset into the UTF-8 text.
        line, col = byte_location(text.encode("utf-8"), exc.position)
        doc.problems.append(Problem("CLR006", line, col, f"YAML refuses the character U+{exc.character:04X}"
                                    if isinstance(exc.character, int)
                                    else "YAML refuses a character in the file"))
    except yaml.YAMLError as exc:  # pragma: no cover - unmarked errors are rare
        doc.data = None
        doc.problems.append(Problem("CLR001", 1, 1, "YAML error: " + " ".join(str(exc).split())[:200]))
    except RecursionError:
        doc.data = None
        doc.problems.append(Problem("CLR007", 1, 1, "the file nests too deeply to read"))
    if not doc.problems:
        doc.cut_comments = cut_comments(text)
    return doc


def read_yaml_file(path: Path, limits: Limits = DEFAULT_LIMITS, reader: str = "fast") -> YamlDoc:
    raw, problem = read_limited(path, limits.max_bytes)
    if raw is None:
        doc = YamlDoc()
        doc.problems.append(Problem(problem[0], 1, 1, problem[1]))
        return doc
    return parse_yaml(raw, limits, reader)
