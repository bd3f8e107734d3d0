"""Templates of a small, loop-free subset compiled into plain Python closures, rendered without jinja.

The subset: literal text; `{{ expr }}` outputs; `{% if %}` / `{% elif %}` / `{% else %}`; and expressions made of
constants, names, `x.field` and `x['key']` lookups into a row's mappings and lists, `~`, comparisons, `and`,
`or`, `not`, `a if c else b`, and the filters `trim`, `lower` and `upper` without arguments. That covers the
records' `render` steps and `keep:` filters (MEDEC's reference and its filter), which jinja's sandbox renders at
about 20 µs a row.

A compiled template gives jinja's text or gives up: anything the sandbox would treat in any other way (a
missing name, a lookup that is not a plain item of a dict, list or tuple, a filter on something not text, a
text a filter's guard would look at, a result past the output cap, any exception) raises `NotCompiled`, and
the caller renders that row in the sandbox, which then writes the same text or raises its own error. The
subset has no loop, call, `{% set %}` or arithmetic, and a compiled template has at most `MAX_NODES` nodes,
so a row costs at most that many steps (the sandbox allows a million) over values the row already holds.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from jinja2 import nodes

MAX_NODES = 500
Render = Callable[[dict], Any]


class NotCompiled(Exception):
    """This row (or this template) is for jinja's sandbox."""


_COMPARE = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "lteq": operator.le, "gt": operator.gt,
    "gteq": operator.ge, "in": lambda a, b: a in b, "notin": lambda a, b: a not in b,
}
_FILTERS = {"trim": str.strip, "lower": str.lower, "upper": str.upper}
_LOOKUP_TYPES = (dict, list, tuple)
_SCALARS = (str, int, float, bool, type(None))


def compile_template(tree: nodes.Template, cap: int) -> Callable[[dict], str] | None:
    """A function from a row's variables to the template's text (raising NotCompiled where jinja must decide),
    or None when the template is outside the subset. `cap` is the sandbox's output and value size cap."""
    if sum(1 for _ in tree.find_all(nodes.Node)) > MAX_NODES:
        return None
    try:
        body = _statements(tree.body, cap)
    except NotCompiled:
        return None

    def render(variables: dict) -> str:
        out: list[str] = []
        body(variables, out)
        text = "".join(out)
        if len(text) > cap:
            raise NotCompiled
        return text

    return render


def _statements(statements: list[nodes.Node], cap: int) -> Callable[[dict, list], None]:
    steps = [_statement(node, cap) for node in statements]
    if len(steps) == 1:
        return steps[0]

    def run(variables: dict, out: list) -> None:
        for step in steps:
            step(variables, out)

    return run


def _statement(node: nodes.Node, cap: int) -> Callable[[dict, list], None]:
    if type(node) is nodes.Output:
        pieces = []
        for child in node.nodes:
            if type(child) is nodes.TemplateData:
                pieces.append((True, child.data))
            else:
                pieces.append((False, _expression(child, cap)))

        if len(pieces) == 1 and not pieces[0][0]:
            only = pieces[0][1]

            def output_one(variables: dict, out: list) -> None:
                out.append(str(only(variables)))

            return output_one

        def output(variables: dict, out: list) -> None:
            for literal, piece in pieces:
                out.append(piece if literal else str(piece(variables)))

        return output
    if type(node) is nodes.If:
        branches = [(_expression(node.test, cap), _statements(node.body, cap))]
        branches += [(_expression(elif_.test, cap), _statements(elif_.body, cap)) for elif_ in node.elif_]
        otherwise = _statements(node.else_, cap)

        def branch(variables: dict, out: list) -> None:
            for test, body in branches:
                if test(variables):
                    body(variables, out)
                    return
            otherwise(variables, out)

        return branch
    raise NotCompiled


