"""Input templates in an immutable jinja2 sandbox that sees only a row's columns, with size, step and time caps.

A template is untrusted code run on every row. The caps hold whatever it does:

- *time*: every loop iteration, call, filter, attribute or item lookup, operator and concatenation is a step;
  a row may take `MAX_STEPS` steps, and the clock is read every few steps against `MAX_RENDER_SECONDS`.
  Loops are guarded by rewriting each `for` to iterate through the sandbox, so even an empty loop body counts.
- *memory*: ranges hold at most `MAX_RANGE` items; the sizes that `~`, `+`, `*`, `%`, `join`, `replace`,
  `indent` and `expandtabs` would produce are checked before they are built, every call's and filter's result
  after; `{% set %}` blocks, macros and filter blocks write into buffers capped at the output size; and
  integers stay under `MAX_INT_BITS` bits (`**`, `*`).
"""

from __future__ import annotations

import functools
from itertools import islice
import operator
import re
import time
from typing import Any, Callable

from jinja2 import Environment, StrictUndefined, TemplateError, meta, nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.nodes import EvalContext
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from clinreg.core.builderrors import RecordProblem, TemplateDoesNotCompile, TemplateFailure, one_line
from clinreg.templating.compiled import compile_template

MAX_OUTPUT_CHARS = 1_000_000
MAX_RENDER_SECONDS = 2.0
# All rows together: a template (input, `render` step or filter) may spend 20 s plus 10 ms a row in jinja, so
# rows that each stay under MAX_RENDER_SECONDS cannot add up without bound (the real records' looping templates
# take well under 1 ms a row). Plain templates never count.
TEMPLATE_BUDGET_SECONDS = 20.0
TEMPLATE_SECONDS_PER_ROW = 0.01
# No legitimate template needs a number this large as a width, count or repeat; larger ones are how a
# template would ask for gigabytes (`'x' * 10**9`, `center(10**9)`, `'%0999999999d' % 1`).
MAX_INT_ARGUMENT = MAX_OUTPUT_CHARS
# Steps (loop iterations, calls, lookups, operators) one row may take: a template that walks every column of a
# wide row takes a few hundred; a million take about a second.
MAX_STEPS = 1_000_000
MAX_RANGE = 10_000
MAX_INT_BITS = 4096  # about 1,200 decimal digits
_CLOCK_EVERY = 64  # steps between two reads of the clock
_WIDE_FORMAT = re.compile(r"\d{7,}")
ROW_VARIABLE = "row"
NONDETERMINISTIC = frozenset({"lipsum", "random"})


class _CappedBuffer(list):
    """The buffer of a `{% set %}` block, a macro, a call or filter block: capped like the output itself."""

    __slots__ = ("environment", "size")

    def append(self, chunk: Any) -> None:
        self._grow(len(chunk) if isinstance(chunk, str) else 0)
        super().append(chunk)

    def extend(self, chunks: Any) -> None:
        chunks = list(chunks)
        self._grow(sum(len(c) for c in chunks if isinstance(c, str)))
        super().extend(chunks)

    def _grow(self, size: int) -> None:
        self.size += size
        if self.size > MAX_OUTPUT_CHARS:
            raise SecurityError(f"a block of the template is longer than {MAX_OUTPUT_CHARS} characters")
        self.environment.step()


