"""The batch path (vectorized.py): for generated templates and Arrow batches, every row it is sure of gets the row
path's text, and render steps and filters give the same output, or fail on the same row with the same message,
with it and without it."""

from __future__ import annotations

import functools
import sys
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinreg.core.builderrors import RecordProblem, TemplateFailure
from clinreg.sources.steps import render
from clinreg.templating import sandbox
from clinreg.templating.columns import one_array, python_values
from clinreg.templating.compiled import compile_template
from clinreg.templating.rowfilters import FilterExpression
from clinreg.templating.sandbox import MAX_OUTPUT_CHARS, InputTemplate
from clinreg.templating.vectorized import GUARD_CHARS, PY_WHITESPACE, Columns, NotVectorized, compile_columns
from templating.templates import expressions, outcome, statements

COLUMNS = ("a", "b", "c", "items", "Error Flag")

# ------------------------------------------------------------------------------------------------------ templates

_COLUMN_ATOMS = ["a", "b", "c", "items", "row['a']", "row.b", "row['items']", "row['Error Flag']", "row.c"]
_TEXT_ATOMS = st.sampled_from(_COLUMN_ATOMS * 3 + ["'x'", "''", "' '", "'1'", "'ß'", "'{'", "' A. '", "'CORRECT'"])
_TESTED = st.sampled_from(_COLUMN_ATOMS).map(lambda x: f"({x} and {x} | trim)")  # a column, tested non-blank
_ORDER = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])


