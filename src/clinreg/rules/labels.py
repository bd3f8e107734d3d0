"""Label-convention rules: each mapping's label scheme is total, one-to-one, contiguous from A and fits its choices."""

from __future__ import annotations

import re
from typing import Iterable

from clinreg.core.diagnostics import Diagnostic
from clinreg.core.model import (
    LETTERS, FreeTextScheme, IndexScheme, LetterScheme, MappedScheme, NumberScheme, OptionIdScheme,
)
from clinreg.core.store import SourceFile
from clinreg.rules.base import rule
from clinreg.rules.context import Context


def _mappings(ctx: Context) -> list[tuple[SourceFile, tuple, object]]:
    """Every mapping with its file and path; listed once per run for the seven rules that walk them."""
    return ctx.mappings


def closed_letters(scheme) -> list[str] | None:
    """The canonical output letters of a closed scheme, in order; None for open schemes."""
    if isinstance(scheme, LetterScheme):
        return list(scheme.letters)
    if isinstance(scheme, IndexScheme):
        return list(LETTERS[: scheme.count])
    if isinstance(scheme, OptionIdScheme):
        return list(LETTERS[: scheme.max_options])
    if isinstance(scheme, MappedScheme):
        return sorted(set(scheme.map.values()))
    return None


@rule("CLR501")
def label_map(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, m in _mappings(ctx):
        s = m.label
        if not isinstance(s, MappedScheme):
            continue
        by_letter: dict[str, str] = {}
        for key, letter in s.map.items():
            if letter in by_letter:
                yield ctx.at("CLR501", sf, path + ("label", "map", key),
                             f"source values {by_letter[letter]!r} and {key!r} both map to {letter}; the map must be "
                             "one-to-one")
            by_letter.setdefault(letter, key)
        for j, value in enumerate(s.unlabeled):
            if value in s.map:
                yield ctx.at("CLR501", sf, path + ("label", "unlabeled", j),
                             f"{value!r} is both an unlabeled marker and a mapped label")
        for j, variant in enumerate(m.variants):
            if variant.label is not None and variant.label not in s.map:
                yield ctx.at("CLR501", sf, path + ("variants", j, "label"),
                             f"variant label {variant.label!r} is not a key of the label map",
                             "use one of: " + ", ".join(s.map))


@rule("CLR502")
def letters_contiguous(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, m in _mappings(ctx):
        s = m.label
        if isinstance(s, LetterScheme):
            expected = list(LETTERS[: len(s.letters)])
            if list(s.letters) != expected:
                yield ctx.at("CLR502", sf, path + ("label", "letters"), f"letters {s.letters} should be {expected}")
        elif isinstance(s, MappedScheme):
            letters = sorted(set(s.map.values()))
            expected = list(LETTERS[: len(letters)])
            if letters != expected:
                yield ctx.at("CLR502", sf, path + ("label", "map"),
                             f"the map's letters {letters} do not run contiguously from A (expected {expected})")


@rule("CLR503")
def binary_positive(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, m in _mappings(ctx):
        s = m.label
        if isinstance(s, MappedScheme):
            values = list(s.map)
        elif isinstance(s, (LetterScheme, IndexScheme)):
            values = closed_letters(s) or []
        else:
            continue
        positive = getattr(s, "positive", None)
        if positive is None:
            if len(values) == 2:
                yield ctx.at("CLR503", sf, path + ("label",),
                             "a two-valued label scheme must name its `positive` value",
                             f"add `positive: \"{values[-1]}\"` (or whichever value is the positive class)")
        elif positive not in values:
            yield ctx.at("CLR503", sf, path + ("label", "positive"), f"positive {positive!r} is not one of {values}")


@rule("CLR504")
def unlabeled_marker(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, m in _mappings(ctx):
        s = m.label
        if isinstance(s, IndexScheme) and s.unlabeled is not None and s.base <= s.unlabeled < s.base + s.count:
            yield ctx.at("CLR504", sf, path + ("label", "unlabeled"),
                         f"unlabeled marker {s.unlabeled} is a valid index ({s.base}..{s.base + s.count - 1})")


@rule("CLR505")
def choices_fit(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, m in _mappings(ctx):
        letters = closed_letters(m.label)
        c = m.choices
        if letters is None:
            if c is not None:
                yield ctx.at("CLR505", sf, path + ("choices",), f"a {m.label.encoding} scheme takes no choices")
            continue
        if c is None:
            yield ctx.at("CLR505", sf, path + ("label",), f"a closed {m.label.encoding} scheme needs `choices`")
            continue
        given = [k for k in ("columns", "struct", "items", "fixed") if getattr(c, k) is not None]
        if len(given) != 1:
            yield ctx.at("CLR505", sf, path + ("choices",),
                         f"give exactly one of columns, struct, items or fixed (found {given or 'none'})")
            continue
        kind = given[0]
        listed = c.columns if kind == "columns" else c.fixed if kind == "fixed" else None
        if listed is not None and len(listed) != len(letters):
            yield ctx.at("CLR505", sf, path + ("choices", kind),
                         f"{len(listed)} choices for {len(letters)} letters ({', '.join(letters)})")
        if isinstance(m.label, OptionIdScheme) and (kind != "items" or not c.id_key):
            yield ctx.at("CLR505", sf, path + ("choices",),
                         "an option_id scheme needs `items` choices with an `id_key`")


@rule("CLR506")
def number_tolerance(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, m in _mappings(ctx):
        s = m.label
        if not isinstance(s, NumberScheme):
            continue
        has_range = s.lower_column is not None and s.upper_column is not None
        half_range = (s.lower_column is None) != (s.upper_column is None)
        has_tol = s.absolute_tolerance is not None or s.relative_tolerance is not None
        if half_range or not (has_range or has_tol):
            yield ctx.at("CLR506", sf, path + ("label",),
                         "give both lower_column and upper_column, or absolute_tolerance / relative_tolerance")


@rule("CLR507")
def variants_scheme(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, m in _mappings(ctx):
        column = getattr(m.label, "column", None)
        for j, variant in enumerate(m.variants):
            if variant.label is not None and not isinstance(m.label, MappedScheme):
                yield ctx.at("CLR507", sf, path + ("variants", j, "label"),
                             f"a variant label needs a string_set, coded or boolean scheme, not {m.label.encoding}")
            elif variant.label is None and column is None:
                yield ctx.at("CLR507", sf, path + ("variants", j),
                             f"variant {variant.id!r} gives no `label` and the scheme has no `column` to read it from")
        if column is None and not m.variants:
            yield ctx.at("CLR507", sf, path + ("label",),
                         "the label scheme needs a `column` (only variants with labels can do without)")


# Words that ask for an answer in a format: "Answer with the letter", "Reply with the single digit", "Answer A for
# yes", "Answer yes, no or maybe". "Answer:" (a label before a given answer, as in MedHallu) is not one.
ANSWER_INSTRUCTION = re.compile(
    r"\b(?:answer|reply|respond)\s+(?:with|using|only|by|in)\b|\banswer\s+[A-Z]\s+(?:for|if)\b|\banswer\s+yes\b"
    r"|\bsingle\s+(?:letter|digit)\b",
    re.IGNORECASE,
)


@rule("CLR508")
def closed_without_instruction(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, m in _mappings(ctx):
        if closed_letters(m.label) is None:
            continue
        if m.instruction is not None:
            yield ctx.at("CLR508", sf, path + ("instruction",),
                         "a closed task takes no instruction: each export asks for a letter in its own way")
        found = ANSWER_INSTRUCTION.search(m.input_template)
        if found:
            line = m.input_template[: found.start()].count("\n")
            text = m.input_template.splitlines()[line].strip()
            yield ctx.at("CLR508", sf, path + ("input_template",),
                         f"the question carries an answer instruction ({text[:80]!r}); leave it out, each export adds "
                         "one")


@rule("CLR510")
def free_text_scored(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, m in _mappings(ctx):
        if isinstance(m.label, FreeTextScheme) and m.scoring is None:
            what = "a free-text mapping without `scoring` is exported with a token-overlap stand-in only"
            if m.scoring_note:
                yield ctx.at("CLR510", sf, path + ("label",),
                             f"{what} (record says: {' '.join(m.scoring_note.split())})")
            else:
                yield ctx.at("CLR510", sf, path + ("label",), f"{what}; declare jury, sql_execution, code_set_f1, "
                             "error_flag or rubric, or say in `scoring_note` why none of them fits")


@rule("CLR509")
def free_text_scoring(ctx: Context) -> Iterable[Diagnostic]:
    for sf, path, m in _mappings(ctx):
        free = isinstance(m.label, FreeTextScheme)
        if m.scoring is None:
            continue
        if not free:
            yield ctx.at("CLR509", sf, path + ("scoring",),
                         f"a {m.label.encoding} mapping takes no scoring: each export scores it itself")
            continue
        rubric = m.scoring.rubric
        if rubric is not None:
            if rubric.column not in (m.metadata_columns or []):
                yield ctx.at("CLR509", sf, path + ("scoring", "rubric", "column"),
                             f"the rubric column {rubric.column!r} must be one of metadata_columns, so each instance "
                             "carries it")
            if m.metric.range is None or [float(v) for v in m.metric.range] != [0.0, 1.0]:
                yield ctx.at("CLR509", sf, path + ("metric", "range"),
                             "a rubric score is a mean clipped to [0, 1]; give metric.range [0, 1]")
        jury = m.scoring.jury
        if jury is None:
            continue
        low, high = jury.scale
        if low >= high:
            yield ctx.at("CLR509", sf, path + ("scoring", "jury", "scale"), f"the scale [{low}, {high}] must rise")
        elif m.metric.range is None or [float(v) for v in m.metric.range] != [float(low), float(high)]:
            yield ctx.at("CLR509", sf, path + ("metric", "range"),
                         f"a jury score lies on the jury's scale [{low}, {high}]; give metric.range [{low}, {high}]")
        for field, items in (("axes", jury.axes), ("judges", jury.judges)):
            seen: set[str] = set()
            for j, item in enumerate(items):
                key = item.id if field == "axes" else item.name
                if key in seen:
                    yield ctx.at("CLR509", sf, path + ("scoring", "jury", field, j),
                                 f"{key!r} is named twice in the jury's {field}")
                seen.add(key)
