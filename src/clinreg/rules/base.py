"""The rule registry: each rule has a stable code, a name, a default severity, a title and an explanation."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from clinreg.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:  # pragma: no cover
    from clinreg.rules.context import Context

Check = Callable[["Context"], Iterable[Diagnostic]]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    title: str
    explanation: str
    family: str
    check: Check | None = None  # None for codes raised while reading files (parse and schema)


RULES: dict[str, Rule] = {}


def _register(code: str, name: str, severity: Severity, title: str, doc: str | None, family: str, check: Check | None) -> Rule:
    if code in RULES:
        raise RuntimeError(f"rule code {code} registered twice")
    explanation = inspect.cleandoc(doc or "")
    if "Bad:" not in explanation or "Good:" not in explanation:
        raise RuntimeError(f"rule {code} needs an explanation with a Bad: and a Good: example")
    rule = Rule(code, name, severity, title, explanation, family, check)
    RULES[code] = rule
    return rule


def rule(code: str, name: str, severity: Severity, title: str) -> Callable[[Check], Check]:
    """Register a check function; its docstring is the rule's explanation (rationale, a bad and a good example)."""

    def wrap(fn: Check) -> Check:
        family = fn.__module__.rsplit(".", 1)[-1]
        _register(code, name, severity, title, fn.__doc__, family, fn)
        return fn

    return wrap


def declare(code: str, name: str, severity: Severity, title: str, family: str, doc: str) -> None:
    """Register a code that is raised while reading files rather than by a check function."""
    _register(code, name, severity, title, doc, family, None)


_MAX_MESSAGE = 500


def printable(text: str, limit: int = _MAX_MESSAGE) -> str:
    """`text` with control, format (bidi, zero-width) and line-separator characters escaped, clipped to `limit`.

    Messages quote registry values, and registry values are untrusted: a raw newline or ESC in a message would
    let a pull request forge `::error` workflow commands or terminal escapes in CI logs.
    """
    if not text.isprintable():
        text = "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii") for c in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def make(code: str, file: str, line: int, column: int, message: str, hint: str | None = None,
         severity: Severity | None = None) -> Diagnostic:
    if code not in RULES:
        import clinreg.rules.engine  # noqa: F401  (registers every rule)
    sev = severity or RULES[code].severity
    return Diagnostic(code, sev, printable(file, 1000), max(int(line), 1), max(int(column), 1), printable(message),
                      printable(hint) if hint is not None else None)