def _conditions(text: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Tests of the subset over `text` expressions: a text (true when not empty), `x and x | trim`, comparisons,
    and `not`/`and`/`or` of them (both sides of an `and`/`or` texts, or both booleans)."""
    compared = st.tuples(_ORDER, text, text, st.booleans()).map(lambda t: f"({t[1]} {t[0]} {t[1] if t[3] else t[2]})")
    truths = st.recursive(
        st.one_of(compared, text.map(lambda x: f"(not {x})"), text.map(lambda x: f"(not {x} | trim)")),
        lambda inner: st.one_of(inner.map(lambda x: f"(not {x})"),
                                st.tuples(st.sampled_from(["and", "or"]), inner,
                                          inner).map(lambda t: f"({t[1]} {t[0]} {t[2]})")),
        max_leaves=3)
    texts = st.one_of(text, _TESTED, text.map(lambda x: f"({x} | trim)"),
                      st.tuples(st.sampled_from(["and", "or"]), text, text).map(lambda t: f"({t[1]} {t[0]} {t[2]})"))
    return st.one_of(texts, truths)


# Text expressions of the subset: columns, constants, `~`, the three filters, `and`/`or` of texts and `a if c else b`.
_SUBSET_TEXTS = st.recursive(
    _TEXT_ATOMS,
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(["trim", "lower", "upper"]), inner).map(lambda t: f"({t[1]} | {t[0]})"),
        st.tuples(st.sampled_from(["~", "~ ' ' ~", "and", "or"]), inner,
                  inner).map(lambda t: f"({t[1]} {t[0]} {t[2]})"),
        st.tuples(inner, _conditions(inner), inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        _TESTED,
    ),
    max_leaves=4,
)
_SUBSET_CONDITIONS = _conditions(_SUBSET_TEXTS)
_LITERALS = st.sampled_from(["", "x", " ", "\n", "A. ", "é", "1"])
# One output (a render step), one test (a filter), or statements of them.
_SUBSET_TEMPLATES = st.one_of(
    _SUBSET_TEXTS.map(lambda e: "{{ " + e + " }}"), _SUBSET_CONDITIONS.map(lambda c: "{% if " + c + " %}1{% endif %}"),
    statements(_SUBSET_TEXTS, _LITERALS, ("{{%- if {0} -%}}\n{1}\n{{%- endif %}}",), _SUBSET_CONDITIONS))

# Anything of the subset's parts, mixed now and then with a part outside it or a name that is not a text column
# (`1`, `in`, a loop, an unknown filter): the batch path gives None, or the same text.
_ATOMS = st.one_of(_TEXT_ATOMS, _TEXT_ATOMS, st.sampled_from(
    ["1", "missing", "row.items()", "row", "none", "row[a]", "a[0]", "self", "row['nope']", "range"]))
_UNARY = ["not {}", "({} | trim)", "({}|lower)", "({}|upper)", "({0} and {0} | trim)"] * 3 + [
    "({} | length)", "({} | trim('x'))", "({} | nosuch)", "({} is none)"]
_BINARY = ["({} ~ {})", "({} == {})", "({} != {})", "({} < {})", "({} <= {})", "({} > {})", "({} >= {})", "({} and {})",
           "({} or {})"] * 3 + ["({} in {})", "({} + {})", "({} == {} == 'x')"]
_ANY_EXPRESSIONS = expressions(_ATOMS, _UNARY, _BINARY)
_ANY_TEMPLATES = statements(_ANY_EXPRESSIONS, _LITERALS, (
    "{{%- if {0} -%}}\n{1}\n{{%- endif %}}", "{{% for x in [1, 2] %}}{1}{{% endfor %}}",
    "{{% for x in {0} %}}{1}{{% endfor %}}"))

_TEMPLATES = st.one_of(_SUBSET_TEMPLATES, _SUBSET_TEMPLATES, _SUBSET_TEMPLATES, _ANY_TEMPLATES)
_EXPRESSIONS = st.one_of(_SUBSET_CONDITIONS, _SUBSET_CONDITIONS, _SUBSET_CONDITIONS, _ANY_EXPRESSIONS)

# -------------------------------------------------------------------------------------------------------- batches

_SHORT = st.sampled_from([
    "", "x", "X", "1", "0", "CORRECT", "NA", "Ab c", "K", "\x00", "ß", "İ", "ŉ", "Σ", "ΣΑΣ ς", "é", "ﬁ", "ǅ",
    "{", "%", "{x}", "a%d", "{0:09999999d}", "%01234567d", "{1234567}", "{{ a }}", "12345678",
])
_PIECES = st.text(alphabet="aZ1 ßİŉΣé\t\n\x85\u3000\u200a", max_size=8)


def _around_the_guard(parts: tuple) -> str:
    """A text of about GUARD_CHARS characters (of 1 to 4 bytes each), with a tail the guard may look at."""
    length, char, tail, tail_first = parts
    body = char * max(length - len(tail), 0)
    return tail + body if tail_first else body + tail


_LONG = st.tuples(st.integers(GUARD_CHARS - 3, GUARD_CHARS + 2), st.sampled_from(["x", "é", "€", "𝄞", " ", "\u3000"]),
                  st.sampled_from(["", "{", "%", "{0:09999999d}", "%1234567d", " "]),
                  st.booleans()).map(_around_the_guard)
_CLEAN = st.sampled_from(["", "x", "y", "X", "1", "CORRECT", " x ", "x y", "\tb\n"])
_ENDS = st.one_of(st.just(""), st.text(alphabet=PY_WHITESPACE, min_size=1, max_size=2))
_TEXT = st.tuples(_ENDS, st.one_of(_CLEAN, _SHORT, _PIECES, _LONG), _ENDS).map("".join)
_VALUE = st.one_of(st.none(), *[_TEXT] * 7)
# Batches of plain ASCII texts (so that many rows are sure), of anything, and of anything but nulls (a column
# without one is used as it is, not rebuilt to fill them).
_VALUES = st.sampled_from([st.one_of(st.none(), *[_CLEAN] * 11), _VALUE, _TEXT])


def _array(values: list, kind: pa.DataType, form: str) -> pa.Array:
    """The texts as a fresh array, a slice of a longer one, or an array whose offsets start past 0 (valid Arrow, as
    a reader or a cast of a slice may give; some kernels misread it)."""
    if form == "sliced":
        return pa.array(["pad", *values], kind).slice(1)
    fresh = pa.array(values, kind)
    if form == "fresh" or not values:
        return fresh
    validity, offsets, data = fresh.buffers()
    start = np.frombuffer(offsets, dtype=np.int64 if kind == pa.large_string() else np.int32, count=len(values) + 1) + 3
    text = b"pad" + (data.to_pybytes()[:int(start[-1]) - 3] if data is not None else b"")
    return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(start.tobytes()), pa.py_buffer(text)],
                                 null_count=fresh.null_count)


_KINDS = st.sampled_from([pa.string(), pa.string(), pa.large_string()])
_FORMS = st.sampled_from(["fresh", "fresh", "sliced", "shifted"])


@st.composite
def tables(draw, max_rows: int = 8) -> pa.Table:
    """A batch of the text columns: string or large_string, nulls, as fresh, sliced or shifted arrays (`_array`),
    sometimes in two chunks."""
    n = draw(st.integers(0, max_rows))
    values = draw(_VALUES)
    table = pa.table({name: _array(draw(st.lists(values, min_size=n, max_size=n)), draw(_KINDS), draw(_FORMS))
                      for name in COLUMNS})
    if n > 1 and draw(st.booleans()):
        cut = draw(st.integers(1, n - 1))
        table = pa.concat_tables([table.slice(0, cut), table.slice(cut)])
    return table


def _mask(bits: int | None, n: int) -> np.ndarray | None:
    return None if bits is None else np.array([bool(bits >> i & 1) for i in range(n)], dtype=bool)


_MASKS = st.one_of(st.none(), st.integers(0, 2**8 - 1))
# The real cap, and small ones that rows cross (GUARD_CHARS + 1: a long text under the guard's length is past it).
_CAPS = st.sampled_from([MAX_OUTPUT_CHARS, MAX_OUTPUT_CHARS, 8, 40, GUARD_CHARS + 1])

# ---------------------------------------------------------------------------------------------------------- helpers


def _rows(template: InputTemplate, table: pa.Table) -> list[dict]:
    """Each row as render steps and filters hand it to `render_row`."""
    names = template.columns_read(table.column_names)
    values = [python_values(one_array(table.column(n))) for n in names]
    return [row for _, row in template.rows(names, values, range(table.num_rows))]


def _template(source: str) -> InputTemplate | None:
    try:
        return InputTemplate(source, "w")
    except RecordProblem:
        return None


def _no_batch_path(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(InputTemplate, "render_table", lambda self, table, rows=None: None)


def _rendered(source: str, table: pa.Table, column: str, batch_path: bool) -> object:
    """The table a render step gives (schema and values), or its error."""
    with pytest.MonkeyPatch.context() as patch:
        if not batch_path:
            _no_batch_path(patch)

        def run():
            out = render(table, SimpleNamespace(column=column, template=source), "w", offset=5)
            return out.schema, out.to_pydict()

        return outcome(run, (TemplateFailure, RecordProblem, KeyError))


def _kept(expression: str, table: pa.Table, among: np.ndarray | None, batch_path: bool) -> object:
    """The rows a filter keeps, or its error."""
    with pytest.MonkeyPatch.context() as patch:
        if not batch_path:
            _no_batch_path(patch)
        return outcome(lambda: FilterExpression(expression, "the rows", "w").keep(table, "test", 5, among).tolist(),
                       (TemplateFailure, RecordProblem, KeyError))


# ------------------------------------------------------------------------------------------------------- properties


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_TEMPLATES, tables(), _CAPS, _MASKS)
def test_rows_the_batch_path_is_sure_of_get_the_row_paths_text(source, table, cap, bits):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "MAX_OUTPUT_CHARS", cap)
        template = _template(source)
        if template is None:
            return
        rows = _mask(bits, table.num_rows)
        fast = template.render_table(table, rows)
        if fast is None:
            return
        texts, unsure = fast
        assert texts.type == pa.string() and len(texts) == table.num_rows and texts.null_count == 0
        assert np.array_equal(unsure, np.unique(unsure)) and all(0 <= i < table.num_rows for i in unsure)
        if rows is not None:
            assert all(rows[i] for i in unsure)
        unsure_rows = set(unsure.tolist())
        for i, row in enumerate(_rows(template, table)):
            if i not in unsure_rows and (rows is None or rows[i]):
                assert outcome(functools.partial(template.render_row, row)) == texts[i].as_py(), (source, i, row)


@pytest.mark.slow
@settings(max_examples=250, deadline=None)
@given(_TEMPLATES, tables(), _CAPS, st.sampled_from(["out", "a"]))
def test_a_render_step_gives_the_same_table_or_failure_with_and_without_the_batch_path(source, table, cap, column):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "MAX_OUTPUT_CHARS", cap)
        assert _rendered(source, table, column, True) == _rendered(source, table, column, False), source


@pytest.mark.slow
@settings(max_examples=250, deadline=None)
@given(_EXPRESSIONS, tables(), _CAPS, _MASKS)
def test_a_filter_keeps_the_same_rows_or_fails_alike_with_and_without_the_batch_path(expression, table, cap, bits):
    among = _mask(bits, table.num_rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "MAX_OUTPUT_CHARS", cap)
        assert _kept(expression, table, among, True) == _kept(expression, table, among, False), expression


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(_TEMPLATES, tables(), st.sampled_from([0, 1, 5, 12, 40, GUARD_CHARS, GUARD_CHARS + 4]))
def test_under_a_small_cap_sure_rows_are_the_compiled_closures_and_rows_past_it_are_unsure(source, table, cap):
    template = _template(source)
    if template is None:
        return
    columns = compile_columns(template._tree, cap, "row" if template.uses_row else None)
    closure = compile_template(template._tree, cap)
    if columns is None:
        return
    assert closure is not None, source  # the batch path's subset is within the closures'
    try:
        texts, unsure = columns(Columns(table))
    except NotVectorized:  # a name that is not a text column
        return
    unsure = np.zeros(table.num_rows, dtype=bool) if unsure is None else unsure
    for i, row in enumerate(_rows(template, table)):
        try:
            text = closure({**row, "row": row} if template.uses_row else row)
        except Exception:  # noqa: BLE001 - NotCompiled, or `None < 'x'`: render_row gives this row to the sandbox
            assert unsure[i], (source, i, row)  # past the cap, the guard, a null, non-ASCII case: the row path's
            continue
        if not unsure[i]:
            assert texts[i].as_py() == text and len(text) <= cap, (source, i, row)


# Each part of the subset alone over two columns, on many rows of odd texts: the filters with the guard, the case
# mapping, the whitespace and the cap they bring; comparisons of equal and unequal texts; `~` past the cap.
_ONE_PART = st.sampled_from([
    "{{ a | trim }}", "{{ a | lower }}", "{{ a | upper }}", "{% if a | trim %}1{% endif %}", "{{ a | trim | upper }}",
    "{% if a and a | trim %}{{ a | trim }}{% else %}-{% endif %}", "{{ (a ~ b) | trim }}", "{{ a | trim ~ b }}",
    "{{ (row['a'] | lower) ~ (row.b | upper) }}", "{% if not a | trim %}blank{% endif %}",
    "{{ b if a | trim else a | lower }}",
    "{% if a | trim or b | trim %}{{ a ~ b }}{% endif %}", "{{ a | upper if b else b | lower }}",
    "{{ b and a | lower }}",
    "{% if b %}{{ a | upper }}{% elif a %}{{ b | trim }}{% else %}{{ a ~ b }}{% endif %}",
    "{{ b | trim or a | upper }}",
    "{{ 'lt' if a < b else 'ge' }}", "{% if a <= b %}1{% endif %}", "{{ a if a > b else b }}",
    "{{ 'eq' if a == b else 'ne' }}",
    "{% if a >= b and b != a %}1{% endif %}", "{% if (a ~ b) == b %}1{% endif %}", "{{ 'some' if a ~ b else 'none' }}",
    "{{ a or b }}", "{{ a and b }}", "{% if not (a or b) %}1{% endif %}",
])
_PAIRS = st.one_of(st.tuples(_VALUE, _VALUE), _VALUE.map(lambda v: (v, v)))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(_ONE_PART, st.lists(_PAIRS, max_size=30), _CAPS, _KINDS, _FORMS, st.booleans())
def test_each_part_alone_gives_sure_rows_the_closures_and_the_row_paths_text(source, values, cap, kind, form, nulls):
    if not nulls:
        values = [(a or "", b or "") for a, b in values]
    table = pa.table({"a": _array([a for a, _ in values], kind, form),
                      "b": _array([b for _, b in values], pa.string(), "fresh")})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "MAX_OUTPUT_CHARS", cap)
        template = InputTemplate(source, "w")
        texts, unsure = template.render_table(table)
        for i, row in enumerate(_rows(template, table)):
            if i not in unsure:
                assert template.compiled({**row, "row": row} if template.uses_row
                                         else row) == texts[i].as_py(), (source, row)
                assert outcome(functools.partial(template.render_row, row)) == texts[i].as_py(), (source, row)


# ---------------------------------------------------------------------------------------------------------- examples


def test_py_whitespace_is_what_str_isspace_accepts():
    spaces = {chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF and chr(c).isspace()}
    assert len(set(PY_WHITESPACE)) == len(PY_WHITESPACE) and set(PY_WHITESPACE) == spaces


@pytest.mark.parametrize("source", [
    "{{ 'CORRECT' if row['Error Flag'] == '0' else row['Error Flag'] ~ ' ' ~ row.b }}",
    "{% if a and a | trim %}{{ a | trim | lower }}{% elif b >= c %}{{ b | upper }}{% else %}-{% endif %}",
    "{{ a ~ b }}", "{{ (a ~ '!') if not c else c }}", "{{ a if a < b or a != 'x' else b }}",
])
def test_the_batch_path_takes_a_clean_batch_whole(source):
    """Without nulls, guarded or non-ASCII texts, no row is left to the row path (so the properties above do test
    the batch path's texts), and each text is the row path's; large_string columns too."""
    for kind in (pa.string(), pa.large_string()):
        table = pa.table({name: pa.array([" x ", "Ab", "", "0"], kind) for name in COLUMNS})
        template = InputTemplate(source, "w")
        texts, unsure = template.render_table(table)
        assert not len(unsure)
        assert texts.to_pylist() == [template.render_row(row) for row in _rows(template, table)]


def test_the_batch_path_leaves_to_the_row_path_what_it_is_not_sure_of():
    """A null, a short text with `{` or `%` (characters, not bytes, count), non-ASCII text under a case filter,
    and a value past the cap, also where `x | trim` is only tested."""
    guarded, unguarded = "é" * (GUARD_CHARS - 2) + "%", "x" * (GUARD_CHARS - 1) + "%"
    table = pa.table({"a": [" x ", None, "{0:09999999d}", "ß", "y" * 30, guarded, unguarded]})
    template = InputTemplate("{{ a | upper }}", "w")
    texts, unsure = template.render_table(table)
    assert unsure.tolist() == [1, 2, 3, 5]
    assert [texts[i].as_py() for i in (0, 4, 6)] == [" X ", "Y" * 30, unguarded.upper()]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "MAX_OUTPUT_CHARS", 20)
        capped = InputTemplate("{% if a | trim %}1{% endif %}", "w")
        # 4 and 6: their trimmed texts are past the cap
        assert capped.render_table(table)[1].tolist() == [1, 2, 4, 5, 6]
        with pytest.raises(TemplateFailure, match="row 6: filter 'a | trim' failed: template builds a value longer"):
            FilterExpression("a | trim", "the rows", "w").keep(table.take([0, 4]), "test", 5)


@pytest.mark.parametrize("form", ["fresh", "sliced", "shifted"])
@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
def test_arrays_whose_offsets_start_past_zero_get_the_row_paths_text(kind, form):
    """pyarrow's ascii_lower/ascii_upper misread a string array whose offsets start past 0 (a cast of a sliced
    large_string gives one): the case filters must still give the row path's text."""
    values = ["Ab", "x Y", "", "CORRECT"]
    table = pa.table({"a": _array(values, kind, form), "b": _array(values[::-1], kind, form)})
    assert table.column("a").to_pylist() == values
    for source in ["{{ a | lower }}", "{{ a | upper ~ b | lower }}", "{{ (a | trim) | upper }}",
                   "{{ b if a | lower else a | upper }}"]:
        template = InputTemplate(source, "w")
        texts, unsure = template.render_table(table)
        assert (not len(unsure) and texts.to_pylist() == [template.render_row(row)
                                                          for row in _rows(template, table)]), source


def test_constants_joined_past_the_cap_take_the_row_path():
    """The closures refuse `~` past the cap, while jinja folds constants (the analysis folds most of them in the
    tree already, not a test's): where a template joins constants past the cap, the row path decides."""
    table = pa.table({"a": ["CORRECTx", "y"]})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "MAX_OUTPUT_CHARS", 5)
        for source in ["{% if 'CORRECT' ~ 'x' %}1{% endif %}", "{{ 'y' if 'CORRECT' ~ 'x' else a }}",
                       "{% if a %}{% elif 'CORRECT' ~ 'x' %}1{% endif %}"]:
            assert InputTemplate(source, "w").render_table(table) is None, source
            assert _rendered(source, table, "out", True) == _rendered(source, table, "out", False), source
        assert InputTemplate("{% if 'CO' ~ 'x' %}1{% endif %}", "w").render_table(table) is not None


