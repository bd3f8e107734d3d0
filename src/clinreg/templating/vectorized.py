"""A compiled template (`compiled.py`'s subset) evaluated over a whole batch of text columns in Arrow compute.

`compile_columns` turns the parts of the subset whose Arrow kernels give exactly Python's answer on text into
one function of a batch's columns: `~` (a join), `==` and `!=` and the orderings (UTF-8 byte order is code point
order), `and`/`or`/`not`, `a if c else b`, `{% if %}`, text constants, names and `row['name']`/`row.name`
lookups of columns, and the filters `trim` (Arrow's trim given exactly the characters `str.strip` removes),
`lower` and `upper` (ASCII rows only). It answers for every row or says, per row, that it is not sure.

Not sure means: a null in a column it read, a text the filters' guard would look at, a non-ASCII text under
`lower`/`upper`, a result past the output cap. Those rows, and every row of a batch whose columns are not all
text, go through the template's row path (`InputTemplate.render_row`: the compiled closures, then the jinja
sandbox), which gives the text or the error. A row the batch path is sure of gets what the compiled closures
return for it, which is jinja's text (tests/templating/test_vectorized.py compares all three on generated rows).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from jinja2 import nodes

from clinreg.templating.columns import one_array

# Exactly the characters str.isspace() accepts (so str.strip() and str.split() use them); a test checks this
# against every code point.
PY_WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
# A short text holding `{` or `%` is one the compiled filters leave to the sandbox (its argument guard).
GUARD_CHARS = 200
_GUARDED = r"[{%]"
_NOT_WHITESPACE = "[^" + "".join(f"\\x{{{ord(c):x}}}" for c in PY_WHITESPACE) + "]"
_COMPARE = {"eq": pc.equal, "ne": pc.not_equal, "lt": pc.less, "lteq": pc.less_equal, "gt": pc.greater,
            "gteq": pc.greater_equal}
_TEXT = (pa.string(), pa.large_string())


class NotVectorized(Exception):
    """Outside the subset (when compiling), or a batch this path does not take (when evaluating)."""


class Columns:
    """A batch's text columns as the evaluation reads them: each column once, nulls as '' and noted as unsure."""

    def __init__(self, table: pa.Table) -> None:
        self.table, self.n = table, table.num_rows
        self.names = set(table.column_names)
        if len(self.names) != len(table.column_names):
            raise NotVectorized  # a repeated column name: the row path decides which one a name reads
        self.read: dict[str, pa.Array] = {}
        self.unsure = np.zeros(self.n, dtype=bool)

    def column(self, name: str) -> pa.Array:
        found = self.read.get(name)
        if found is not None:
            return found
        if name not in self.names:
            raise NotVectorized
        array = one_array(self.table.column(name))
        if array.type not in _TEXT:
            raise NotVectorized
        if array.type != pa.string():
            # One text type throughout: Arrow's join has no kernel for string and large_string together.
            try:
                array = array.cast(pa.string())
            except pa.ArrowException:
                raise NotVectorized from None  # more than 2 GiB of text in one column of the batch
        if array.null_count:
            self.unsure |= np.asarray(array.is_null().to_numpy(zero_copy_only=False))
            array = pc.fill_null(array, "")
        self.read[name] = array
        return array


# An evaluated node: (value, rows it is not sure of or None). A text is an Arrow string array (or a scalar, for a
# constant); a boolean is a numpy array of the batch's rows. Each compiled node also has a static kind.
Value = tuple[Any, "np.ndarray | None"]
Node = Callable[[Columns], Value]


def compile_columns(tree: nodes.Template, cap: int, row_variable: str | None) -> Callable[[Columns], Value] | None:
    """The template as a function of a batch's columns, giving (text array, unsure rows or None); None when the
    template is outside the subset. `row_variable` is the name bound to the row mapping (None: the template
    does not use it). Evaluating raises NotVectorized for a batch it cannot take (a name not a text column)."""
    try:
        body = _statements(tree.body, cap, row_variable)
    except NotVectorized:
        return None

    def render(columns: Columns) -> Value:
        text, unsure = body(columns)
        if not isinstance(text, pa.Array):
            text = pa.repeat(text, columns.n)
        return text, _or(_or(unsure, columns.unsure), _over(text, cap))

    return render


