"""The taxonomy files: the taxonomy, its categories, their subcategories and tasks."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from clinreg.core.model.base import Citation, Id, NonEmpty, Provenance, Strict
from clinreg.core.model.review import Review


class Task(Strict):
    id: Id = Field(description="snake_case id, unique across the whole taxonomy. Datasets refer to tasks by this id.")
    name: NonEmpty = Field(description="A short imperative name, e.g. `Generate differential diagnoses`.")
    definition: NonEmpty = Field(description="One or two sentences saying what the work is, for a clinician reader.")
    example: str | None = Field(None, description="A concrete example of the work, in one sentence.")
    provenance: Provenance = Field(description="Where this task comes from: a public source, or drafted by clinreg.")
    review: Review = Field(description="Clinician review status of this task.")


class ExpectedTasks(Strict):
    count: int = Field(ge=1, description="How many tasks the source gives this subcategory.")
    citation: Citation = Field(description="Where the count comes from, e.g. MedHELM's overview figure (S15).")
    note: str | None = Field(None,
                             description="How far the source can be trusted here, e.g. its date or a label it spells "
                                         "differently.")


class Subcategory(Strict):
    id: Id = Field(description="snake_case id, e.g. `supporting_diagnostic_decisions`.")
    name: NonEmpty = Field(description="The display name, exactly as MedHELM spells it.")
    definition: NonEmpty = Field(description="One to three sentences on what the subcategory covers.")
    tasks_expected: ExpectedTasks | None = Field(
        None,
        description=(
            "The number of tasks a published source gives this subcategory, with the source. A subcategory holding "
            "another number of tasks is a warning (CLR406); coverage reports show expected against held."
        ),
    )
    tasks: list[Task] = Field(default_factory=list, description="The tasks in this subcategory.")
    review: Review | None = Field(None, description="Clinician review of the subcategory's definition.")
    note: str | None = Field(None, description="Anything a reviewer should know, e.g. disputed placements.")


class Category(Strict):
    schema_: str | None = Field(None, alias="$schema", description="Optional JSON Schema reference for editors.")
    id: Id = Field(description="snake_case id of the category, e.g. `clinical_decision_support`.")
    name: NonEmpty = Field(description="The display name, exactly as MedHELM spells it.")
    definition: NonEmpty = Field(description="One to three sentences on what the category covers.")
    subcategories: list[Subcategory] = Field(min_length=1,
                                             description="The subcategories of this category, in display order.")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ReviewPolicy(Strict):
    """How a clinician panel decides an item. Without it, one reviewer's approval approves an item and two
    reviewers who disagree make it `conflicting`."""

    min_approvals: int = Field(1, ge=1,
                               description="How many reviewers' current approvals an item needs to be approved.")
    open_rejection_blocks: bool = Field(
        True,
        description=(
            "Whether a current rejection or request for changes beside the approvals leaves the item `split` "
            "(until a maintainer adjudicates with `clinreg review adjudicate`). When false, enough approvals "
            "approve the item despite it."
        ),
    )
    note: str | None = Field(None, description="Who the panel is and how it was convened.")


class Taxonomy(Strict):
    id: Id = Field(description="snake_case id of the taxonomy, e.g. `medhelm`.")
    name: NonEmpty = Field(description="Display name of the taxonomy.")
    version: str = Field(description="Semantic version of the taxonomy itself (not of the registry).")
    citation: Citation = Field(description="The publication that defines the taxonomy.")
    task_total: int | None = Field(
        None, ge=0, description="How many tasks the published taxonomy has. Coverage reports compare against it."
    )
    categories: list[Id] = Field(
        min_length=1,
        description="Category ids in display order. Each must have a file `taxonomy/<id>.yaml`.",
    )
    note: str | None = Field(None, description="Anything a reader should know about how this taxonomy was assembled.")
    review_policy: ReviewPolicy | None = Field(
        None,
        description=(
            "The clinician panel's policy: an item's review state (approved, rejected, split or awaiting more "
            "reviews) follows from it. Without it, one approval suffices."
        ),
    )