class _GuardedCodeGenerator(CodeGenerator):
    """Compiles buffers as capped buffers and `~` as a checked concatenation (both through the environment,
    which a template cannot rebind)."""

    def buffer(self, frame: Frame) -> None:
        frame.buffer = self.temporary_identifier()
        self.writeline(f"{frame.buffer} = environment.new_buffer()")

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class RowSandbox(ImmutableSandboxedEnvironment):
    """A sandbox whose loops, calls, filters, operators and output are checked against size, step and time caps."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})
    code_generator_class = _GuardedCodeGenerator

    def __init__(self) -> None:
        super().__init__(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
        self.deadline = float("inf")
        self.steps = 0
        # Inputs must be reproducible: no global or filter that draws random numbers (`lipsum`, `|random`).
        self.globals = {name: value for name, value in self.globals.items() if name not in NONDETERMINISTIC}
        self.globals["range"] = _small_range
        self.filters = {name: self._guarded(name, f) for name, f in self.filters.items()
                        if name not in NONDETERMINISTIC}

    def start(self) -> None:
        self.deadline = time.perf_counter() + MAX_RENDER_SECONDS
        self.steps = 0

    def stop(self) -> None:
        self.deadline = float("inf")

    def check_deadline(self) -> None:
        if time.perf_counter() > self.deadline:
            raise SecurityError(f"template took longer than {MAX_RENDER_SECONDS:g} s on one row")

    def step(self, count: int = 1) -> None:
        before = self.steps
        self.steps = before + count
        if self.steps > MAX_STEPS:
            raise SecurityError(f"template took more than {MAX_STEPS:,} steps on one row")
        if before // _CLOCK_EVERY != self.steps // _CLOCK_EVERY:
            self.check_deadline()

    # -- hooks the compiled template calls -------------------------------------------------------------------

    def new_buffer(self) -> _CappedBuffer:
        buffer = _CappedBuffer()
        buffer.environment = self
        buffer.size = 0
        return buffer

    def concat(self, parts: tuple) -> str:
        self.step()
        texts = [str(p) for p in parts]
        if sum(map(len, texts)) > MAX_OUTPUT_CHARS:
            raise SecurityError(f"template joins text past the {MAX_OUTPUT_CHARS}-character cap with `~`")
        return "".join(texts)

    def guarded_iter(self, iterable: Any) -> Any:
        """What every `for` loop iterates: one step per item, so that nested loops cannot run unbounded."""
        self.step()
        for item in iterable:
            self.step()
            yield item

    def _guarded(self, name: str, function: Callable) -> Callable:
        grows = name in _GROWING_FILTERS

        @functools.wraps(function)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            self.step()
            _check_arguments(args, kwargs)
            if grows:
                _check_filter_growth(name, args, kwargs)
            return _check_result(function(*args, **kwargs))

        return guarded

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        __self.step()
        _check_arguments(args, kwargs)
        _check_method_growth(__obj, args)
        return _check_result(super().call(__context, __obj, *args, **kwargs))

    def getattr(self, obj: Any, attribute: str) -> Any:
        self.step()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        self.step()
        return super().getitem(obj, argument)

    def call_binop(self, context: Any, op: str, left: Any, right: Any) -> Any:
        self.step()
        if op == "*":
            for sized, count in ((left, right), (right, left)):
                if isinstance(sized, (str, list, tuple)) and _is_int(count) and len(sized) * count > MAX_OUTPUT_CHARS:
                    raise SecurityError("template repeats a sequence past the output cap")
            if _is_int(left) and _is_int(right) and abs(left).bit_length() + abs(right).bit_length() > MAX_INT_BITS:
                raise SecurityError(f"template multiplies integers past {MAX_INT_BITS} bits")
        elif op == "+":
            if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)) \
                    and len(left) + len(right) > MAX_OUTPUT_CHARS:
                raise SecurityError("template adds sequences past the output cap")
        elif op == "**":
            if isinstance(right, (int, float)) and abs(right) > 64:
                raise SecurityError("template raises to a power larger than 64")
            if _is_int(left) and _is_int(right) and right > 0 and abs(left).bit_length() * right > MAX_INT_BITS:
                raise SecurityError(f"template raises an integer past {MAX_INT_BITS} bits")
        elif op == "%" and isinstance(left, str) and _WIDE_FORMAT.search(left):
            raise SecurityError("template formats with a width past the output cap")
        return _check_result({"*": operator.mul, "**": operator.pow, "%": operator.mod,
                              "+": operator.add}[op](left, right))


def _check_arguments(args: tuple, kwargs: dict) -> None:
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT_ARGUMENT:
            raise SecurityError(f"template passes {value} to a function; the cap is {MAX_INT_ARGUMENT}")
        if (isinstance(value, str) and len(value) < 200 and ("{" in value or "%" in value)
            and _WIDE_FORMAT.search(value)):
            raise SecurityError("template formats with a width past the output cap")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _small_range(*args: int) -> range:
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise SecurityError(f"template asks for a range of {len(numbers):,} numbers; the cap is {MAX_RANGE:,}")
    return numbers


def _check_result(value: Any) -> Any:
    if isinstance(value, (str, list, tuple, dict, bytes)) and len(value) > MAX_OUTPUT_CHARS:
        raise SecurityError(f"template builds a value longer than {MAX_OUTPUT_CHARS} items")
    if _is_int(value) and value.bit_length() > MAX_INT_BITS:
        raise SecurityError(f"template builds an integer past {MAX_INT_BITS} bits")
    return value


def _texts_size(values: Any) -> int | None:
    """The text the items of `values` add up to (a text's items are its characters, a mapping's its keys)."""
    if isinstance(values, str):
        return len(values)
    if isinstance(values, (list, tuple, dict)):
        return sum(len(v) if isinstance(v, str) else 24 for v in values)
    return None


def _grown(base: str, times: int, each: int) -> int:
    return len(base) + times * max(each, 0)


def _check_size(estimate: int | None, what: str) -> None:
    if estimate is not None and estimate > MAX_OUTPUT_CHARS:
        raise SecurityError(f"template {what} past the {MAX_OUTPUT_CHARS}-character cap")


_GROWING_FILTERS = frozenset({"join", "replace", "indent"})


def _check_filter_growth(name: str, args: tuple, kwargs: dict) -> None:
    """Filters whose result can be far larger than their arguments: refused before the result is built."""
    while args and isinstance(args[0], (EvalContext, Context, Environment)):  # pass_context & co. come first
        args = args[1:]
    if not args or not isinstance(args[0], str) and name != "join":
        return
    value, rest = args[0], list(args[1:])
    if name == "join":
        size = _texts_size(value)
        sep = rest[0] if rest else kwargs.get("d", "")
        if size is not None and isinstance(sep, str):
            _check_size(size + len(sep) * len(value), "joins text")
    elif name == "replace" and len(rest) >= 2 and isinstance(rest[0], str) and isinstance(rest[1], str):
        old, new = rest[0], rest[1]
        times = value.count(old) if old else len(value) + 1
        _check_size(_grown(value, times, len(new) - len(old)), "replaces text")
    elif name == "indent":
        width = rest[0] if rest else kwargs.get("width", 4)
        each = len(width) if isinstance(width, str) else width if _is_int(width) else 0
        _check_size(_grown(value, value.count("\n") + 1, each), "indents text")


def _check_method_growth(obj: Any, args: tuple) -> None:
    """The same for methods of str reached as `text.replace(...)`, `sep.join(...)`, `text.expandtabs(...)`."""
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if not isinstance(owner, str):
        return
    if name == "join" and args:
        size = _texts_size(args[0])
        if size is not None:
            _check_size(size + len(owner) * len(args[0]), "joins text")
    elif name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        times = owner.count(args[0]) if args[0] else len(owner) + 1
        if len(args) >= 3 and _is_int(args[2]) and args[2] >= 0:
            times = min(times, args[2])
        _check_size(_grown(owner, times, len(args[1]) - len(args[0])), "replaces text")
    elif name == "expandtabs":
        width = args[0] if args and _is_int(args[0]) else 8
        _check_size(_grown(owner, owner.count("\t"), width), "expands tabs")


_NOT_YET = object()


class InputTemplate:
    """A mapping's `input_template`, compiled once and rendered on many rows."""

    def __init__(self, source: str, where: str) -> None:
        self.source = source
        self.where = where
        self.environment = RowSandbox()
        try:
            tree = self.environment.parse(source)
            self.template = self.environment.from_string(_guard_loops(self.environment.parse(source)))
            # The analysis compiles the tree again with jinja's own generator, which folds constants and so
            # can raise on `''.__mro__ ~ x`: inside the try, so that it is a RecordProblem too.
            self.globals = dict(self.template.globals)
            self.names = set(meta.find_undeclared_variables(tree))
            self.variables = self.names - set(self.globals)
        except TemplateError as err:
            raise TemplateDoesNotCompile(f"{where}: input_template does not compile: {one_line(err)}") from None
        self.row_keys = _row_keys(tree)
        self.row_keyed = _row_only_keyed(tree)
        self.plain = _plain_parts(tree)
        # Conditionals, lookups, `~`, comparisons and a few filters: plain Python, jinja for what it gives up on.
        self.compiled = None if self.plain is not None else compile_template(tree, MAX_OUTPUT_CHARS)
        self._tree, self._vectorized = tree, _NOT_YET  # the batch path, compiled when a build first asks (pyarrow)
        # A chunk is at most as long as the template's longest literal: pull fewer at a time from a long template,
        # so that 256 repeats of a large literal never sit in memory before the size check.
        self.pull = 256 if len(source) <= 4096 else 1
        self.spent, self.rendered = 0.0, 0

    @property
    def uses_row(self) -> bool:
        return ROW_VARIABLE in self.variables

    def columns_read(self, columns: list[str]) -> list[str]:
        """Of `columns`, those a row's context needs. A template that reads `row` only as `row['name']` or
        `row.name`, each name a column and no dict attribute, sees the same values in a `row` of just the columns
        it names (and those it reads as names); any other use of `row` needs them all."""
        if not self.uses_row:
            return [n for n in columns if n in self.variables]
        present = set(columns)
        if self.row_keyed and all(k in present and not hasattr(dict, k) for k in self.row_keys):
            wanted = self.names | self.row_keys
            return [n for n in columns if n in wanted]
        return list(columns)

    def rows(self, names: list[str], values: list[list[Any]], rows: Any) -> Any:
        """(row index, the row's named column values as a dict) for each of `rows`, for `render_row`."""
        for i in rows:
            yield i, {n: v[i] for n, v in zip(names, values)}

    def render_row(self, row: dict[str, Any]) -> str:
        """The text for one row's columns: the sandbox globals, the columns, and `row` (the columns as a mapping).

        A compiled template first tries a context of the columns alone (and `row`): any name it resolves there
        has the same value in the full context (columns override globals), and it gives up on any other name,
        so only then is the full context built and the row rendered as usual."""
        uses_row = self.uses_row
        if self.compiled is not None:
            try:
                return self.compiled({**row, ROW_VARIABLE: row} if uses_row else row)
            except Exception:  # noqa: BLE001 - any failure of the compiled path: the sandbox renders the row
                pass
        context = {**self.globals, **row}
        if uses_row:
            context[ROW_VARIABLE] = row
        return self.render_with_globals(context)

    def render_table(self, table: Any, rows: Any = None) -> Any:
        """Every row's text of a compiled template over an Arrow batch at once (`vectorized.py`), as a string array,
        with the rows whose text the caller must still render with `render_row` (sorted indices), the others'
        texts being final; with `rows` (a boolean mask), only those rows need be right. None when the batch path
        does not apply to this template or batch."""
        from clinreg.templating.vectorized import compile_columns, render_batch  # pyarrow: a build's, not the core's

        if self._vectorized is _NOT_YET:
            self._vectorized = None if self.compiled is None else compile_columns(
                self._tree, MAX_OUTPUT_CHARS, ROW_VARIABLE if self.uses_row else None)
        return None if self._vectorized is None else render_batch(self._vectorized, table, rows)

    def render_columns(self, names: list[str], values: list[list[Any]], n: int) -> list[str] | None:
        """Every row's text of a plain template (text, `{{ name }}` and plain loops only), straight from the columns
        without a context per row; None when that does not apply (another template, a name that is not a column, a
        value str() refuses, an over-long text), and the caller renders row by row as usual."""
        if self.plain is None:
            return None
        parts, slots = self.plain
        where = {name: i for i, name in enumerate(names)}
        if any(name not in where or name == ROW_VARIABLE for _, name, _ in slots):
            return None  # `row` is the whole row in a context, even when a column has that name
        if len(slots) == 1 and slots[0][2] is None:
            # One `{{ name }}` between two texts (most records' input): one concatenation a row.
            at, name, _ = slots[0]
            before, after = "".join(parts[:at]), "".join(parts[at + 1:])
            try:
                out = [before + str(value) + after for value in values[where[name]][:n]]
            except Exception:  # noqa: BLE001 - any failure of the fast path: the row path decides
                return None
            return out if not out or max(map(len, out)) <= MAX_OUTPUT_CHARS else None
        columns = [(at, values[where[name]], loop) for at, name, loop in slots]
        out = []
        try:
            for i in range(n):
                row = list(parts)
                for at, column, loop in columns:
                    row[at] = str(column[i]) if loop is None else _slot_text(column[i], loop)
                text = "".join(row)
                if len(text) > MAX_OUTPUT_CHARS:
                    return None
                out.append(text)
        except Exception:  # noqa: BLE001 - any failure of the fast path: the row path decides
            return None
        return out

    def render(self, variables: dict[str, Any]) -> str:
        """Render on one row's variables; raise TemplateFailure on any error or cap."""
        return self.render_with_globals({**self.globals, **variables})

    def render_with_globals(self, variables: dict[str, Any]) -> str:
        """`render`, for callers that already merged `self.globals` into the variables (one dict per row, not two)."""
        if self.plain is not None:
            # Only text, `{{ name }}` and plain loops: jinja would write str(value) for each name (and each item);
            # so does this, without the render machinery. Anything unusual (a missing name, a loop over something
            # not a list, an over-long result) goes the jinja way below, which raises exactly as it always did.
            parts, slots = self.plain
            out = list(parts)
            try:
                for at, name, loop in slots:
                    out[at] = str(variables[name]) if loop is None else _slot_text(variables[name], loop)
            except Exception:  # noqa: BLE001 - any failure of the plain path: the sandbox renders the row
                pass
            else:
                text = "".join(out)
                if len(text) <= MAX_OUTPUT_CHARS:
                    return text
        elif self.compiled is not None:
            try:
                return self.compiled(variables)
            except Exception:  # noqa: BLE001 - NotCompiled or anything odd: jinja renders the row, raising if it must
                pass
        if self.spent > TEMPLATE_BUDGET_SECONDS + TEMPLATE_SECONDS_PER_ROW * self.rendered:
            raise RecordProblem(
                f"{self.where}: the template took {self.spent:.1f} s for {self.rendered} row(s), more than the budget "
                f"of {TEMPLATE_BUDGET_SECONDS:g} s + {TEMPLATE_SECONDS_PER_ROW * 1000:g} ms a row; simplify it")
        env = self.environment
        began = time.perf_counter()
        env.start()
        # The context is built by hand: jinja's own path copies its globals ChainMap for every row.
        context = env.context_class(env, variables, self.template.name, self.template.blocks)
        chunks = self.template.root_render_func(context)
        parts: list[str] = []
        size = 0
        try:
            # Chunks are pulled 256 at a time (a C-level loop); caps are checked between pulls.
            while batch := list(islice(chunks, self.pull)):
                parts.extend(batch)
                size += sum(map(len, batch))
                if size > MAX_OUTPUT_CHARS:
                    raise SecurityError(f"template output is longer than {MAX_OUTPUT_CHARS} characters")
                env.check_deadline()
        except (TemplateError, SecurityError, OverflowError, TypeError, ValueError, ArithmeticError) as err:
            raise TemplateFailure(one_line(err)) from None
        except MemoryError:
            raise TemplateFailure("template ran out of memory") from None
        except RecursionError:
            raise TemplateFailure("template recursed too deeply") from None
        except Exception as err:  # noqa: BLE001 - anything else a filter or method raises on odd data
            raise TemplateFailure(f"{type(err).__name__}: {one_line(err)}") from None
        finally:
            env.stop()
            self.spent += time.perf_counter() - began
            self.rendered += 1
        return "".join(parts)


