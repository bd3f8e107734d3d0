"""Hypothesis strategies for templates of the compiled subset (and a little outside it), shared by the tests of the
compiled closures (test_compiled.py) and of the batch path (test_vectorized.py), and the outcome of a render."""

from __future__ import annotations

from typing import Any, Callable

from hypothesis import strategies as st

from clinreg.core.builderrors import TemplateFailure


def expressions(atoms: st.SearchStrategy[str], unary: list[str], binary: list[str], max_leaves: int = 6):
    """Expressions built from `atoms` with the `unary` ("not {}") and `binary` ("({} ~ {})") forms and `a if c else b`.
    A unary form may name its operand twice ("({0} and {0} | trim)")."""
    return st.recursive(
        atoms,
        lambda inner: st.one_of(
            st.tuples(st.sampled_from(unary), inner).map(lambda t: t[0].format(t[1])),
            st.tuples(st.sampled_from(binary), inner, inner).map(lambda t: t[0].format(t[1], t[2])),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        ),
        max_leaves=max_leaves,
    )


def statements(expr: st.SearchStrategy[str], texts: st.SearchStrategy[str], blocks: tuple[str, ...] = (),
               tests: st.SearchStrategy[str] | None = None, max_leaves: int = 5):
    """Templates of literal `texts`, `{{ expr }}` outputs, `{% if test %}` and `{% if %}{% elif %}{% else %}` (`tests`,
    by default `expr`), nested; `blocks` adds statements around a body, each a format string of a test and the body
    ("{{% for x in {0} %}}{1}{{% endfor %}}")."""
    tests = expr if tests is None else tests
    leaf = st.one_of(texts, expr.map(lambda e: "{{ " + e + " }}"))

    def extend(inner):
        forms = [
            st.lists(inner, max_size=3).map("".join),
            st.tuples(tests, inner).map(lambda t: "{% if " + t[0] + " %}" + t[1] + "{% endif %}"),
            st.tuples(tests, inner, tests, inner, inner).map(
                lambda t: ("{% if " + t[0] + " %}" + t[1] + "{% elif " + t[2] + " %}" + t[3] + "{% else %}" + t[4]
                           + "{% endif %}")),
        ]
        if blocks:
            forms.append(st.tuples(st.sampled_from(blocks), tests, inner).map(lambda t: t[0].format(t[1], t[2])))
        return st.one_of(*forms)

    return st.recursive(leaf, extend, max_leaves=max_leaves)


def outcome(render: Callable[[], Any], errors: tuple[type[Exception], ...] = (TemplateFailure,)) -> Any:
    """What a render gives: its result, or its error (one of `errors`) as (type, message), so that two paths'
    outcomes compare."""
    try:
        return render()
    except errors as err:
        return type(err), str(err)
