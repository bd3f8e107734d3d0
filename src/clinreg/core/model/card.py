"""The benchmark card: the facts a reader checks before trusting a benchmark.

Each fact is written once, with where it was read; a fact no source gives is `value: unknown` with the reason,
never a guess."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from clinreg.core.model.base import Id, NonEmpty, Strict

UNKNOWN = "unknown"
NOT_ASSESSED = "not assessed"


class Fact(Strict):
    """A card fact: a value read from a source, or `unknown` with the reason no source gives it."""

    value: NonEmpty = Field(description="The fact, or `unknown` when no source read gives it.")
    source: str | None = Field(
        None, min_length=1,
        description="Where the value was read: a paper section, a dataset card, a file at a commit. Required unless "
                    "the value is unknown.",
    )
    reason: str | None = Field(
        None, min_length=1,
        description="For `unknown`: why the value is not known, e.g. which sources were read and say nothing."
    )

    _unknown_word: ClassVar[str] = UNKNOWN

    @model_validator(mode="after")
    def _sourced_or_reasoned(self) -> "Fact":
        unknown = self.value == self._unknown_word
        if unknown and (self.reason is None or self.source is not None):
            raise ValueError(f"`value: {self._unknown_word}` takes a `reason` (why no source says) and no `source`")
        if not unknown and (self.source is None or self.reason is not None):
            raise ValueError(f"a known value takes a `source` (where it was read) and no `reason`; "
                             f"write `value: {self._unknown_word}` with a `reason` when no source says")
        return self


class FirstReleased(Fact):
    value: str = Field(
        pattern=r"^(\d{4}(-\d{2}(-\d{2})?)?|unknown)$",
        description=(
            "When it was first made public: the year of the publication that introduced the data, or, for a benchmark "
            "MedHELM introduced on private data or on data with no dated publication, the date it first appeared in "
            "HELM. `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, or `unknown`."
        ),
    )


class Status(Fact):
    value: Literal["active", "retired", "unknown"] = Field(
        description=(
            "`active` while MedHELM's current release runs the benchmark (beyond MedHELM: while its authors run or "
            "distribute it); `retired` once it no longer does; or `unknown`."
        )
    )


class Languages(Fact):
    value: Annotated[list[Annotated[str, Field(pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")]],
                     Field(min_length=1)] | Literal["unknown"] = Field(
        description="The languages of the data as BCP 47 tags (`en`, `es`), or `unknown`."
    )


class Independence(Fact):
    """Who runs the models on the benchmark, and whether outside results are accepted."""

    value: NonEmpty = Field(
        description=(
            "Who runs the models whose scores are reported (the benchmark's own team, the model developers, anyone), "
            "and whether it accepts submitted results; or `not assessed`, with the reason."
        )
    )
    _unknown_word: ClassVar[str] = NOT_ASSESSED


class CompareWith(Strict):
    id: Id = Field(description="The id of another dataset record in this registry (checked: CLR306).")
    reason: NonEmpty = Field(description="Why a reader choosing this benchmark should look at that one too, in one "
                                         "sentence.")
