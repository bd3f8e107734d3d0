"""The base of every registry type (`Strict`), the id and version patterns, and the provenance of an item."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

ID_PATTERN = r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$"
SEMVER_PATTERN = (
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# Ids are checked by the identity rules (CLR202) rather than by a schema pattern, so that a bad id gets
# a rule code, a hint and a location instead of a generic "string does not match" error.
Id = Annotated[str, Field(min_length=1, max_length=120, pattern=ID_PATTERN,
                          description="A stable snake_case identifier.")]
NonEmpty = Annotated[str, Field(min_length=1)]
# `owner/name` (or a bare legacy hub name): one path component each, so a repo id can never name `..` or `/`.
RepoId = Annotated[str, Field(pattern=r"^([A-Za-z0-9][A-Za-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=200)]


class Strict(BaseModel):
    """Base for every registry type: unknown keys are errors, so typos never pass silently."""

    # allow_inf_nan=False: `.nan` and `.inf` are YAML floats but no bound, tolerance or range means them, and
    # strict JSON cannot hold them.
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False, populate_by_name=False, allow_inf_nan=False)


class Citation(Strict):
    text: NonEmpty = Field(
        description="A human-readable reference: authors, year, title or venue, as a reader would cite it."
    )
    doi: str | None = Field(None,
                            description="DOI without the https://doi.org/ prefix, e.g. `10.1038/s41591-025-04151-2`.")
    arxiv: str | None = Field(None, description="arXiv identifier, e.g. `2505.23802`.")
    url: str | None = Field(None, description="An https URL for the reference, when it has no DOI or arXiv id.")


class Provenance(Strict):
    kind: Literal["published", "derived", "drafted"] = Field(
        description=(
            "`published` when a public source names the task (quote the name in `quote`, cite the source); "
            "`derived` when the clinreg maintainers worded the task from a benchmark's description (list the "
            "benchmarks in `benchmarks` and cite where the description is published); `drafted` when the "
            "maintainers wrote it to fill a gap in the public record. Derived and drafted wording is ours, "
            "and needs the same clinical scrutiny."
        )
    )
    citation: Citation | None = Field(None,
                                      description="Where the item comes from. Required for `published` and `derived`.")
    quote: str | None = Field(None, description="For `published`: the task's name exactly as the source writes it.")
    benchmarks: list[Id] = Field(
        default_factory=list,
        description="For `derived`: the ids of the benchmarks (dataset mappings) whose description the wording "
                    "follows.",
    )
    subcategory_assignment: Literal["inferred", "stated"] | None = Field(
        None,
        description="For a task: who placed it in its subcategory. `stated` when MedHELM itself does; `inferred` when "
                    "clinreg placed it from MedHELM's run entries and analysis code, which name no subcategory for it.",
    )
    note: str | None = Field(None, description="How the item was derived from the source, or why it was drafted.")
