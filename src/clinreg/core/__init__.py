"""The registry's core: the data model, reading files with locations (`store`; a release or git ref: `gitref`),
diagnostics, the catalogue of codes and the build errors as data (`builderrors`).

Imports from here point only to clinreg.text, clinreg.errors and the standard library (and pydantic and pyyaml)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.core.builderrors import (
        BadLabel, BuildError, ColumnMissing, GoldLeak, JoinFailure, RecordProblem, SlowPattern, SourceUnavailable,
        SplitMissing, TemplateDoesNotCompile, TemplateFailure, one_line,
    )
    from clinreg.core.codes import CODES
    from clinreg.core.diagnostics import (
        RENDERERS, Diagnostic, Report, Summary, from_error, github_line, make, render_json, render_text,
    )
    from clinreg.core.gitref import open_side
    from clinreg.core.model import (
        ACCESS_TIERS, ID_PATTERN, LETTERS, RESTRICTED_TIERS, Access, Category, Choices, Citation, Dataset, Edition,
        ExtractStep, FreeTextScheme, GitHubSource, HubSource, IndexScheme, JoinListStep, JoinStep, LetterScheme,
        LocalSource, MappedScheme, Mapping, MedhelmEditions, Metric, NumberScheme, OptionIdScheme, PhysioNetSource,
        PickStep, ReleaseHistory, RemoveStep, Review, Step, Subcategory, TableSpec, Task, Taxonomy, UrlSource, Variant,
    )
    from clinreg.core.paths import RootError, resolve_root
    from clinreg.core.provenance import dataset_names, plain_note
    from clinreg.core.reviewstate import (
        AWAITING, PENDING, STATES, derive_state, item_content, item_hash, policy_of, sealed, states_for, tally_words,
    )
    from clinreg.core.scalars import scan
    from clinreg.core.semver import parse_semver
    from clinreg.core.specfiles import file_patterns
    from clinreg.core.store import (
        DATASETS_DIR, EDITIONS_FILE, RELEASES_FILE, TAXONOMY_FILE, Registry, SourceFile, TaskEntry, UnknownVersion,
        follow_edition, gc_paused, load_registry,
    )
    from clinreg.core.treewalk import TreeRead, discover_files, file_kind, read_limited
    from clinreg.core.yamlsrc import parse_yaml

    from clinreg.core.reviewstate import decision_value
_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "ACCESS_TIERS": "clinreg.core.model",
    "AWAITING": "clinreg.core.reviewstate",
    "CODES": "clinreg.core.codes",
    "DATASETS_DIR": "clinreg.core.store",
    "EDITIONS_FILE": "clinreg.core.store",
    "ID_PATTERN": "clinreg.core.model",
    "LETTERS": "clinreg.core.model",
    "PENDING": "clinreg.core.reviewstate",
    "RELEASES_FILE": "clinreg.core.store",
    "RENDERERS": "clinreg.core.diagnostics",
    "RESTRICTED_TIERS": "clinreg.core.model",
    "STATES": "clinreg.core.reviewstate",
    "TAXONOMY_FILE": "clinreg.core.store",
    "Access": "clinreg.core.model",
    "BadLabel": "clinreg.core.builderrors",
    "BuildError": "clinreg.core.builderrors",
    "Category": "clinreg.core.model",
    "Choices": "clinreg.core.model",
    "Citation": "clinreg.core.model",
    "ColumnMissing": "clinreg.core.builderrors",
    "Dataset": "clinreg.core.model",
    "Diagnostic": "clinreg.core.diagnostics",
    "Edition": "clinreg.core.model",
    "ExtractStep": "clinreg.core.model",
    "FreeTextScheme": "clinreg.core.model",
    "GitHubSource": "clinreg.core.model",
    "GoldLeak": "clinreg.core.builderrors",
    "HubSource": "clinreg.core.model",
    "IndexScheme": "clinreg.core.model",
    "JoinFailure": "clinreg.core.builderrors",
    "JoinListStep": "clinreg.core.model",
    "JoinStep": "clinreg.core.model",
    "LetterScheme": "clinreg.core.model",
    "LocalSource": "clinreg.core.model",
    "MappedScheme": "clinreg.core.model",
    "Mapping": "clinreg.core.model",
    "MedhelmEditions": "clinreg.core.model",
    "Metric": "clinreg.core.model",
    "NumberScheme": "clinreg.core.model",
    "OptionIdScheme": "clinreg.core.model",
    "PhysioNetSource": "clinreg.core.model",
    "PickStep": "clinreg.core.model",
    "RecordProblem": "clinreg.core.builderrors",
    "Registry": "clinreg.core.store",
    "ReleaseHistory": "clinreg.core.model",
    "RemoveStep": "clinreg.core.model",
    "Report": "clinreg.core.diagnostics",
    "Review": "clinreg.core.model",
    "RootError": "clinreg.core.paths",
    "SlowPattern": "clinreg.core.builderrors",
    "SourceFile": "clinreg.core.store",
    "SourceUnavailable": "clinreg.core.builderrors",
    "SplitMissing": "clinreg.core.builderrors",
    "Step": "clinreg.core.model",
    "Subcategory": "clinreg.core.model",
    "Summary": "clinreg.core.diagnostics",
    "TableSpec": "clinreg.core.model",
    "Task": "clinreg.core.model",
    "TaskEntry": "clinreg.core.store",
    "Taxonomy": "clinreg.core.model",
    "TemplateDoesNotCompile": "clinreg.core.builderrors",
    "TemplateFailure": "clinreg.core.builderrors",
    "TreeRead": "clinreg.core.treewalk",
    "UnknownVersion": "clinreg.core.store",
    "UrlSource": "clinreg.core.model",
    "Variant": "clinreg.core.model",
    "dataset_names": "clinreg.core.provenance",
    "derive_state": "clinreg.core.reviewstate",
    "discover_files": "clinreg.core.treewalk",
    "file_kind": "clinreg.core.treewalk",
    "file_patterns": "clinreg.core.specfiles",
    "follow_edition": "clinreg.core.store",
    "from_error": "clinreg.core.diagnostics",
    "gc_paused": "clinreg.core.store",
    "github_line": "clinreg.core.diagnostics",
    "item_content": "clinreg.core.reviewstate",
    "item_hash": "clinreg.core.reviewstate",
    "load_registry": "clinreg.core.store",
    "make": "clinreg.core.diagnostics",
    "one_line": "clinreg.core.builderrors",
    "open_side": "clinreg.core.gitref",
    "parse_semver": "clinreg.core.semver",
    "parse_yaml": "clinreg.core.yamlsrc",
    "plain_note": "clinreg.core.provenance",
    "policy_of": "clinreg.core.reviewstate",
    "read_limited": "clinreg.core.treewalk",
    "render_json": "clinreg.core.diagnostics",
    "render_text": "clinreg.core.diagnostics",
    "resolve_root": "clinreg.core.paths",
    "scan": "clinreg.core.scalars",
    "sealed": "clinreg.core.reviewstate",
    "states_for": "clinreg.core.reviewstate",
    "tally_words": "clinreg.core.reviewstate",
    "decision_value": "clinreg.core.reviewstate",
}

__all__ = [
    "Access", "ACCESS_TIERS", "AWAITING", "BadLabel", "BuildError", "Category", "Choices", "Citation", "CODES",
    "ColumnMissing", "Dataset", "dataset_names", "DATASETS_DIR", "decision_value", "derive_state", "Diagnostic",
    "discover_files", "Edition", "EDITIONS_FILE", "ExtractStep", "file_kind", "file_patterns", "follow_edition",
    "FreeTextScheme", "from_error", "gc_paused", "github_line", "GitHubSource", "GoldLeak", "HubSource", "ID_PATTERN",
    "IndexScheme", "item_content", "item_hash", "JoinFailure", "JoinListStep", "JoinStep", "LETTERS", "LetterScheme",
    "load_registry", "LocalSource", "make", "MappedScheme", "Mapping", "MedhelmEditions", "Metric", "NumberScheme",
    "one_line", "open_side", "OptionIdScheme", "parse_semver", "parse_yaml", "PENDING", "PhysioNetSource", "PickStep",
    "plain_note", "policy_of", "read_limited", "RecordProblem", "Registry", "ReleaseHistory", "RELEASES_FILE",
    "RemoveStep", "render_json", "render_text", "RENDERERS", "Report", "resolve_root", "RESTRICTED_TIERS", "Review",
    "RootError", "scan", "sealed", "SlowPattern", "SourceFile", "SourceUnavailable", "SplitMissing", "STATES",
    "states_for", "Step", "Subcategory", "Summary", "TableSpec", "tally_words", "Task", "TaskEntry", "Taxonomy",
    "TAXONOMY_FILE", "TemplateDoesNotCompile", "TemplateFailure", "TreeRead", "UnknownVersion", "UrlSource",
    "Variant",
]

__getattr__, __dir__ = _serve(__name__, _API)
