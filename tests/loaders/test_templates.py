"""The input-template sandbox: only row columns are visible, internals are blocked, output and time are capped."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loader_fixtures import build, hub_folder, record
from clinreg.loaders import templates
from clinreg.loaders.errors import BuildError, RecordProblem, TemplateFailure
from clinreg.loaders.templates import InputTemplate


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
    started = time.perf_counter()
    with pytest.raises(TemplateFailure, match="longer than|steps"):
        render("{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}")
    assert time.perf_counter() - started < 5


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


TOKENS = list("{}%# abc()._'\"|*-+[]0123456789") + ["{{", "}}", "{%", "%}", " for ", " in ", "range", "row", "__class__", "endfor"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=25).map("".join))
def test_any_template_text_fails_only_with_build_errors(source):
    try:
        InputTemplate(source, "t").render({"a": "x", "row": {"a": "x"}})
    except BuildError:
        pass
