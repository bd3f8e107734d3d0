"""Where a dataset's data comes from (one source type per way of getting it), its licence and who may access it."""

from __future__ import annotations

from typing import Annotated, Literal, Union, get_args

from pydantic import Field

from clinreg.core.model.base import NonEmpty, RepoId, Strict
from clinreg.core.model.read import Read

# The `read` field of every source type, written once; each type places it among its own fields (the schemas keep
# that order).
SourceRead = Annotated[
    Read | None,
    Field(
        description=(
            "How the files become rows (`read.splits`). Required for every source except a hub repo in hub layout, "
            "which `datasets` can load by itself."
        ),
    ),
]


class Licence(Strict):
    spdx: NonEmpty = Field(
        description="An SPDX licence id such as `MIT` or `CC-BY-4.0`, or `unknown` / `other`. Both of the latter need "
                    "a `note`."
    )
    note: str | None = Field(None, description="Where the licence was read, or why it is unknown or non-standard.")


# Who may get the data, from the most to the least open; reports list and count the tiers in this order.
AccessTier = Literal["public", "gated", "private"]
ACCESS_TIERS: tuple[str, ...] = get_args(AccessTier)
RESTRICTED_TIERS: tuple[str, ...] = tuple(t for t in ACCESS_TIERS if t != "public")  # must say how to get access


class Access(Strict):
    tier: AccessTier = Field(
        description=(
            "`public`: anyone can download it. `gated`: available after registration or a data use agreement "
            "(e.g. PhysioNet credentialing). `private`: held by an institution and not distributed."
        )
    )
    instructions: str | None = Field(None, description="How to obtain access. Required for `gated` and `private`.")


class HubSource(Strict):
    type: Literal["huggingface"] = Field(description="The data is a Hugging Face hub dataset repository.")
    repo: RepoId = Field(description="The hub repo id, `owner/name`.")
    config: str | None = Field(None, description="The config (subset) name, or null for the default config.")
    splits: list[NonEmpty] = Field(min_length=1, description="The splits this record uses.")
    revision: str | None = Field(
        None, description="The pinned commit: 40 lowercase hex characters. A branch name or null draws CLR701."
    )
    revision_note: str | None = Field(None, description="Why the revision is not pinned, when it is not.")
    trust_remote_code: Literal[False] | None = Field(
        None, description="Never true: clinreg does not run dataset loading scripts. Present only to say so."
    )
    read: SourceRead = None


class GitHubSource(Strict):
    type: Literal["github"] = Field(description="The data is a set of files in a GitHub repository.")
    repo: RepoId = Field(description="`owner/name` of the GitHub repository.")
    commit: str | None = Field(None, description="The pinned commit (40 hex characters).")
    revision_note: str | None = Field(None, description="Why the commit is not pinned, when it is not.")
    paths: list[NonEmpty] = Field(min_length=1, description="The files read, relative to the repository root.")
    splits: list[NonEmpty] = Field(
        default_factory=list,
        description="Split names as a local mirror of the repository declares them (see `--data-dir`).",
    )
    config: str | None = Field(None, description="The config name in a local mirror's README, if it has several.")
    read: SourceRead = None


class UrlSource(Strict):
    type: Literal["url"] = Field(description="The data is downloaded from a URL.")
    url: NonEmpty = Field(description="An https URL.")
    note: str | None = Field(None, description="What is at the URL and how it is read.")
    read: SourceRead = None


class PhysioNetSource(Strict):
    type: Literal["physionet"] = Field(description="A credentialed PhysioNet project.")
    project: NonEmpty = Field(description="The PhysioNet project or parent database, e.g. `MIMIC-IV`.")
    url: str | None = Field(None, description="https URL of the project page or file listing.")
    files: list[NonEmpty] = Field(default_factory=list, description="The files read.")
    read: SourceRead = None


class LocalSource(Strict):
    type: Literal["local"] = Field(description="Private or institution-held files, supplied with `--data-dir`.")
    description: NonEmpty = Field(description="What the files are and who holds them.")
    files: list[NonEmpty] = Field(default_factory=list, description="Expected file names, relative to the data folder.")
    path: str | None = Field(
        None, description="A folder inside the registry root holding the files, for test fixtures. Never absolute."
    )
    read: SourceRead = None
    read_note: str | None = Field(
        None,
        description=(
            "Why there is no `read`, when the files' layout is not public (data held back by its authors): CLR711 "
            "quotes it, and the record cannot be built."
        ),
    )


Source = Annotated[
    Union[HubSource, GitHubSource, UrlSource, PhysioNetSource, LocalSource],
    Field(discriminator="type", description="Where the data comes from."),
]
