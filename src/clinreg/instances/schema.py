"""The Instance record that `clinreg build` writes (schema version 2): input, gold, references, context, provenance."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

INSTANCE_SCHEMA = 2


class Gold(BaseModel):
    """What a harness scores against. Every key is always present; the ones that do not apply are null."""

    model_config = ConfigDict(extra="forbid", title="Gold")

    kind: Literal["choice", "number", "text"] = Field(
        description=(
            "`choice` for closed tasks (score the chosen option), `number` for number schemes (score against the "
            "accepted range), `text` for free-text tasks (score against the reference text)."
        )
    )
    letter: str | None = Field(description="choice: the gold letter (`A` is the first of `choices`).")
    index: int | None = Field(ge=0, description="choice: the 0-based index of the gold option in `choices`.")
    value: str | None = Field(
        description=(
            "choice: the text of the gold option; number: the gold value as the source writes it (a number, a date, "
            "or another string); text: the reference text."
        )
    )
    lower: str | None = Field(
        description=(
            "number: the lowest accepted value, as the source's range column writes it, or the bound computed from "
            "the scheme's tolerance; null when the scheme gives no range (then only `value` itself is accepted)."
        )
    )
    upper: str | None = Field(description="number: the highest accepted value, written like `lower`.")


class SourceRead(BaseModel):
    """The data an instance was read from."""

    model_config = ConfigDict(extra="forbid", title="SourceRead")

    kind: str = Field(
        description=(
            "`hub` (read from the Hugging Face hub), `mirror` (a local --data-dir folder), or, before a build has "
            "resolved it, the record's source type (`huggingface`, `github`, `local`, ...)."
        )
    )
    repo: str | None = Field(description="The hub or GitHub repository, `owner/name`, when the source has one.")
    revision: str | None = Field(
        description="The commit read from the hub, or the record's pinned revision or commit; null when unpinned."
    )
    content_sha256: str | None = Field(
        description="For a mirror folder: sha256 over its files (the same hash the lock file records)."
    )


class Provenance(BaseModel):
    """Where an instance comes from, so a result can be traced back and training corpora searched for it."""

    model_config = ConfigDict(extra="forbid", title="Provenance")

    instance_schema: Literal[2] = Field(description="Version of this instance schema.")
    record: str = Field(description="Id of the registry record (the same as `dataset`).")
    record_version: str = Field(description="The record's semver `version` when the instance was built.")
    registry_release: str | None = Field(
        description="The registry release the record was read from (`registry/releases.yaml`); null when unknown."
    )
    clinreg_version: str = Field(description="Version of clinreg that built the instance.")
    canary: str | None = Field(
        description=(
            "The registry's canary string: a fixed sentence and a GUID derived from the taxonomy id, the same in every "
            "instance and export of one registry. Search a training corpus for the GUID to detect contamination."
        )
    )
    source: SourceRead = Field(description="The data the instance was read from.")


class Instance(BaseModel):
    """One evaluation instance built from one source row (or one variant of a row) by a record's mapping."""

    model_config = ConfigDict(extra="forbid", title="Instance")

    id: str = Field(
        description=(
            "Stable id `<dataset>/<mapping>/<split>/<source_index>`, with `/<variant>` appended when the mapping "
            "builds several instances per row. It depends only on the record and the row's position, so the same "
            "pinned source always gives the same ids."
        )
    )
    dataset: str = Field(description="Id of the registry record the instance was built from.")
    mapping: str = Field(description="Id of the record's mapping (benchmark) that built the instance.")
    tasks: list[str] = Field(description="Ids of the taxonomy tasks the mapping measures.")
    split: str = Field(description="The source split the row was read from.")
    variant: str | None = Field(None, description="The mapping's variant id, or null when a row yields one instance.")
    prompt: str = Field(
        description=(
            "The mapping's `input_template` rendered on the row in a sandbox: the full text to send to a model that "
            "is shown the options in the prompt."
        )
    )
    input: str = Field(
        description=(
            "Closed tasks: the question stem, i.e. `prompt` without the lines that list the options (`A. text`), for "
            "harnesses that list `choices` themselves. Open tasks: the same as `prompt`."
        )
    )
    choices: list[str] = Field(
        description="For closed tasks, the answer options in letter order (A first); empty for open tasks."
    )
    answer: str | None = Field(
        description="Shorthand for `gold.letter`: the gold letter of a closed task; null for open tasks."
    )
    gold: Gold = Field(description="What is scored: the gold option, the accepted number range, or the reference text.")
    references: list[str] = Field(
        description=(
            "Extra reference texts from the mapping's `references` columns (e.g. MedCalc-Bench's worked explanation). "
            "Never the gold answer itself, and never to be scored as a correct answer."
        )
    )
    context: dict[str, Any] = Field(
        description="The mapping's `metadata_columns`, copied from the row: context for analysis, not for scoring."
    )
    provenance: Provenance = Field(description="Record, release, source read, clinreg version and canary.")
    source_index: int = Field(ge=0, description="0-based position of the row in its source split.")
