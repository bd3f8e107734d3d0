"""Templates compiled into plain Python (issue 41): conditionals, lookups, `~`, comparisons and a few filters
render without jinja; for any template and any row the text, or the error, must be the sandbox's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinreg.core.builderrors import RecordProblem, TemplateFailure
from clinreg.templating import sandbox
from clinreg.templating.compiled import MAX_NODES, NotCompiled
from clinreg.templating.sandbox import InputTemplate
from templating.templates import expressions, outcome, statements

_ATOMS = st.sampled_from([
    "a", "b", "c", "missing", "self", "row", "row['a']", "row['b']", "row['nope']", "row.a", "row.items", "row.b",
    "a.x", "a.items", "a['x']", "a[0]", "b[1]", "a[-1]", "'x'", "'1'", "''", "'NA'", "'{0:09999999d}'", "1", "0", "-1",
    "1.5", "none", "None", "true", "False", "range", "row[a]",
])
# Mostly the subset, and now and then what it leaves to jinja (the whole template then renders in the sandbox).
_UNARY = ["not {}", "({} | trim)", "({}|lower)", "({}|upper)"] * 4 + ["({} | trim(' '))", "({} | length)",
                                                                      "({} is none)",
                                                                     "{}.strip()"]
_BINARY = ["({} ~ {})", "({} == {})", "({} != {})", "({} < {})", "({} >= {})", "({} in {})", "({} not in {})",
           "({} and {})", "({} or {})", "({} ~ ' ' ~ {})", "({} == {} == 'x')"] * 3 + ["({} + {})"]


_TEXT = st.sampled_from(["", "x", " ", "\n", "A. ", "é"])


def _statements():
    return statements(expressions(_ATOMS, _UNARY, _BINARY), _TEXT)


_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(), st.floats(allow_nan=True),
    st.sampled_from(["", "1", "NA", "-1", " x ", "CORRECT", "{1234567}", "%", "a%d", "Ab"]), st.text(max_size=6),
    st.lists(st.sampled_from(["x", "1", 1, None]), max_size=3),
    st.dictionaries(st.sampled_from(["x", "items", "y"]), st.sampled_from(["v", 1, None]), max_size=3),
    st.binary(max_size=3), st.dates(),
)


def _both(source: str, values: dict):
    """(compiled outcome, sandbox outcome) for `values` as a row (each a text or the failure, as `outcome` gives),
    or None for a source that does not compile or that the subset does not cover."""
    try:
        template = InputTemplate(source, "rec: mapping 'm'")
    except RecordProblem:
        return None
    if template.compiled is None:
        return None
    context = {**template.globals, **values, "row": dict(values)}
    fast = outcome(lambda: template.render_with_globals(context))
    compiled, template.compiled = template.compiled, None
    try:
        return fast, outcome(lambda: template.render_with_globals(context))
    finally:
        template.compiled = compiled


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(_statements(), st.fixed_dictionaries({"a": _VALUE, "b": _VALUE, "c": _VALUE}))
def test_compiled_templates_give_the_sandboxs_text_or_its_error(source, values):
    outcomes = _both(source, values)
    if outcomes is not None:
        fast, slow = outcomes
        assert fast == slow, source


def test_the_subset_compiles_and_the_rest_does_not():
    for source in ["{{ a ~ b }}", "{% if a %}x{% elif b %}y{% else %}z{% endif %}",
                   "{{ row['a'] if a == '1' else 'N' }}",
                   "{{ a | trim }}", "{{ not a or b }}", "{{ a in b }}", "{{ row.a }}"]:
        assert InputTemplate(source, "w").compiled is not None, source
    for source in ["{{ a }}",  # plain: the plain path takes it
                   "{{ a + b }}", "{{ a | length }}", "{{ a | trim('x') }}", "{{ a.strip() }}", "{{ a is none }}",
                   "{% for x in a %}{{ x }}{% endfor %}", "{% set x = 1 %}{{ x }}", "{{ a if b }}", "{{ [a] }}",
                   "{{ a[1:] }}", "{{ self }}", "{% macro m() %}{% endmacro %}"]:
        assert InputTemplate(source, "w").compiled is None, source
    big = "{{ " + " ~ ".join(["a"] * MAX_NODES) + " }}"
    assert InputTemplate(big, "w").compiled is None


def test_the_real_records_render_steps_and_filters_compile_and_render_as_jinja():
    """MEDEC's reference and its filter take the compiled path on its rows, with jinja's text."""
    from clinreg.core.store import load_registry

    medec = load_registry(None).datasets["medec"]
    step = medec.source.read.splits["test"].steps[0].render.template
    keep = "{% if (" + medec.mappings[0].filters[0].keep + ") %}1{% endif %}"
    rows = [{"Error Flag": "1", "Error Sentence ID": "3", "Corrected Sentence": "Fixed.", "Sentences": " 0 a\n1 b "},
            {"Error Flag": "0", "Error Sentence ID": "-1", "Corrected Sentence": "NA", "Sentences": "   "},
            {"Error Flag": "1", "Error Sentence ID": "2", "Corrected Sentence": "NA", "Sentences": None}]
    for source in (step, keep):
        template = InputTemplate(source, "medec")
        assert template.compiled is not None, source
        for row in rows:
            context = {**template.globals, **row, "row": row}
            text = template.compiled(context)  # raises NotCompiled if it gave up
            compiled, template.compiled = template.compiled, None
            assert text == template.render_with_globals(context)
            template.compiled = compiled


def test_a_row_the_compiled_path_gives_up_on_fails_as_the_sandbox_fails(monkeypatch):
    template = InputTemplate("{{ a ~ b }}", "w")
    with pytest.raises(NotCompiled):
        template.compiled({**template.globals, "a": 1})
    with pytest.raises(TemplateFailure, match="'b' is undefined"):
        template.render_with_globals({**template.globals, "a": 1})
    monkeypatch.setattr(sandbox, "MAX_OUTPUT_CHARS", 10)
    capped = InputTemplate("{{ a ~ b }}", "w")
    with pytest.raises(TemplateFailure, match="10-character cap"):
        capped.render_with_globals({**capped.globals, "a": "x" * 8, "b": "yyy"})
    guarded = InputTemplate("{{ a | trim }}", "w")
    with pytest.raises(TemplateFailure, match="width past the output cap"):
        guarded.render_with_globals({**guarded.globals, "a": "{0:09999999d}"})


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(_statements(), st.fixed_dictionaries({"a": _VALUE, "b": _VALUE, "range": _VALUE}), st.booleans())
def test_a_row_rendered_from_its_columns_alone_is_rendered_as_in_the_full_context(source, values, has_range):
    """render_row tries a compiled template on the columns alone; a name only the full context holds (a
    sandbox global such as `range`, unless a column has its name) must give the full context's outcome."""
    try:
        template = InputTemplate(source, "w")
    except RecordProblem:
        return
    row = values if has_range else {k: v for k, v in values.items() if k != "range"}
    context = {**template.globals, **row}
    if template.uses_row:
        context["row"] = row
    fast = outcome(lambda: template.render_row(row))
    template.compiled = None
    slow = outcome(lambda: template.render_with_globals(context))
    assert fast == slow, source
