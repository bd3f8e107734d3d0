"""InputTemplate.render_columns: a template of one `{{ name }}` between two texts renders each row with one
concatenation; its texts are those of the general column path (forced by a second, empty slot), of the plain row
path and of jinja, and it gives up (None) on the same rows: one past the output cap, a value str() refuses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinreg.templating import sandbox
from clinreg.templating.sandbox import InputTemplate

# Literal text with no template syntax in it (so the source is one slot between two texts).
LITERAL = st.text(st.characters(blacklist_characters="{}%#", blacklist_categories=("Cs",)), max_size=8)
VALUE = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6)
         | st.sampled_from([0.1, -0.0, 1e16, 1e-7, float("nan"), float("inf"), "None", "é\u2028"]))


def _templates(before: str, after: str) -> tuple[InputTemplate, InputTemplate, InputTemplate]:
    """The one-slot template; the same with an empty second slot (the general path); the first through jinja."""
    one = InputTemplate(f"{before}{{{{ x }}}}{after}", "t")
    two = InputTemplate(f"{before}{{{{ x }}}}{after}{{{{ empty }}}}", "t")
    jinja = InputTemplate(f"{before}{{{{ x }}}}{after}", "t")
    assert len(one.plain[1]) == 1 and len(two.plain[1]) == 2
    jinja.plain = None  # render_with_globals then renders in the sandbox (compiled is None for a plain template)
    return one, two, jinja


def _general(two: InputTemplate, values: list, n: int):
    return two.render_columns(["x", "empty"], [values, [""] * len(values)], n)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(LITERAL, LITERAL, st.lists(VALUE, max_size=12), st.data())
def test_one_slot_rows_are_the_general_paths_and_jinjas(before, after, values, data):
    n = data.draw(st.integers(0, len(values)))
    one, two, jinja = _templates(before, after)
    fast = one.render_columns(["other", "x"], [[1] * len(values), values], n)
    assert fast == _general(two, values, n)
    assert fast == [one.render_with_globals({**one.globals, "x": v}) for v in values[:n]]
    assert fast == [jinja.render_with_globals({**jinja.globals, "x": v}) for v in values[:n]]


@pytest.mark.parametrize("lengths, fits", [
    ([5, 20 - 4], True),  # "<<" + 16 characters + ">>" is exactly the cap
    ([20 - 3, 0], False), ([0, 20 - 3], False),  # one row one character past it: the whole batch gives up
    ([], True),
])
def test_a_row_past_the_output_cap_gives_up_the_batch(monkeypatch, lengths, fits):
    monkeypatch.setattr(sandbox, "MAX_OUTPUT_CHARS", 20)
    one, two, _ = _templates("<<", ">>")
    values = ["v" * k for k in lengths]
    fast = one.render_columns(["x"], [values], len(values))
    assert fast == _general(two, values, len(values))
    assert fast == ([f"<<{v}>>" for v in values] if fits else None)


def test_a_value_str_refuses_gives_up_the_batch():
    class Odd:
        def __str__(self):
            raise ValueError("no text for this")

    one, two, _ = _templates("a", "b")
    values = ["x", Odd()]
    assert one.render_columns(["x"], [values], 2) is None
    assert _general(two, values, 2) is None


def test_a_slot_that_is_not_a_column_or_is_row_gives_up():
    one, _, _ = _templates("a", "b")
    assert one.render_columns(["y"], [["v"]], 1) is None
    row = InputTemplate("a{{ row }}b", "t")
    assert row.render_columns(["row"], [["v"]], 1) is None
