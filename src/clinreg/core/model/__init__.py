"""Pydantic types for every registry file: the single source of truth for the YAML format and its JSON Schemas.

One module per part of the format, each importing only those before it: `base` (the `Strict` base, id and version
patterns, citation and provenance), `review`, `taxonomy`, `card` (the benchmark card's facts), `contamination` (the
facts declared about it), `read` (the read step and its row steps), `source`, `scoring`, `mapping`, `dataset`,
`release` and `edition` (MedHELM's editions). Every type is importable from here.
"""

from __future__ import annotations

from clinreg.core.model.base import (
    ID_PATTERN, LETTERS, SEMVER_PATTERN, Citation, Id, NonEmpty, Provenance, RepoId, Strict,
)
from clinreg.core.model.card import (
    NOT_ASSESSED, UNKNOWN, CompareWith, Fact, FirstReleased, Independence, Languages, Status,
)
from clinreg.core.model.contamination import Contamination, DeclaredContamination
from clinreg.core.model.dataset import Dataset
from clinreg.core.model.edition import Edition, EditionSource, MedhelmEditions
from clinreg.core.model.mapping import (
    Choices, FreeTextScheme, Generation, GoldInInputRows, IndexScheme, InstanceCounts, LabelScheme, LetterScheme,
    MappedScheme, Mapping, NumberScheme, OptionIdScheme, Variant,
)
from clinreg.core.model.read import (
    AdapterStep, Cap, DedupeStep, ExtractStep, FileFormat, Filter, JoinListStep, JoinStep, PickStep, Read, RemoveStep,
    RenderStep, SplitRead, Step, TableSpec,
)
from clinreg.core.model.release import Release, ReleaseHistory
from clinreg.core.model.review import Review, ReviewedContent, Reviewer
from clinreg.core.model.scoring import (
    Judge, Jury, JuryAxis, Metric, PublishedAgreement, Scoring, SqlDatabase, medhelm_judges,
)
from clinreg.core.model.source import (
    ACCESS_TIERS, RESTRICTED_TIERS, Access, AccessTier, GitHubSource, HubSource, Licence, LocalSource, PhysioNetSource,
    Source, SourceRead, UrlSource,
)
from clinreg.core.model.taxonomy import Category, ExpectedTasks, Subcategory, Task, Taxonomy

# File kinds: which model validates which file, and which schema file documents it.
FILE_MODELS: dict[str, type[Strict]] = {
    "taxonomy": Taxonomy,
    "category": Category,
    "dataset": Dataset,
    "releases": ReleaseHistory,
    "editions": MedhelmEditions,
}

__all__ = [
    "FILE_MODELS", "ID_PATTERN", "LETTERS", "NOT_ASSESSED", "SEMVER_PATTERN", "UNKNOWN",
    "ACCESS_TIERS", "RESTRICTED_TIERS", "AccessTier",
    "Access", "AdapterStep", "Cap", "Category", "Choices", "Citation", "CompareWith", "Contamination", "Dataset",
    "DeclaredContamination", "DedupeStep",
    "Edition", "EditionSource", "MedhelmEditions",
    "ExpectedTasks", "ExtractStep", "Fact", "FileFormat", "Filter", "FirstReleased", "FreeTextScheme", "Generation",
    "GitHubSource",
    "GoldInInputRows", "HubSource", "Id", "Independence", "IndexScheme", "InstanceCounts", "JoinListStep", "JoinStep",
    "Judge", "Jury", "JuryAxis", "LabelScheme", "Languages", "LetterScheme", "Licence", "LocalSource", "MappedScheme",
    "Mapping", "Metric", "NonEmpty", "NumberScheme", "OptionIdScheme", "PhysioNetSource", "PickStep", "Provenance",
    "PublishedAgreement",
    "Read", "Release", "ReleaseHistory", "RemoveStep", "RenderStep", "RepoId", "Review", "ReviewedContent", "Reviewer",
    "Scoring", "Source", "SourceRead", "SplitRead", "SqlDatabase", "Status", "Step", "Strict", "Subcategory",
    "TableSpec", "Task", "Taxonomy", "UrlSource", "Variant", "medhelm_judges",
]