def test_large_string_columns_mix_with_string_ones_and_constants():
    table = pa.table({"a": pa.array(["x", None], pa.large_string()), "b": pa.array(["y", "z"], pa.string())})
    for source in ["{{ a ~ b }}", "{{ 'x' ~ a }}", "{{ a if b == 'y' else b }}", "{{ a | trim ~ b | upper }}"]:
        assert _rendered(source, table, "out", True) == _rendered(source, table, "out", False), source
        assert InputTemplate(source, "w").render_table(table)[1].tolist() == [1], source


def test_a_dict_attribute_read_as_row_dot_name_takes_the_row_path():
    """`row.items` is the dict's method in the sandbox, not the column: the batch path leaves such a template alone,
    and reads the column where the template says `row['items']`."""
    table = pa.table({"items": ["x", "y"], "keys": ["k", "l"]})
    for source in ["{{ row.items ~ '' }}", "{% if row.keys %}1{% endif %}", "{{ 'a' if row.get == 'x' else 'b' }}"]:
        assert InputTemplate(source, "w").render_table(table) is None, source
    texts, unsure = InputTemplate("{{ row['items'] ~ row['keys'] }}", "w").render_table(table)
    assert texts.to_pylist() == ["xk", "yl"] and not len(unsure)


@pytest.mark.parametrize("column", [
    pa.array([1, None, 3], pa.int64()),
    pa.array([["x"], None, []], pa.list_(pa.string())),
    pa.array(["x", None, "y"], pa.string()).dictionary_encode(),
    pa.array([None, None, None], pa.null()),
])
@pytest.mark.parametrize("source", ["{{ a ~ b }}", "{% if a %}1{% else %}{{ b | trim }}{% endif %}",
                                    "{{ row['a'] ~ row.b }}", "{{ b if a == 'x' else 'y' }}"])
def test_a_batch_whose_columns_are_not_all_text_takes_the_row_path(column, source):
    table = pa.table({"a": column, "b": [" x ", "y", None]})
    assert InputTemplate(source, "w").render_table(table) is None
    assert _rendered(source, table, "out", True) == _rendered(source, table, "out", False)
    other = pa.table({"z": column, "a": ["1", "2", "3"], "b": ["", " y", "z"]})
    assert InputTemplate(source, "w").render_table(other) is not None  # a column the template does not read


@pytest.mark.parametrize("source", ["{{ b ~ '!' }}", "{{ a ~ b }}", "{{ row['b'] | trim }}"])
def test_a_repeated_column_name_takes_the_row_path(source):
    table = pa.Table.from_arrays([pa.array(["1", "2"]), pa.array(["3", "4"]), pa.array([" x", "y "])],
                                 names=["a", "a", "b"])
    assert InputTemplate(source, "w").render_table(table) is None
    assert _rendered(source, table, "out", True) == _rendered(source, table, "out", False)
    if "a" not in source:
        assert _rendered(source, table, "out", True)[1]["out"] == [x.strip() if "trim" in source else x + "!"
                                                                   for x in [" x", "y "]]
