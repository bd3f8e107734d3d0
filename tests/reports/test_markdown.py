"""Markdown escaping: any registry text stays one inert table cell."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from clinreg.reports.markdown import code, escape, in_short, url


@given(st.text())
def test_escaped_text_is_one_cell_without_markup(text):
    out = escape(text)
    assert "\n" not in out and "\r" not in out
    assert "<" not in out and ">" not in out
    assert "|" not in out.replace("\\|", "")


@given(st.text())
def test_code_spans_never_split_a_table_row(text):
    out = code(text)
    assert "\n" not in out and "|" not in out.replace("\\|", "")


@given(st.text())
def test_link_targets_cannot_close_the_link(text):
    out = url("https://example.org/" + text)
    assert not set(out) & set(" ()<>\n")


def test_in_short_lists_only_what_changed():
    assert in_short({"datasets_added": 6, "datasets_moved": 1, "tasks_renamed": 1, "tasks_added": 0}) == \
        ["6 datasets added", "1 dataset mapped to other subcategories", "1 task renamed"]
