"""The input-template sandbox: only row columns are visible, internals are blocked, output and time are capped."""

from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from record_fixtures import build, hub_folder, record
from clinreg.core.builderrors import BuildError, RecordProblem, TemplateFailure
from clinreg.templating import sandbox as templates
from clinreg.templating.sandbox import InputTemplate


def render(source: str, **row) -> str:
    return InputTemplate(source, "t").render(row)


@pytest.mark.parametrize("source", [
    "{{ ''.__class__ }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ question.__init__.__globals__ }}",
    "{{ lipsum.__globals__ }}",
    "{{ cycler.__init__.__globals__.os }}",
    "{{ self.__init__.__globals__ }}",
    "{{ row.update({'x': 1}) }}",
    "{{ undefined_name }}",
])
def test_internals_and_unknown_names_are_blocked(source):
    with pytest.raises(TemplateFailure):
        render(source, question="q", row={"question": "q"})


@pytest.mark.parametrize("source", [
    "{{ 'x' * 10000000 }}",
    "{{ 'x' | center(1000000000) }}",
    "{{ '%0999999999d' % 1 }}",
    "{{ '{:>999999999}'.format(1) }}",
    "{{ 9 ** 99999999 }}",
    "{% for i in range(1000000000) %}{% endfor %}",
    "{% for i in range(100000) %}{{ text }}{% endfor %}",
])
def test_size_caps(source):
    with pytest.raises(TemplateFailure):
        render(source, text="y" * 100)


def test_time_cap(monkeypatch):
    monkeypatch.setattr(templates, "MAX_RENDER_SECONDS", 0.2)
    with pytest.raises(TemplateFailure, match="longer than|steps"):  # 10^8 steps: only a bound ends it
        render("{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}")


def test_row_and_plain_variables():
    assert render("{{ row['Patient Note'] }}/{{ q }}", q="Q", row={"Patient Note": "N", "q": "Q"}) == "N/Q"


def test_syntax_error_is_a_record_problem():
    with pytest.raises(RecordProblem, match="does not compile"):
        InputTemplate("{% for %}", "rec/map")


def test_build_names_row_of_failing_template(tmp_path):
    hub_folder(tmp_path, "owner/fixture", {"test": [{"question": "q", "answer": "yes"}]})
    rec = record({"input_template": "{{ question.__class__ }}",
                  "label": {"encoding": "string_set", "column": "answer", "map": {"yes": "A", "no": "B"}}})
    with pytest.raises(TemplateFailure, match=r"fixture/fixture: split 'test', row 0"):
        build(rec, tmp_path)


TOKENS = list("{}%# abc()._'\"|*-+[]0123456789") + ["{{", "}}", "{%", "%}", " for ", " in ", "range", "row",
                                                    "__class__", "endfor"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=25).map("".join))
def test_any_template_text_fails_only_with_build_errors(source):
    try:
        InputTemplate(source, "t").render({"a": "x", "row": {"a": "x"}})
    except BuildError:
        pass


# --------------------------------------------------------------------------- the plain-template fast path

_PIECES = st.one_of(
    st.sampled_from(["{{ a }}", "{{b}}", "{{- a }}", "{{ b -}}", "{{ a_1 }}", "\n", " ", "A. ",
                     "{% raw %}{{ x }}{% endraw %}", "{# note #}", "}", "{", "%", "#", "\r\n", "é—", "\t"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="{}%#"), max_size=8),
)
_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
                    st.lists(st.integers(), max_size=3),
                    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.binary(max_size=5), st.dates())


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=12), st.fixed_dictionaries({"a": _VALUES, "b": _VALUES, "a_1": _VALUES}))
def test_plain_templates_render_as_jinja_renders_them(pieces, values):
    """A template of text and `{{ name }}` only is rendered without jinja's machinery; the text must be what
    jinja gives, for any text around the names and any value a column can hold."""
    outcomes = _fast_and_jinja("".join(pieces), values)
    if outcomes is not None:
        fast, slow = outcomes
        assert isinstance(fast, str) and fast == slow


def _fast_and_jinja(source: str, values: dict):
    """What the template gives on `values` through its fast path and through jinja (the text, or the
    TemplateFailure raised); None for a source that does not compile."""
    try:
        template = InputTemplate(source, "rec: mapping 'm'")
    except RecordProblem:
        return None
    context = {**template.globals, **values}

    def outcome():
        try:
            return template.render_with_globals(context)
        except TemplateFailure as err:
            return err

    fast = outcome()
    plain, template.plain = template.plain, None
    try:
        return fast, outcome()
    finally:
        template.plain = plain


_LOOPS = st.sampled_from([
    "{% for k in a %}{{ k }}\n{% endfor %}", "{% for k in b %}- {{ k }};{% endfor %}",
    "{%- for k in a -%} {{ k }} {%- endfor %}",
    "{% for k in a.items %}{{ k }}{% endfor %}", "{% for k in b.x %}{{ k }}|{% endfor %}",
    "{% for a in a %}{{ a }}{% endfor %}",
    "{% for k in a %}{% endfor %}", "{% for k in a %}{{ k }}{{ k }}{% endfor %}{{ k }}",
])
_LOOP_VALUES = st.one_of(_VALUES, st.lists(st.one_of(st.none(), st.text(max_size=6), st.integers(), st.floats()),
                                           max_size=4),
                         st.tuples(st.text(max_size=3)),
                         st.dictionaries(st.sampled_from(["x", "items", "y"]),
                                         st.lists(st.text(max_size=4), max_size=3), max_size=3))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_PIECES, _LOOPS), max_size=8),
       st.fixed_dictionaries({"a": _LOOP_VALUES, "b": _LOOP_VALUES, "a_1": _VALUES, "k": _VALUES}))
