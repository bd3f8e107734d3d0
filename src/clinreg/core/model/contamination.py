"""What a record says about contamination: facts a paper or a model card states, each with its source.

Figures clinreg computes from the data (split fingerprints, duplicates and overlaps between splits) are not
written here: `clinreg overlap` writes them to a generated file beside the registry (clinreg.instances.figures).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from clinreg.core.model.base import NonEmpty, Strict


class DeclaredContamination(Strict):
    """One stated fact: which data a model (or a derived benchmark) has seen, as its source says it."""

    statement: NonEmpty = Field(
        description="What the source states, in the record's own words, e.g. that a model was tuned on the "
                    "benchmark's training split, or that the benchmark's test questions come from another one."
    )
    source: NonEmpty = Field(
        description="Where it is stated: a paper with its section or table, a model card or a dataset card, with a "
                    "URL or citation. A fact no source states is not written."
    )
    level: Literal["strong", "weak"] | None = Field(
        None,
        description=(
            "HELM's contamination levels (contamination.yaml): `strong` when the model was trained on this data or "
            "data of the same distribution as the evaluation split; `weak` when an analysis found part of the "
            "evaluation split in its training data. Leave it out when the fact concerns no model."
        ),
    )
    models: list[NonEmpty] = Field(
        default_factory=list,
        description="The models it concerns, as their makers name them (e.g. `openai/gpt-4`); empty when it is a fact "
                    "about the data itself.",
    )
    splits: list[NonEmpty] = Field(
        default_factory=list, description="The record's splits it concerns; empty for the whole record."
    )


class Contamination(Strict):
    """The record's declared contamination facts (an empty list is an honest answer: no source read states one)."""

    declared: list[DeclaredContamination] = Field(
        default_factory=list, description="Facts a paper, model card or dataset card states, each with its source."
    )
    note: str | None = Field(None, description="Which sources were read, or what a reader should know besides.")
