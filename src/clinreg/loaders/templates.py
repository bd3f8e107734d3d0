"""Input templates in an immutable jinja2 sandbox that sees only a row's columns, with output and time caps."""

from __future__ import annotations

import functools
from itertools import islice
import operator
import re
import time
from typing import Any, Callable

from jinja2 import StrictUndefined, TemplateError, meta, nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from clinreg.loaders.errors import RecordProblem, TemplateFailure

MAX_OUTPUT_CHARS = 1_000_000
MAX_RENDER_SECONDS = 2.0
# No legitimate template needs a number this large as a width, count or repeat; larger ones are how a
# template would ask for gigabytes (`'x' * 10**9`, `center(10**9)`, `'%0999999999d' % 1`).
MAX_INT_ARGUMENT = MAX_OUTPUT_CHARS
_WIDE_FORMAT = re.compile(r"\d{7,}")
ROW_VARIABLE = "row"
NONDETERMINISTIC = frozenset({"lipsum", "random"})


class RowSandbox(ImmutableSandboxedEnvironment):
    """A sandbox whose calls, filters, operators and output are checked against size and time caps."""

    intercepted_binops = frozenset({"*", "**", "%"})

    def __init__(self) -> None:
        super().__init__(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
        self.deadline = float("inf")
        # Inputs must be reproducible: no global or filter that draws random numbers (`lipsum`, `|random`).
        self.globals = {name: value for name, value in self.globals.items() if name not in NONDETERMINISTIC}
        self.filters = {name: self._guarded(f) for name, f in self.filters.items() if name not in NONDETERMINISTIC}

    def check_deadline(self) -> None:
        if time.perf_counter() > self.deadline:
            raise SecurityError(f"template took longer than {MAX_RENDER_SECONDS:g} s on one row")

    def _guarded(self, function: Callable) -> Callable:
        @functools.wraps(function)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            self.check_deadline()
            _check_arguments(args, kwargs)
            return function(*args, **kwargs)

        return guarded

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        __self.check_deadline()
        _check_arguments(args, kwargs)
        return super().call(__context, __obj, *args, **kwargs)

    def getattr(self, obj: Any, attribute: str) -> Any:
        self.check_deadline()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        self.check_deadline()
        return super().getitem(obj, argument)

    def call_binop(self, context: Any, op: str, left: Any, right: Any) -> Any:
        self.check_deadline()
        if op == "*":
            for sized, count in ((left, right), (right, left)):
                if isinstance(sized, (str, list, tuple)) and isinstance(count, int) and len(sized) * count > MAX_OUTPUT_CHARS:
                    raise SecurityError("template repeats a sequence past the output cap")
        if op == "**" and isinstance(right, (int, float)) and abs(right) > 64:
            raise SecurityError("template raises to a power larger than 64")
        if op == "%" and isinstance(left, str) and _WIDE_FORMAT.search(left):
            raise SecurityError("template formats with a width past the output cap")
        return {"*": operator.mul, "**": operator.pow, "%": operator.mod}[op](left, right)


def _check_arguments(args: tuple, kwargs: dict) -> None:
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT_ARGUMENT:
            raise SecurityError(f"template passes {value} to a function; the cap is {MAX_INT_ARGUMENT}")
        if isinstance(value, str) and len(value) < 200 and ("{" in value or "%" in value) and _WIDE_FORMAT.search(value):
            raise SecurityError("template formats with a width past the output cap")


class InputTemplate:
    """A mapping's `input_template`, compiled once and rendered on many rows."""

    def __init__(self, source: str, where: str) -> None:
        self.source = source
        self.where = where
        self.environment = RowSandbox()
        try:
            tree = self.environment.parse(source)
            self.template = self.environment.from_string(source)
        except TemplateError as err:
            raise RecordProblem(f"{where}: input_template does not compile: {_one_line(err)}") from None
        self.globals = dict(self.template.globals)
        self.variables = set(meta.find_undeclared_variables(tree)) - set(self.globals)
        self.row_keys = _row_keys(tree)

    @property
    def uses_row(self) -> bool:
        return ROW_VARIABLE in self.variables

    def render(self, variables: dict[str, Any]) -> str:
        """Render on one row's variables; raise TemplateFailure on any error or cap."""
        return self.render_with_globals({**self.globals, **variables})

    def render_with_globals(self, variables: dict[str, Any]) -> str:
        """`render`, for callers that already merged `self.globals` into the variables (one dict per row, not two)."""
        env = self.environment
        env.deadline = time.perf_counter() + MAX_RENDER_SECONDS
        # The context is built by hand: jinja's own path copies its globals ChainMap for every row.
        context = env.context_class(env, variables, self.template.name, self.template.blocks)
        chunks = self.template.root_render_func(context)
        parts: list[str] = []
        size = 0
        try:
            # Chunks are pulled 256 at a time (a C-level loop); caps are checked between pulls.
            while batch := list(islice(chunks, 256)):
                parts.extend(batch)
                size += sum(map(len, batch))
                if size > MAX_OUTPUT_CHARS:
                    raise SecurityError(f"template output is longer than {MAX_OUTPUT_CHARS} characters")
                env.check_deadline()
        except (TemplateError, SecurityError, OverflowError, TypeError, ValueError, ArithmeticError) as err:
            raise TemplateFailure(_one_line(err)) from None
        except Exception as err:  # anything else a filter or method raises on odd data
            raise TemplateFailure(f"{type(err).__name__}: {_one_line(err)}") from None
        finally:
            env.deadline = float("inf")
        return "".join(parts)


def _row_keys(tree: nodes.Template) -> set[str]:
    """Column names read as `row["Patient Note"]` or `row.question`, so that they can be checked."""
    keys = set()
    for node in tree.find_all((nodes.Getitem, nodes.Getattr)):
        if isinstance(node.node, nodes.Name) and node.node.name == ROW_VARIABLE:
            if isinstance(node, nodes.Getattr):
                keys.add(node.attr)
            elif isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
                keys.add(node.arg.value)
    return keys


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 300 else text[:297] + "..."