def _plain_parts(tree: nodes.Template) -> tuple[list[str], list[tuple[int, str, Any]]] | None:
    """For a template of literal text, `{{ name }}` outputs and plain loops only: its parts (text, with a slot
    for each output) and the slots as (position, name, loop). None for any other template.

    A plain loop is `{% for x in name %}` or `{% for x in name.field %}` whose body is text and `{{ x }}` only
    (no filter, no `else`, no `loop.*`, not recursive): its slot's loop is (field or None, body), the body's
    parts with None where the item goes (MedHallu's knowledge passages, PubMedQA's contexts)."""
    parts: list[str] = []
    slots: list[tuple[int, str, Any]] = []
    for node in tree.body:
        if isinstance(node, nodes.For):
            loop = _plain_loop(node)
            if loop is None:
                return None
            slots.append((len(parts), loop[0], loop[1]))
            parts.append("")
            continue
        if not isinstance(node, nodes.Output):
            return None
        for child in node.nodes:
            if type(child) is nodes.TemplateData:
                parts.append(child.data)
            # jinja binds `self` itself
            elif type(child) is nodes.Name and child.ctx == "load" and child.name != "self":
                slots.append((len(parts), child.name, None))
                parts.append("")
            else:
                return None
    return parts, slots


def _plain_loop(node: nodes.For) -> tuple[str, tuple[str | None, tuple[str | None, ...]]] | None:
    if node.else_ or node.test is not None or node.recursive or type(node.target) is not nodes.Name:
        return None
    source = node.iter
    if type(source) is nodes.Name and source.ctx == "load":
        name, field = source.name, None
    elif type(source) is nodes.Getattr and type(source.node) is nodes.Name and source.node.ctx == "load":
        name, field = source.node.name, source.attr
    else:
        return None
    if name in ("self", node.target.name):
        return None
    body: list[str | None] = []
    for output in node.body:
        if not isinstance(output, nodes.Output):
            return None
        for child in output.nodes:
            if type(child) is nodes.TemplateData:
                body.append(child.data)
            elif type(child) is nodes.Name and child.ctx == "load" and child.name == node.target.name:
                body.append(None)
            else:
                return None
    return name, (field, tuple(body))