def test_templates_with_plain_loops_render_as_jinja_renders_them(pieces, values):
    """A loop over a list column whose body is text and the item (MedHallu, PubMedQA) is rendered without
    jinja's machinery; for any value (a list, None, text, a mapping, a missing field) the text, or the error,
    must be jinja's."""
    outcomes = _fast_and_jinja("".join(pieces), values)
    if outcomes is not None:
        fast, slow = outcomes
        assert type(fast) is type(slow) and str(fast) == str(slow)


def test_the_loops_of_the_real_records_take_the_fast_path_and_render_as_jinja():
    from clinreg.core.store import load_registry
    from clinreg.templating.sandbox import _slot_text  # noqa: F401  (the fast path exists)

    reg = load_registry(None)
    looping = {}
    for ds in reg.datasets.values():
        for mapping in ds.mappings:
            if "{%" in mapping.input_template:
                looping[ds.id] = InputTemplate(mapping.input_template, ds.id)
    taken = {rid for rid, t in looping.items() if t.plain is not None}
    assert {"medhallu", "pubmed_qa"} <= taken  # n2c2's loop uses loop.index and a filter: jinja renders it
    for rid in taken:
        template = looping[rid]
        context = {**template.globals, **{name: ["first passage", "second, with é"] for name in template.variables},
                   "context": {"contexts": ["c1", "c2"], "labels": ["L"]}}
        fast = template.render_with_globals(context)
        template.plain = None
        assert fast == template.render_with_globals(context), rid


def test_the_fast_path_is_taken_only_for_text_and_names():
    assert InputTemplate("Q: {{ question }}\nA. {{ opa }}\n", "w").plain is not None
    for source in ["{{ a|upper }}", "{{ row['a'] }}", "{% if a %}x{% endif %}", "{{ a ~ b }}", "{{ 'x' }}", "{{ a.b }}",
                   "{{ self }}",  # jinja binds `self` to the template, whatever the context holds
                   "{% for k in a %}{{ loop.index }}{% endfor %}", "{% for k in a if k %}{{ k }}{% endfor %}",
                   "{% for k in a %}{{ k }}{% else %}none{% endfor %}", "{% for k in a|sort %}{{ k }}{% endfor %}",
                   "{% for k in a %}{{ k|upper }}{% endfor %}", "{% for k, v in a %}{{ k }}{% endfor %}"]:
        assert InputTemplate(source, "w").plain is None, source


def test_a_missing_name_or_an_overlong_result_still_fails_as_jinja_fails(monkeypatch):
    import clinreg.templating.sandbox as templates

    template = InputTemplate("{{ a }} and {{ b }}", "w")
    with pytest.raises(TemplateFailure, match="'b' is undefined"):
        template.render_with_globals({**template.globals, "a": 1})
    monkeypatch.setattr(templates, "MAX_OUTPUT_CHARS", 10)
    with pytest.raises(TemplateFailure, match="longer than 10 characters"):
        template.render_with_globals({**template.globals, "a": "x" * 8, "b": "y"})


def test_a_build_with_the_column_fast_path_equals_one_rendered_row_by_row(tmp_path, monkeypatch):
    """A plain template renders straight from the columns (render_columns); with it switched off, the same
    record builds the same instances through jinja, row by row (values of several types, a null, a list)."""
    rows = [{"question": "What is it?", "opa": "flu", "opb": "3", "opc": "c", "opd": "d", "cop": 1, "n": 3, "x": None,
             "l": [1, 2]},
            {"question": "Und jetzt — é?", "opa": "x", "opb": "1.5", "opc": "", "opd": "e", "cop": 0, "n": 1.5,
             "x": True, "l": []}]
    hub_folder(tmp_path, "owner/fixture", {"test": rows})
    rec = record({"input_template": "Q: {{ question }} ({{ n }}, {{ x }}, {{ l }})\nA. {{ opa }}\nB. {{ opb }}\nC. {{ "
                                    "opc }}\nD. {{ opd }}\n",
                  "choices": {"columns": ["opa", "opb", "opc", "opd"]},
                  "label": {"encoding": "index", "column": "cop", "base": 0, "count": 4}})
    fast, _ = build(rec, tmp_path)
    calls = []
    real = InputTemplate.render_columns
    monkeypatch.setattr(InputTemplate, "render_columns", lambda self, *a: calls.append(1) or None)
    monkeypatch.setattr(InputTemplate, "render_with_globals", lambda self, v, _real=InputTemplate.render_with_globals:
                        (setattr(self, "plain", None), _real(self, v))[1])
    slow, _ = build(rec, tmp_path)
    assert calls and real is not None
    assert [i.model_dump() for i in fast] == [i.model_dump() for i in slow]
    assert fast[0].prompt.startswith("Q: What is it? (3.0, None, [1, 2])\n\nA. flu\nB. 3\nC. c\nD. d\n\n")


def test_a_column_named_row_does_not_take_the_column_fast_path(tmp_path):
    """In a template context `row` is the whole row, even when a column is called `row`: the column path
    must not print that column instead."""
    hub_folder(tmp_path, "owner/fixture", {"test": [{"question": "q", "row": "a column"}]})
    rec = record({"input_template": "{{ question }}|{{ row }}",
                  "label": {"encoding": "free_text", "column": "question"}, "metric": {"name": "exact_match"}})
    (instance,), _ = build(rec, tmp_path)
    assert instance.prompt == "q|" + str({"question": "q", "row": "a column"})
