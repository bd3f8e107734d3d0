"""The fast reader finds CLR010's cut comments on its own walk of the events: the same findings as
`cut_comments`, with and without its regex prefilter, on generated YAML."""

from __future__ import annotations

from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

from clinreg.core.yamlsrc import DEFAULT_LIMITS, comments, parse_yaml
from clinreg.core.yamlsrc.comments import _CANDIDATE, cut_comments, has_candidate
from clinreg.core.yamlsrc.fast import read_fast


def old_cut_comments(text: str) -> list:
    """cut_comments as it was: the regex decides whether the file is scanned at all."""
    with mock.patch.object(comments, "has_candidate", lambda t: bool(_CANDIDATE.search(t))):
        return cut_comments(text)


WORD = st.sampled_from(["a", "b c", "PR", "(PR", "x)", "5", "1.5", "yes", "null", "~", "2024-01-02", "[x", "#", "a#b"])
SPACE = st.sampled_from(["", " ", "  ", "\t", " \t"])
COMMENT = st.builds(lambda s, w: s + "#" + w, SPACE, st.sampled_from(["", " c", "3781", "#", " (x", "\tz"]))
PLAIN = st.builds(lambda a, s, b: a + s + b, WORD, SPACE, WORD).map(str.strip).filter(
    lambda v: v and v[0] not in "#[{&*!|>'\"%@`,?:-")
QUOTED = st.builds(lambda w, c: f'"{w} {c}"', WORD, COMMENT) | st.builds(lambda w, c: f"'{w} {c}'", WORD, COMMENT)
FLOW = st.builds(lambda a, b, c: f"[{a}, {b}]{c}", PLAIN, PLAIN, COMMENT) | st.builds(
    lambda a, c, b: f"{{k: {a}{c}\n    , j: {b}}}", PLAIN, COMMENT, PLAIN)
BLOCK = st.builds(lambda ind, a, c: f"{ind}\n  {a}{c}\n  more {a}", st.sampled_from(["|", ">-", "|+"]), PLAIN, COMMENT)
VALUE = st.one_of(
    st.builds(lambda v, c: v + c, PLAIN, st.just("") | COMMENT),
    st.builds(lambda v, c: v + c, QUOTED, st.just("") | COMMENT),
    FLOW, BLOCK,
)
KEY = st.sampled_from(["a", "b", "note", "count", "1", "yes", "null", '"q#"', "2.5"])


@st.composite
def documents(draw) -> str:
    lines = []
    for i in range(draw(st.integers(1, 6))):
        key = draw(KEY)
        if draw(st.booleans()):
            lines.append(f"{key}_{i}: {draw(VALUE)}")
        elif draw(st.booleans()):
            lines.append(f"{key}_{i}:{draw(st.just('') | COMMENT)}")
            for _ in range(draw(st.integers(1, 3))):
                lines.append(f"  - {draw(VALUE)}".replace("\n", "\n    "))
        else:
            lines.append(f"{key}_{i}:")
            lines.append(f"  {draw(KEY)}: {draw(VALUE)}".replace("\n", "\n  "))
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["# whole line", "  # indented", "", "#x #y"])))
    key = draw(KEY)
    if draw(st.booleans()):  # a key that YAML reads as a non-string, straight under the root
        lines.append(f"{key}: {draw(VALUE)}")
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return end.join(lines) + end


def assert_same(text: str) -> None:
    old = old_cut_comments(text)
    assert cut_comments(text) == old
    assert has_candidate(text) == bool(_CANDIDATE.search(text))
    fast = read_fast(text, DEFAULT_LIMITS)
    if fast is not None:
        assert fast.cut_comments == old
    doc = parse_yaml(text.encode())
    assert doc.cut_comments == (old if not doc.problems else [])


@settings(max_examples=400, deadline=None)
@given(documents())
@example("a: b #c\n")
@example("1: {b: c # d}\n")
@example("a:\n  yes: x y # z\n")
@example("a: b\r #c\n")
def test_generated_records_give_the_same_findings(text):
    assert_same(text)


@settings(max_examples=400, deadline=None)
@given(st.text(st.sampled_from("ab #\t\n\r:-[]{},'\"|>()1"), max_size=60))
def test_any_text_gives_the_same_findings(text):
    assert_same(text)


def test_a_record_without_comments_is_not_scanned():
    text = "a: b#c\nlist:\n  - one\n  - two   words\n# only a comment\n"
    assert comments.CommentScan.of(text) is None
    with mock.patch.object(comments, "_check", wraps=comments._check) as check:
        assert parse_yaml(text.encode()).cut_comments == []
        assert check.call_count == 0
        assert parse_yaml(b"a: b c  # d\nb: e\n").cut_comments == []
        assert check.call_count == 1  # the one value on a line with a comment after it
