"""The Instance record that `clinreg build` writes: one model input with its gold answer, as a pydantic type."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


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
    input: str = Field(description="The model input: the mapping's `input_template` rendered on the row in a sandbox.")
    choices: list[str] = Field(
        description="For closed tasks, the answer options in letter order (A first); empty for open tasks."
    )
    answer: str | None = Field(
        description="For closed tasks, the gold letter (`A`, `B`, ...) indexing `choices`; null for open tasks."
    )
    references: list[str] = Field(
        description=(
            "Reference texts: the gold text of an open task (free text, or the value of a number task), then the "
            "mapping's extra `references` columns. Numbers are written as the source writes them."
        )
    )
    metadata: dict[str, Any] = Field(
        description=(
            "The mapping's `metadata_columns`, copied from the row. Number tasks add `lower` and `upper`: the "
            "accepted range, as strings from the range columns, or as numbers computed from the tolerance."
        )
    )
    source_index: int = Field(ge=0, description="0-based position of the row in its source split.")
