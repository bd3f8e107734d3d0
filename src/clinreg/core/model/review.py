"""A clinician's review of a taxonomy item: its state and the history of decisions."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from clinreg.core.model.base import NonEmpty, Strict


class ReviewedContent(Strict):
    name: str = Field(description="The name as the reviewer read it.")
    definition: str = Field(description="The definition as the reviewer read it.")
    example: str | None = Field(None, description="The example as the reviewer read it (tasks only).")
    placement: str | None = Field(None,
                                  description="The subcategory id of a task, or the category id of a subcategory.")


class Reviewer(Strict):
    """One decision in the item's review history. Written by `clinreg review`, never by hand."""

    name: NonEmpty = Field(description="The reviewer's name as they want it shown.")
    orcid: str | None = Field(None, description="ORCID iD, e.g. `0000-0002-1825-0097`.")
    date: dt.date | None = Field(None, description="The date of this reviewer's decision (YYYY-MM-DD).")
    decision: Literal["approved", "rejected", "changes_requested"] | None = Field(
        None,
        description="What this reviewer decided; absent for a comment without a decision, which changes no review "
                    "state."
    )
    note: str | None = Field(None, description="The reviewer's comment.")
    content_hash: str | None = Field(
        None, description="sha256 of the name, definition, example and placement this decision covers."
    )
    reviewed: ReviewedContent | None = Field(
        None, description="The wording this decision covers, so that a later change can be shown old beside new."
    )
    adjudication: bool | None = Field(
        None,
        description=(
            "True for a maintainer's adjudication (`clinreg review adjudicate`), which closes a split item with "
            "its decision while it covers the current content; `note` is its reason. Not a reviewer's vote."
        ),
    )


class Review(Strict):
    status: Literal["proposed", "approved", "rejected", "changes_requested"] = Field(
        description=(
            "`proposed` until a clinician has reviewed the item, then the latest decision. Set by `clinreg "
            "review approve|reject|request-changes|import`, not by hand. Reports derive the item's state "
            "(approved, stale, changes requested, revised, rejected, conflicting) from `reviewers`."
        )
    )
    reviewers: list[Reviewer] = Field(
        default_factory=list,
        description="The history of decisions, oldest first. Each reviewer's latest decision counts while it covers "
                    "the current content.",
    )
    date: dt.date | None = Field(None, description="Date of the latest review decision.")
    content_hash: str | None = Field(
        None,
        description=(
            "sha256 of the item's reviewed content (name, definition, example and placement) at the latest "
            "decision. `validate` reports an approval as stale (CLR801) when the content no longer matches."
        ),
    )