# A plain loop over more items than this renders through jinja, whose step guard then applies.
PLAIN_LOOP_ITEMS = 10_000


class _NotPlain(Exception):
    pass


def _slot_text(value: Any, loop: Any) -> str:
    """What jinja writes for a slot: str() of the value, or a plain loop's body for each item of a list."""
    if loop is None:
        return str(value)
    field, body = loop
    if field is not None:
        # The sandbox reads `name.field` of a mapping as its item when the mapping has no such attribute.
        if type(value) is not dict or hasattr(dict, field) or field not in value:
            raise _NotPlain
        value = value[field]
    if type(value) not in (list, tuple) or len(value) > PLAIN_LOOP_ITEMS:
        raise _NotPlain  # None, text, a mapping: jinja decides (an error, characters, keys)
    return "".join([part if part is not None else str(item) for item in value for part in body])


def _guard_loops(tree: nodes.Template) -> nodes.Template:
    """Make every `for` iterate through `environment.guarded_iter`, which counts a step per item.

    The guard is an environment attribute, not a name, so no `{% set %}` in the template can replace it.
    """
    for loop in tree.find_all(nodes.For):
        loop.iter = nodes.Call(nodes.EnvironmentAttribute("guarded_iter"), [loop.iter], [], None, None,
                               lineno=loop.lineno)
    return tree


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


def _row_only_keyed(tree: nodes.Template) -> bool:
    """Whether every use of `row` is a lookup of a constant name (`row['Patient Note']`, `row.question`)."""
    uses = sum(1 for node in tree.find_all(nodes.Name) if node.name == ROW_VARIABLE)
    keyed = sum(1 for node in tree.find_all((nodes.Getitem, nodes.Getattr))
                if isinstance(node.node, nodes.Name) and node.node.name == ROW_VARIABLE
                and (isinstance(node, nodes.Getattr)
                     or (isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str))))
    return uses == keyed
