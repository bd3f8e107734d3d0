"""A dataset record (`registry/<id>.yaml`): the card, the source and the benchmarks built from it."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from clinreg.core.model.base import Citation, Id, NonEmpty, Strict
from clinreg.core.model.contamination import Contamination
from clinreg.core.model.card import CompareWith, Fact, FirstReleased, Independence, Languages, Status
from clinreg.core.model.mapping import Mapping
from clinreg.core.model.source import Access, Licence, Source


class Dataset(Strict):
    schema_: str | None = Field(None, alias="$schema", description="Optional JSON Schema reference for editors.")
    id: Id = Field(description="snake_case id: MedHELM's HELM run-group name, so records line up with HELM run files.")
    name: NonEmpty = Field(description="The display name.")
    version: str = Field(description="Semantic version of this record. Bump it whenever the record's content changes.")
    added_in: str = Field(description="The registry release that first included this record, e.g. `1.0.0`.")
    in_medhelm: bool = Field(
        description=(
            "true when MedHELM's default edition (registry/medhelm_editions.yaml) runs this benchmark; false for a "
            "benchmark beyond it. Views follow the editions file (any edition with `--medhelm EDITION`), and this "
            "field must agree with its default edition (CLR308). Reports mark the false ones (\"not in MedHELM\"), "
            "and every count said to be MedHELM's (the instances MedHELM evaluated, the MedHELM-only totals) sums "
            "only the true ones."
        )
    )
    removed_in: str | None = Field(None, description="The registry release that dropped this record, if any.")
    description: NonEmpty = Field(description="Two or three sentences on what the data is and what the benchmark asks.")
    measures: str | None = Field(
        None, min_length=1,
        description=(
            "What a score on this benchmark measures, in one sentence (card field). With the other card fields it "
            "is needed for a complete card: a record without them is a warning (CLR108)."
        ),
    )
    use_when: str | None = Field(
        None, min_length=1,
        description="Who should care about this benchmark and when to use it, from its source's own intended use (card "
                    "field)."
    )
    not_for: str | None = Field(
        None, min_length=1,
        description="What the benchmark should not be used for or read as, e.g. a claim it cannot support (card "
                    "field).",
    )
    languages: Languages | None = Field(None,
                                        description="The languages of the data, with where that was read (card field).")
    first_released: FirstReleased | None = Field(
        None, description="When the data or benchmark was first made public, with where that was read (card field)."
    )
    status: Status | None = Field(
        None,
        description=(
            "Whether the benchmark is still run, with where that was read (card field): for a MedHELM record, whether "
            "MedHELM still runs it; for one beyond MedHELM, whether its authors still run or distribute it."
        ),
    )
    maintainer: Fact | None = Field(
        None, description="Who publishes and maintains the data clinreg reads, with where that was read (card field)."
    )
    independence: Independence | None = Field(
        None,
        description=(
            "Who runs the models whose scores are reported and whether it accepts submissions, with the source; or "
            "`not assessed` with the reason (card field)."
        ),
    )
    compare_with: list[CompareWith] = Field(
        default_factory=list,
        description="Related benchmarks a reader should compare this one with: dataset ids in this registry, each with "
                    "a reason.",
    )
    collection: str | None = Field(
        None, description="Id of the underlying data collection, when several records share one (e.g. `mtsamples`)."
    )
    access: Access
    licence: Licence
    citation: Citation
    source: Source
    mappings: list[Mapping] = Field(min_length=1, description="The benchmarks built from this dataset.")
    notes: list[str] = Field(default_factory=list, description="Caveats, disputed facts and open questions.")
    contamination: Contamination | None = Field(
        None,
        description="Contamination facts that a paper or model card states, with their sources (shown on the card, in "
                    "`clinreg show` and in the leaderboard's comparability notes).",
    )

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
