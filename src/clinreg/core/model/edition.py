"""MedHELM's editions as data (`registry/medhelm_editions.yaml`): each benchmark set MedHELM published or shipped,
with its source and date. A record's MedHELM membership follows from these, never from the record itself."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from clinreg.core.model.base import Id, NonEmpty, Strict
from clinreg.core.model.scoring import PublishedAgreement

EDITION_ID_PATTERN = r"^[a-z0-9][a-z0-9]*([.-][a-z0-9]+)*$"


class EditionSource(Strict):
    """Where an edition's benchmark list was read."""

    kind: Literal["paper", "repository", "package"] = Field(
        description="`paper`: a publication; `repository`: a source tree at a commit; `package`: a released package."
    )
    name: NonEmpty = Field(
        description="The paper (e.g. `arXiv 2505.23802`), the repository (`owner/name`) or the package (PyPI name)."
    )
    version: str | None = Field(None, description="For `package`: the version read, e.g. `0.8.0`.")
    commit: str | None = Field(None, pattern=r"^[0-9a-f]{7,40}$", description="For `repository`: the commit read.")
    path: str | None = Field(None,
                             description="The file the benchmark list was read from, inside the repository or package.")
    branch: str | None = Field(
        None, description="For `repository`: the branch the commit was read on, e.g. `main` (an unreleased edition)."
    )
    url: str | None = Field(None, description="Where the source can be found, e.g. the paper's page.")
    note: str | None = Field(None, description="How the list was read, and what was not checked.")

    @model_validator(mode="after")
    def _pinned(self) -> "EditionSource":
        if self.kind == "package" and not self.version:
            raise ValueError("a package source needs `version`")
        if self.kind == "repository" and not self.commit:
            raise ValueError("a repository source needs `commit`")
        return self


class Edition(Strict):
    """One MedHELM edition: a benchmark set as one source gives it."""

    id: str = Field(pattern=EDITION_ID_PATTERN,
                    description="Lower case, digits, dots and hyphens, e.g. `medhelm-0.8.0`.")
    title: NonEmpty = Field(description="What the edition is, in a line.")
    description: NonEmpty = Field(description="What the edition is and how it differs from the one before.")
    source: EditionSource
    date: dt.date = Field(description="When the edition was published or its source was dated (YYYY-MM-DD).")
    status: Literal["released", "unreleased"] = Field(
        "released",
        description=(
            "`released`: MedHELM published or shipped this set (a paper, a leaderboard, a package). `unreleased`: "
            "a commit of a development branch that no release holds yet. An unreleased edition is never the "
            "default, never counted as MedHELM's published set, and every card naming it says it is unreleased."
        ),
    )
    benchmarks: list[Id] = Field(min_length=1, description="Dataset ids of the registry that the edition runs.")
    notes: list[str] = Field(default_factory=list, description="Caveats and open questions.")

    @model_validator(mode="after")
    def _unreleased_is_a_commit(self) -> "Edition":
        if self.status == "unreleased" and (self.source.kind != "repository" or not self.source.branch):
            raise ValueError("an unreleased edition is a commit of a branch: give `source.kind: repository` with "
                             "`commit` and `branch`")
        return self

    @property
    def released(self) -> bool:
        return self.status == "released"

    @property
    def where(self) -> str:
        """Where the edition was read, in a few words: `medhelm 0.8.0`, `stanford-crfm/helm at 63754d05`."""
        source = self.source
        return source.name + (f" {source.version}" if source.version else "") + (
            f" at {source.commit[:8]}" if source.commit else "")

    @property
    def unreleased_words(self) -> str | None:
        """What every view says of a benchmark this unreleased edition holds; None for a released edition."""
        if self.released:
            return None
        return (f"on {self.source.name}'s {self.source.branch} branch at {(self.source.commit or '')[:8]}, "
                "not in a released edition")


class MedhelmEditions(Strict):
    """The file registry/medhelm_editions.yaml."""

    schema_: str | None = Field(None, alias="$schema", description="Optional JSON Schema reference for editors.")
    default: str = Field(
        description=(
            "The edition that \"in MedHELM\" means when no edition is named: what `--medhelm-only` keeps and what "
            "the \"not in MedHELM\" marks say."
        )
    )
    editions: list[Edition] = Field(min_length=1, description="The editions, oldest first.")
    jury_agreement: PublishedAgreement | None = Field(
        None, description="What MedHELM reports of how far its LLM-jury method agrees with clinicians, with its source."
    )

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def get(self, edition_id: str) -> Edition | None:
        return next((e for e in self.editions if e.id == edition_id), None)

    @property
    def default_edition(self) -> Edition | None:
        return self.get(self.default)

    def editions_of(self, dataset_id: str, *, unreleased: bool = False) -> list[Edition]:
        """The released editions that run a benchmark, oldest first (with `unreleased`, the unreleased ones)."""
        return [e for e in self.editions if dataset_id in e.benchmarks and e.released != unreleased]

    def only_unreleased(self, dataset_id: str) -> list[Edition]:
        """For a benchmark that no released edition runs, the unreleased editions that do (what its card must say:
        not in a released edition); empty for a benchmark MedHELM has published."""
        return [] if self.editions_of(dataset_id) else self.editions_of(dataset_id, unreleased=True)

    @property
    def newest_released(self) -> Edition | None:
        """The newest released edition (the editions are listed oldest first)."""
        return next((e for e in reversed(self.editions) if e.released), None)
