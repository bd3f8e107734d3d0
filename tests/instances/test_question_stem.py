"""question_stem's fast path (issue 41: one replace per option instead of searching first) gives the old answers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from clinreg.core.model import LETTERS
from clinreg.instances.batch import choice_prompt, letter_instruction, question_stem


def old_fast_path(prompt: str, options: list[str]) -> str | None:
    wrapped = f"\n{prompt}\n"
    for i in range(min(len(options), len(LETTERS))):
        needle = f"\n{LETTERS[i]}. {options[i]}\n"
        if needle not in wrapped:
            return None
        while needle in wrapped:
            wrapped = wrapped.replace(needle, "\n")
    return wrapped[1:-1]


_OPTION = st.sampled_from(["x", "y", "", " x", "x\nB. y"])
_LINE = st.one_of(st.sampled_from(["A. x", "B. y", "A. x", "C. ", "Q?", "", " A. x"]), _OPTION)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_LINE, max_size=8), st.lists(_OPTION, min_size=1, max_size=3))
def test_the_fast_path_removes_what_it_removed(lines, options):
    prompt = "\n".join(lines)
    expected = old_fast_path(prompt, options)
    if expected is not None:  # where the old fast path applied, the answer is its answer
        assert question_stem(prompt, options) == expected


def test_choice_prompts_name_their_letters():
    assert choice_prompt("Q", ["a", "b", "c"]) == f"Q\n\nA. a\nB. b\nC. c\n\n{letter_instruction(3)}"
    assert choice_prompt("Q", ["a"]).endswith("(A).")