def render_batch(render: Callable[[Columns], Value], table: pa.Table,
                 rows: np.ndarray | None = None) -> tuple[pa.Array, np.ndarray] | None:
    """A compiled template's texts for a batch (a string array: every node gives `string`) and the sorted indices of
    the rows the caller must still render row by row; with `rows` (a boolean mask), only those rows need be right.
    None when the batch path does not take this batch."""
    try:
        texts, unsure = render(Columns(table))
    except Exception:  # noqa: BLE001 - NotVectorized (a batch it does not take) or an Arrow kernel refusing the columns
        return None
    if unsure is None:
        return texts, np.zeros(0, dtype=np.int64)
    if rows is not None:
        unsure = unsure & rows
    return texts, np.flatnonzero(unsure)


def _or(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    if a is None:
        return b
    if b is None:
        return a
    return a | b


def _numpy(condition: Any, n: int) -> np.ndarray:
    """A boolean Arrow array or scalar (no nulls) as a numpy mask of n rows."""
    if isinstance(condition, pa.Scalar):
        return np.full(n, bool(condition.as_py()))
    return np.asarray(condition.to_numpy(zero_copy_only=False), dtype=bool)


def _byte_lengths(text: pa.Array) -> np.ndarray:
    return np.asarray(pc.binary_length(text).to_numpy(zero_copy_only=False))


def _over(text: Any, cap: int) -> np.ndarray | None:
    """Rows longer than the cap, or None. A text's characters are at most its bytes: most batches need no count."""
    if isinstance(text, pa.Scalar) or not len(text):
        return None
    lengths = _byte_lengths(text)
    if lengths.max() <= cap:
        return None
    return _numpy(pc.greater(pc.utf8_length(text), cap), len(text))


def _text(kind: str) -> None:
    if kind != "str":
        raise NotVectorized


def _statements(statements: list[nodes.Node], cap: int, row: str | None) -> Node:
    parts = [_statement(node, cap, row) for node in statements]
    if not parts:
        empty = pa.scalar("", pa.string())
        return lambda columns: (empty, None)
    if len(parts) == 1:
        return parts[0]
    return _joined(parts)


def _joined(parts: list[Node]) -> Node:
    def join(columns: Columns) -> Value:
        texts, unsure = [], None
        for part in parts:
            text, where = part(columns)
            texts.append(text)
            unsure = _or(unsure, where)
        if all(isinstance(t, pa.Scalar) for t in texts):
            return pa.scalar("".join(t.as_py() for t in texts), pa.string()), unsure
        return pc.binary_join_element_wise(*texts, ""), unsure

    return join


def _statement(node: nodes.Node, cap: int, row: str | None) -> Node:
    if type(node) is nodes.Output:
        pieces: list[Node] = []
        for child in node.nodes:
            if type(child) is nodes.TemplateData:
                literal = pa.scalar(child.data, pa.string())
                pieces.append(lambda columns, literal=literal: (literal, None))
            else:
                kind, piece = _expression(child, cap, row)
                _text(kind)  # str() of a text is the text; of anything else, not written here
                pieces.append(piece)
        return pieces[0] if len(pieces) == 1 else _joined(pieces)
    if type(node) is nodes.If:
        branches = [(_truth(node.test, cap, row), _statements(node.body, cap, row))]
        branches += [(_truth(e.test, cap, row), _statements(e.body, cap, row)) for e in node.elif_]
        otherwise = _statements(node.else_, cap, row)

        def branch(columns: Columns) -> Value:
            # From the last branch back: each test chooses between its body and what the branches after it give.
            chosen = otherwise(columns)
            for test, body in reversed(branches):
                chosen = _choose("str", test(columns), body(columns), chosen)
            return chosen

        return branch
    raise NotVectorized


def _choose(kind: str, test: Value, yes: Value, no: Value) -> Value:
    """`yes if test else no` (test a numpy mask), each row unsure where its test is or where the branch it takes is."""
    condition, unsure = test
    if yes[1] is not None:
        unsure = _or(unsure, condition & yes[1])
    if no[1] is not None:
        unsure = _or(unsure, ~condition & no[1])
    if kind == "bool":
        return np.where(condition, yes[0], no[0]), unsure
    if condition.all():
        chosen = yes[0]
    elif not condition.any():
        chosen = no[0]
    else:
        chosen = pc.if_else(pa.array(condition), yes[0], no[0])
    return chosen, unsure


def _expression(node: nodes.Node, cap: int, row: str | None) -> tuple[str, Node]:
    """(kind, evaluator): kind "str" (text, no nulls) or "bool"."""
    kind = type(node)
    if kind is nodes.Const:
        if type(node.value) is not str:
            raise NotVectorized
        value = pa.scalar(node.value, pa.string())
        return "str", lambda columns: (value, None)
    if kind is nodes.Name:
        if node.ctx != "load" or node.name == row or node.name == "self":
            raise NotVectorized  # `row` alone is a mapping, not a text
        name = node.name
        return "str", lambda columns: (columns.column(name), None)
    if kind is nodes.Getitem and type(node.node) is nodes.Name and node.node.name == row and node.ctx == "load":
        if type(node.arg) is not nodes.Const or type(node.arg.value) is not str:
            raise NotVectorized
        key = node.arg.value
        return "str", lambda columns: (columns.column(key), None)
    if kind is nodes.Getattr and type(node.node) is nodes.Name and node.node.name == row and node.ctx == "load":
        if hasattr(dict, node.attr):
            raise NotVectorized  # the sandbox reads the dict's attribute (`row.items`), not the column
        attr = node.attr
        return "str", lambda columns: (columns.column(attr), None)
    if kind is nodes.Concat:
        parts = []
        for child in node.nodes:
            part_kind, part = _expression(child, cap, row)
            _text(part_kind)
            parts.append(part)
        join = _joined(parts)

        def concat(columns: Columns) -> Value:
            text, unsure = join(columns)
            if isinstance(text, pa.Scalar) and len(text.as_py()) > cap:
                raise NotVectorized  # constants joined past the cap: the closures refuse it, jinja folds it
            return text, _or(unsure, _over(text, cap))

        return "str", concat
    if kind is nodes.Compare and len(node.ops) == 1 and node.ops[0].op in _COMPARE:
        left_kind, left = _expression(node.expr, cap, row)
        right_kind, right = _expression(node.ops[0].expr, cap, row)
        _text(left_kind), _text(right_kind)
        op = _COMPARE[node.ops[0].op]

        def compare(columns: Columns) -> Value:
            a, b = left(columns), right(columns)
            return _numpy(op(a[0], b[0]), columns.n), _or(a[1], b[1])

        return "bool", compare
    if kind is nodes.Not:
        return "bool", _truth(node, cap, row)
    if kind in (nodes.And, nodes.Or):
        (left_kind, left), (right_kind, right) = _expression(node.left, cap, row), _expression(node.right, cap, row)
        if left_kind != right_kind:
            raise NotVectorized  # the value would be a text on some rows and a boolean on others
        is_and = kind is nodes.And
        to_truth = _truth_of(left_kind)

        def either(columns: Columns) -> Value:
            a, b = left(columns), right(columns)
            truth = to_truth(a, columns.n)
            # `a and b` is b where a is true, else a; `a or b` is a where a is true, else b: b is only read there.
            return _choose(left_kind, truth, b, a) if is_and else _choose(left_kind, truth, a, b)

        return left_kind, either
    if kind is nodes.CondExpr and node.expr2 is not None:
        test = _truth(node.test, cap, row)
        (yes_kind, yes), (no_kind, no) = _expression(node.expr1, cap, row), _expression(node.expr2, cap, row)
        if yes_kind != no_kind:
            raise NotVectorized
        return yes_kind, lambda columns: _choose(yes_kind, test(columns), yes(columns), no(columns))
    if kind is nodes.Filter and node.name in ("trim", "lower", "upper") and node.node is not None and not (
        node.args or node.kwargs or node.dyn_args or node.dyn_kwargs
    ):
        inner_kind, inner = _expression(node.node, cap, row)
        _text(inner_kind)
        return "str", _filter(node.name, inner, cap)
    raise NotVectorized


def _filter(name: str, inner: Node, cap: int) -> Node:
    def apply(columns: Columns) -> Value:
        value, unsure = inner(columns)
        if isinstance(value, pa.Scalar):
            raise NotVectorized  # a filter on a constant: jinja folds it, rare; the row path decides
        unsure = _or(unsure, _guarded(value))
        if name == "trim":
            result = pc.utf8_trim(value, characters=PY_WHITESPACE)
        else:
            # Python's case mapping of non-ASCII text differs from Arrow's in places ('ß'.upper() is 'SS'):
            # only ASCII rows are sure.
            unsure = _or(unsure, ~_numpy(pc.string_is_ascii(value), len(value)))
            value = _zero_based(value)
            result = pc.ascii_lower(value) if name == "lower" else pc.ascii_upper(value)
        return result, _or(unsure, _over(result, cap))

    return apply


def _zero_based(value: pa.Array) -> pa.Array:
    """The texts in an array whose offsets start at 0: pyarrow's ascii_lower and ascii_upper (26.0) write the wrong
    bytes for one whose offsets start past 0 (valid Arrow; a cast from large_string of a slice gives one), which
    this copies, as it does a slice. Reading the first offset costs nothing; most arrays are used as they are."""
    if not len(value):
        return value
    width = 8 if pa.types.is_large_string(value.type) else 4
    first = np.frombuffer(value.buffers()[1], dtype=np.int64 if width == 8 else np.int32, count=1,
                          offset=value.offset * width)
    if value.offset == 0 and first[0] == 0:
        return value
    return pa.concat_arrays([value])


def _guarded(value: pa.Array) -> np.ndarray | None:
    """The rows the compiled filters leave to the sandbox, whose argument guard looks at them: a text of fewer
    than GUARD_CHARS characters holding `{` or `%`. Long texts are never scanned: only a text of fewer than
    4 * GUARD_CHARS bytes can be that short, and only a short one is searched."""
    candidates = np.flatnonzero(_byte_lengths(value) < 4 * GUARD_CHARS)
    if len(candidates):
        candidates = candidates[_where(pc.less(pc.utf8_length(value.take(pa.array(candidates))), GUARD_CHARS))]
    if len(candidates):
        candidates = candidates[_where(pc.match_substring_regex(value.take(pa.array(candidates)), _GUARDED))]
    if not len(candidates):
        return None
    mask = np.zeros(len(value), dtype=bool)
    mask[candidates] = True
    return mask


def _where(condition: pa.Array) -> np.ndarray:
    return np.flatnonzero(_numpy(condition, len(condition)))


def _truth_of(kind: str) -> Callable[[Value, int], Value]:
    def truth(value: Value, n: int) -> Value:
        if kind == "bool":
            return value
        text, unsure = value
        if isinstance(text, pa.Scalar):
            return np.full(n, bool(text.as_py())), unsure
        return _byte_lengths(text) > 0, unsure

    return truth


def _truth(node: nodes.Node, cap: int, row: str | None) -> Node:
    """The node's truth as a numpy mask: a text is true when it is not empty. `a and b` is true where both are (b
    only read there), `a or b` where either is, `not a` where a is not, and `x | trim` where x holds a character
    that is not whitespace: none of them builds the texts it tests."""
    kind = type(node)
    if kind in (nodes.And, nodes.Or):
        _expression(node, cap, row)  # the subset's checks, as for a value
        left, right, is_and = _truth(node.left, cap, row), _truth(node.right, cap, row), kind is nodes.And

        def both(columns: Columns) -> Value:
            (a, a_unsure), (b, b_unsure) = left(columns), right(columns)
            if b_unsure is not None:
                a_unsure = _or(a_unsure, (a if is_and else ~a) & b_unsure)
            return (a & b if is_and else a | b), a_unsure

        return both
    if kind is nodes.Not:
        inner = _truth(node.node, cap, row)

        def negate(columns: Columns) -> Value:
            value, unsure = inner(columns)
            return ~value, unsure

        return negate
    if kind is nodes.Filter and node.name == "trim":
        _expression(node, cap, row)  # the subset's checks
        inner = _expression(node.node, cap, row)[1]

        def not_blank(columns: Columns) -> Value:
            value, unsure = inner(columns)
            if isinstance(value, pa.Scalar):
                raise NotVectorized
            # The closures and the sandbox refuse a trimmed text past the cap: a text that long before trimming is
            # not sure (what the row path decides, an error or not, depends on the whitespace trimmed).
            unsure = _or(_or(unsure, _guarded(value)), _over(value, cap))
            return _numpy(pc.match_substring_regex(value, _NOT_WHITESPACE), columns.n), unsure

        return not_blank
    kind_of, evaluate = _expression(node, cap, row)
    to_truth = _truth_of(kind_of)
    return lambda columns: to_truth(evaluate(columns), columns.n)
