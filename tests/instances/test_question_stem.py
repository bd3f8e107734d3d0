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


def old_question_stem(prompt: str, options: list[str]) -> str:
    """question_stem before its line prefilter (issue 55): every prompt the fast path leaves is read line by line."""
    if not options:
        return prompt
    limit = min(len(options), len(LETTERS))
    fast = old_fast_path(prompt, options)
    if fast is not None:
        return fast
    lines = prompt.split("\n")
    kept = []
    for line in lines:
        head = line if line[:1] not in (" ", "\t") else line.lstrip()
        if len(head) >= 2 and head[1] in ".):" and 0 <= (i := ord(head[0]) - 65) < limit:
            text = " ".join(str(options[i]).split())
            if " ".join(line.split()) == (f"{head[:2]} {text}" if text else head[:2]):
                continue
        kept.append(line)
    return prompt if len(kept) == len(lines) else "\n".join(kept)


_OPTION = st.sampled_from(["x", "y", "", " x", "x\nB. y"])
_LINE = st.one_of(st.sampled_from(["A. x", "B. y", "A. x", "C. ", "Q?", "", " A. x"]), _OPTION)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_LINE, max_size=8), st.lists(_OPTION, min_size=1, max_size=3))
def test_the_fast_path_removes_what_it_removed(lines, options):
    prompt = "\n".join(lines)
    expected = old_fast_path(prompt, options)
    if expected is not None:  # where the old fast path applied, the answer is its answer
        assert question_stem(prompt, options) == expected


# Lines that list an option, or nearly: other letters, marks and leading whitespace (Unicode's too, which
# `str.lstrip` strips), and text around them.
_HEADS = st.sampled_from(["", " ", "\t", "  \t", " \u3000", "\u3000", " \x1c", "\r"])
_MARKED = st.builds(lambda head, letter, mark, rest: f"{head}{letter}{mark}{rest}", _HEADS, st.sampled_from("ABCDEZa"),
                    st.sampled_from(".):- "), st.sampled_from(["", " x", " y", "x", "  x "]))
_ANY_LINE = st.one_of(_MARKED, st.text(alphabet="AB.): x\t\u3000\r", max_size=6))


@settings(max_examples=400, deadline=None)
@given(st.lists(_ANY_LINE, max_size=6), st.lists(st.sampled_from(["x", "y", "", " x", "x "]), max_size=5))
def test_the_line_prefilter_changes_no_answer(lines, options):
    prompt = "\n".join(lines)
    assert question_stem(prompt, options) == old_question_stem(prompt, options)


def test_a_prompt_with_no_option_line_is_returned_as_it_is():
    prompt = "A 40-year-old man (see B.) presents with pain.\nWhich drug? x. y"
    assert question_stem(prompt, ["x", "y"]) is prompt
    assert question_stem("Q?\n  A.  x", ["x"]) == "Q?"
    assert question_stem("Q?\n \u3000A) x", ["x"]) == "Q?"
    # only a line opening with a space or tab is stripped
    assert question_stem("Q?\n\u3000A) x", ["x"]) == "Q?\n\u3000A) x"


def test_choice_prompts_name_their_letters():
    assert choice_prompt("Q", ["a", "b", "c"]) == f"Q\n\nA. a\nB. b\nC. c\n\n{letter_instruction(3)}"
    assert choice_prompt("Q", ["a"]).endswith("(A).")


def old_choice_prompt(stem: str, options: list[str]) -> str:
    """choice_prompt before its format strings (issue 55): the lines joined, then the instruction."""
    lines = "\n".join([f"{letter}. {option}" for letter, option in zip(LETTERS, options)])
    return f"{stem}\n\n{lines}\n\n{letter_instruction(len(options))}"


# Options as records hold them, and what a format string could misread: braces, format fields, one option, more
# options than letters.
_OPTION_TEXT = st.one_of(st.sampled_from(["{}", "{0}", "{x}", "}{", "%s", "", "a\nb"]), st.text(max_size=4))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=8), st.lists(_OPTION_TEXT, min_size=1, max_size=30))
def test_the_prompt_from_a_format_string_is_the_joined_one(stem, options):
    assert choice_prompt(stem, options) == old_choice_prompt(stem, options)