def _expression(node: nodes.Node, cap: int) -> Render:
    kind = type(node)
    if kind is nodes.Const:
        if not isinstance(node.value, _SCALARS):
            raise NotCompiled
        value = node.value
        return lambda variables: value
    if kind is nodes.Name:
        if node.ctx != "load" or node.name == "self":  # jinja binds `self` to the template itself
            raise NotCompiled
        name = node.name

        def lookup(variables: dict) -> Any:
            if name not in variables:
                raise NotCompiled  # jinja's undefined: the sandbox raises or decides
            return variables[name]

        return lookup
    if kind is nodes.Getitem and node.ctx == "load" and type(node.arg) is not nodes.Slice:
        if type(node.node) is nodes.Name and type(node.arg) is nodes.Const:
            _expression(node.node, cap), _expression(node.arg, cap)  # the same checks as below
            return _getitem_of_name(node.node.name, node.arg.value)
        return _getitem(_expression(node.node, cap), _expression(node.arg, cap))
    if kind is nodes.Getattr and node.ctx == "load":
        return _getattr(_expression(node.node, cap), node.attr)
    if kind is nodes.Concat:
        return _concat([_expression(child, cap) for child in node.nodes], cap)
    if kind is nodes.Compare and len(node.ops) == 1 and type(node.ops[0].expr) is nodes.Const:
        op, left = _COMPARE[node.ops[0].op], _expression(node.expr, cap)
        _expression(node.ops[0].expr, cap)  # the same checks as below
        value = node.ops[0].expr.value
        return lambda variables: op(left(variables), value)
    if kind is nodes.Compare:
        return _compare(_expression(node.expr, cap), [(_COMPARE[op.op], _expression(op.expr, cap)) for op in node.ops])
    if kind is nodes.And:
        left, right = _expression(node.left, cap), _expression(node.right, cap)
        return lambda variables: left(variables) and right(variables)
    if kind is nodes.Or:
        left, right = _expression(node.left, cap), _expression(node.right, cap)
        return lambda variables: left(variables) or right(variables)
    if kind is nodes.Not:
        inner = _expression(node.node, cap)
        return lambda variables: not inner(variables)
    if kind is nodes.CondExpr and node.expr2 is not None:
        test, yes, no = _expression(node.test, cap), _expression(node.expr1, cap), _expression(node.expr2, cap)
        return lambda variables: yes(variables) if test(variables) else no(variables)
    if kind is nodes.Filter and node.name in _FILTERS and node.node is not None and not (
        node.args or node.kwargs or node.dyn_args or node.dyn_kwargs
    ):
        return _filter(_FILTERS[node.name], _expression(node.node, cap), cap)
    raise NotCompiled


def _getitem(target: Render, key: Render) -> Render:
    def getitem(variables: dict) -> Any:
        obj, arg = target(variables), key(variables)
        if type(obj) not in _LOOKUP_TYPES:
            raise NotCompiled
        try:
            return obj[arg]  # what the sandbox tries first; a miss goes its way (attributes, undefined)
        except (LookupError, TypeError):
            raise NotCompiled from None

    return getitem


def _getitem_of_name(name: str, key: Any) -> Render:
    """`name[key]` with a constant key: `_getitem` of a name lookup and a constant, in one call."""
    def getitem(variables: dict) -> Any:
        if name not in variables:
            raise NotCompiled
        obj = variables[name]
        if type(obj) not in _LOOKUP_TYPES:
            raise NotCompiled
        try:
            return obj[key]
        except (LookupError, TypeError):
            raise NotCompiled from None

    return getitem


def _getattr(target: Render, attr: str) -> Render:
    def getattr_(variables: dict) -> Any:
        obj = target(variables)
        # The sandbox reads an attribute first (`row.items` is the method): only a dict's own item, when the
        # dict type has no attribute of that name, is certain to be what jinja returns.
        if type(obj) is not dict or hasattr(dict, attr) or attr not in obj:
            raise NotCompiled
        return obj[attr]

    return getattr_


def _concat(parts: list[Render], cap: int) -> Render:
    def concat(variables: dict) -> str:
        texts = [str(part(variables)) for part in parts]
        if sum(map(len, texts)) > cap:
            raise NotCompiled
        return "".join(texts)

    return concat


def _compare(first: Render, ops: list[tuple[Callable, Render]]) -> Render:
    def compare(variables: dict) -> Any:
        left = first(variables)
        result: Any = True
        for op, right_of in ops:
            right = right_of(variables)
            result = op(left, right)
            if not result:
                return result
            left = right
        return result

    return compare


def _filter(function: Callable[[str], str], inner: Render, cap: int) -> Render:
    def apply(variables: dict) -> str:
        value = inner(variables)
        # Only text, and not a short text with `{` or `%` in it, which the sandbox's argument guard inspects.
        if type(value) is not str or (len(value) < 200 and ("{" in value or "%" in value)):
            raise NotCompiled
        result = function(value)
        if len(result) > cap:
            raise NotCompiled
        return result

    return apply
