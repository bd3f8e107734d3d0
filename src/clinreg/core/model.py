"""Pydantic types for every registry file: the single source of truth for the YAML format and its JSON Schemas."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

ID_PATTERN = r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$"
SEMVER_PATTERN = (
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# Ids are checked by the identity rules (CLR202) rather than by a schema pattern, so that a bad id gets
# a rule code, a hint and a location instead of a generic "string does not match" error.
Id = Annotated[str, Field(min_length=1, max_length=120, pattern=ID_PATTERN, description="A stable snake_case identifier.")]
NonEmpty = Annotated[str, Field(min_length=1)]
# `owner/name` (or a bare legacy hub name): one path component each, so a repo id can never name `..` or `/`.
RepoId = Annotated[str, Field(pattern=r"^([A-Za-z0-9][A-Za-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=200)]


class Strict(BaseModel):
    """Base for every registry type: unknown keys are errors, so typos never pass silently."""

    # allow_inf_nan=False: `.nan` and `.inf` are YAML floats but no bound, tolerance or range means them, and
    # strict JSON cannot hold them.
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False, populate_by_name=False, allow_inf_nan=False)


# --------------------------------------------------------------------------------------------- provenance


class Citation(Strict):
    text: NonEmpty = Field(
        description="A human-readable reference: authors, year, title or venue, as a reader would cite it."
    )
    doi: str | None = Field(None, description="DOI without the https://doi.org/ prefix, e.g. `10.1038/s41591-025-04151-2`.")
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
    citation: Citation | None = Field(None, description="Where the item comes from. Required for `published` and `derived`.")
    quote: str | None = Field(None, description="For `published`: the task's name exactly as the source writes it.")
    benchmarks: list[Id] = Field(
        default_factory=list,
        description="For `derived`: the ids of the benchmarks (dataset mappings) whose description the wording follows.",
    )
    note: str | None = Field(None, description="How the item was derived from the source, or why it was drafted.")


class ReviewedContent(Strict):
    name: str = Field(description="The name as the reviewer read it.")
    definition: str = Field(description="The definition as the reviewer read it.")
    example: str | None = Field(None, description="The example as the reviewer read it (tasks only).")
    placement: str | None = Field(None, description="The subcategory id of a task, or the category id of a subcategory.")


class Reviewer(Strict):
    """One decision in the item's review history. Written by `clinreg review`, never by hand."""

    name: NonEmpty = Field(description="The reviewer's name as they want it shown.")
    orcid: str | None = Field(None, description="ORCID iD, e.g. `0000-0002-1825-0097`.")
    date: dt.date | None = Field(None, description="The date of this reviewer's decision (YYYY-MM-DD).")
    decision: Literal["approved", "rejected", "changes_requested"] | None = Field(
        None, description="What this reviewer decided; absent for a comment without a decision, which changes no review state."
    )
    note: str | None = Field(None, description="The reviewer's comment.")
    content_hash: str | None = Field(
        None, description="sha256 of the name, definition, example and placement this decision covers."
    )
    reviewed: ReviewedContent | None = Field(
        None, description="The wording this decision covers, so that a later change can be shown old beside new."
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
        description="The history of decisions, oldest first. Each reviewer's latest decision counts while it covers the current content.",
    )
    date: dt.date | None = Field(None, description="Date of the latest review decision.")
    content_hash: str | None = Field(
        None,
        description=(
            "sha256 of the item's reviewed content (name, definition, example and placement) at the latest "
            "decision. `validate` reports an approval as stale (CLR801) when the content no longer matches."
        ),
    )


# --------------------------------------------------------------------------------------------- taxonomy


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
    note: str | None = Field(None, description="How far the source can be trusted here, e.g. its date or a label it spells differently.")


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
    subcategories: list[Subcategory] = Field(min_length=1, description="The subcategories of this category, in display order.")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


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


# --------------------------------------------------------------------------------------------- benchmark card
# The facts a reader checks before trusting a benchmark. Each fact is written once, with where it was read;
# a fact no source gives is `value: unknown` with the reason, never a guess.

UNKNOWN = "unknown"
NOT_ASSESSED = "not assessed"


class Fact(Strict):
    """A card fact: a value read from a source, or `unknown` with the reason no source gives it."""

    value: NonEmpty = Field(description="The fact, or `unknown` when no source read gives it.")
    source: str | None = Field(
        None, min_length=1,
        description="Where the value was read: a paper section, a dataset card, a file at a commit. Required unless the value is unknown.",
    )
    reason: str | None = Field(
        None, min_length=1, description="For `unknown`: why the value is not known, e.g. which sources were read and say nothing."
    )

    _unknown_word: ClassVar[str] = UNKNOWN

    @model_validator(mode="after")
    def _sourced_or_reasoned(self) -> "Fact":
        unknown = self.value == self._unknown_word
        if unknown and (self.reason is None or self.source is not None):
            raise ValueError(f"`value: {self._unknown_word}` takes a `reason` (why no source says) and no `source`")
        if not unknown and (self.source is None or self.reason is not None):
            raise ValueError(f"a known value takes a `source` (where it was read) and no `reason`; "
                             f"write `value: {self._unknown_word}` with a `reason` when no source says")
        return self


class FirstReleased(Fact):
    value: str = Field(
        pattern=r"^(\d{4}(-\d{2}(-\d{2})?)?|unknown)$",
        description=(
            "When it was first made public: the year of the publication that introduced the data, or, for a benchmark "
            "MedHELM introduced on private data or on data with no dated publication, the date it first appeared in "
            "HELM. `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, or `unknown`."
        ),
    )


class Status(Fact):
    value: Literal["active", "retired", "unknown"] = Field(
        description=(
            "`active` while MedHELM's current release runs the benchmark (beyond MedHELM: while its authors run or "
            "distribute it); `retired` once it no longer does; or `unknown`."
        )
    )


class Languages(Fact):
    value: Annotated[list[Annotated[str, Field(pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")]], Field(min_length=1)] | Literal["unknown"] = Field(
        description="The languages of the data as BCP 47 tags (`en`, `es`), or `unknown`."
    )


class Independence(Fact):
    """Who runs the models on the benchmark, and whether outside results are accepted."""

    value: NonEmpty = Field(
        description=(
            "Who runs the models whose scores are reported (the benchmark's own team, the model developers, anyone), "
            "and whether it accepts submitted results; or `not assessed`, with the reason."
        )
    )
    _unknown_word: ClassVar[str] = NOT_ASSESSED


class CompareWith(Strict):
    id: Id = Field(description="The id of another dataset record in this registry (checked: CLR306).")
    reason: NonEmpty = Field(description="Why a reader choosing this benchmark should look at that one too, in one sentence.")


# --------------------------------------------------------------------------------------------- read step
# How a source's files become rows, declared as data: the builder reads the files as they are distributed
# (a plain clone, a PhysioNet download, a private spreadsheet), then the mapping's template and label apply.

FileFormat = Literal["csv", "tsv", "json", "jsonl", "parquet", "xlsx", "feather", "arrow", "text", "lines", "xml", "docx"]


class TableSpec(Strict):
    """One table read from files inside the mirror folder."""

    files: str | list[NonEmpty] | dict[str, NonEmpty] = Field(
        description=(
            "The file(s) to read, relative to the mirror folder, in `/` form. A glob (`*.txt`) matches several "
            "files, read in name order. A `{name}` part matches one path segment (or part of one) and becomes a "
            "column of that name: `{condition}.xlsx` gives CLEAR's condition, `{subset}/test.json` MedDialog's "
            "subset. For `format: lines`, a mapping of column name to file: line N of each file is row N."
        )
    )
    format: FileFormat | None = Field(
        None,
        description=(
            "How to read the files. Inferred from the extension when omitted (`.csv`, `.csv.gz`, `.tsv`, `.json`, "
            "`.jsonl`, `.parquet`, `.xlsx`, `.feather`, `.arrow`, `.txt`, `.xml`, `.docx`). `text`: one row per "
            "file, the whole file in `text_column`. `lines`: line-aligned files (MIMIC-RRS `.tok`)."
        ),
    )
    where: dict[str, list[NonEmpty]] = Field(
        default_factory=dict,
        description="Allowed values of a `{name}` part, e.g. `{subset: [healthcaremagic, icliniq]}`; other matches are not read.",
    )
    archive: str | None = Field(
        None,
        description=(
            "A zip file inside the mirror folder (HEAD-QA's `data/head-qa-es-en-pdfs.zip`); `files` then names "
            "members inside it. Only the named members are unpacked, each checked for its path and size."
        ),
    )
    encoding: str = Field("utf-8", description="Text encoding of csv/tsv/json/jsonl/text/lines files.")
    delimiter: str | None = Field(None, min_length=1, max_length=1, description="csv: the field delimiter (`,` by default, tab for tsv).")
    sheet: str | None = Field(None, description="xlsx: the sheet to read; the first sheet when omitted.")
    records: str | None = Field(
        None,
        description=(
            "json: a dotted path to the list of records inside the file (ACI-Bench's `data`). `*` stands for every "
            "value of an object: an object keyed by id (PubMedQA's `ori_pqal.json`) is `records: \"*\"` with "
            "`key_column`; HEAD-QA's exams are `exams.*.data`, each record keeping its exam's plain fields."
        ),
    )
    key_column: str | None = Field(None, description="json with `*` in `records`: the column that receives the key of each `*`.")
    text_column: str = Field("text", description="`text` and `docx`: the column that receives the file's text.")
    rows: str | list[NonEmpty] | None = Field(
        None,
        description=(
            "xml: the elements that become rows, as an ElementTree path from the root (`TAGS/*`, `Question`), or a "
            "list of paths read in turn (n2c2: the three criteria MedHELM runs, `[TAGS/ABDOMINAL, ...]`)."
        ),
    )
    fields: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "xml: column name -> value path from the row element: `@attr` an attribute, `child/path` an element's "
            "text, `child/path@attr` its attribute, `name()` the row element's tag, `.` its text. A path starting "
            "with `/` starts at the document root. Predicates such as `Answer[@ReferenceRank='1']` select one child."
        ),
    )
    docx_table: int | None = Field(None, ge=0, description="docx: read the N-th table (header row first) instead of the paragraphs.")


class JoinStep(Strict):
    table: Id = Field(description="The name of a table in `read.tables`.")
    keys: list[NonEmpty] = Field(
        min_length=1, description="Key columns present in both tables. (Not `on`: YAML 1.1 reads an unquoted `on` as true.)"
    )
    cardinality: Literal["one_to_one", "many_to_one", "one_to_many"] = Field(
        description=(
            "`one_to_one`: each row matches exactly one row of the table. `many_to_one`: several rows may share one "
            "row of the table (MedAlign's instructions and a patient's EHR). `one_to_many`: a row may match several "
            "rows of the table; their columns are joined into one text with `separator` (DischargeMe's radiology reports)."
        )
    )
    unmatched: Literal["error", "drop", "keep"] = Field(
        "error", description="A row whose key matches nothing: an error naming the key (default), dropped and counted, or kept with empty columns."
    )
    columns: list[NonEmpty] | None = Field(
        None, description="The table's columns to bring in (all but the keys when omitted; `[]` joins only to keep or drop rows)."
    )
    suffix: str = Field(
        "_right", description="Appended to a brought-in column whose name the row already has; `\"\"` replaces the row's column."
    )
    separator: str = Field("\n\n", description="`one_to_many`: the text placed between joined values.")
    many: Literal["all", "first"] = Field(
        "all", description="`one_to_many`: join every matching row (`all`), or take only the first in file order (`first`)."
    )


class PickStep(Strict):
    column: NonEmpty = Field(description="The new column.")
    list: NonEmpty = Field(description="A column holding a list (of structs), e.g. MEDIQA's `AnswerList`.")
    where: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="Field path -> value; the first item that matches all is picked (MEDIQA: `{ReferenceRank: 1}`)."
    )
    value: str | None = Field(None, description="The field of the picked item to keep (`AnswerText`); the whole item when omitted.")


class JoinListStep(Strict):
    column: NonEmpty = Field(description="The new text column.")
    list: NonEmpty = Field(description="A column holding a list of strings (ICD-10 codes).")
    separator: str = Field(", ", description="Placed between the items.")


class ExtractStep(Strict):
    column: NonEmpty = Field(description="The text column to match.")
    patterns: list[NonEmpty] = Field(
        min_length=1,
        description=(
            "Python regular expressions with named groups; the first pattern that matches a row gives it the "
            "groups as columns (MTSamples: the note before `PLAN:` and the line after it). Rows that no pattern "
            "matches get empty columns (drop them with a filter)."
        ),
    )


class RemoveStep(Strict):
    column: NonEmpty = Field(description="The text column to clean.")
    values: list[NonEmpty] = Field(
        min_length=1, description="Columns whose text is removed wherever it occurs in `column` (DischargeMe: the target sections)."
    )
    replacement: str = Field("", description="Put in place of each removed text.")


class RenderStep(Strict):
    column: NonEmpty = Field(description="The new text column.")
    template: NonEmpty = Field(
        description=(
            "A Jinja template over the row's columns, rendered in the same sandbox as input templates, e.g. MEDEC's "
            "reference `{{ 'CORRECT' if row['Error Flag'] == '0' else row['Error Sentence ID'] ~ ' ' ~ "
            "row['Corrected Sentence'] }}`."
        )
    )


class DedupeStep(Strict):
    columns: list[NonEmpty] = Field(min_length=1, description="Columns that key a row; rows with equal keys are one row.")
    values_from: Literal["first", "last"] = Field(
        "first",
        description=(
            "Which duplicate's other columns the kept row takes. It keeps the first one's position either way; "
            "`last` reproduces a source keyed by prompt in a dictionary, where a later row's label overwrites "
            "an earlier one's (the shc_* scenarios)."
        ),
    )


class AdapterStep(Strict):
    name: Literal["meds_timeline", "marked_paragraphs"] = Field(
        description="A named adapter in `clinreg.sources.adapters`, for sources that truly need code (each documented, with its options, in `src/clinreg/sources/adapters.py`)."
    )
    options: dict[str, str | int | list[str]] = Field(default_factory=dict, description="The adapter's options, as documented for it.")


class Step(Strict):
    """One transformation of the rows; give exactly one key."""

    join: JoinStep | None = None
    pick: PickStep | None = None
    join_list: JoinListStep | None = None
    extract: ExtractStep | None = None
    remove: RemoveStep | None = None
    render: RenderStep | None = None
    dedupe: DedupeStep | None = None
    adapter: AdapterStep | None = None
    keep: NonEmpty | None = Field(
        None,
        description=(
            "Keep only the rows where this Jinja expression over the row's columns is true: the split's share of "
            "a file that holds several, e.g. `split == 'train'` on the train split and `split == 'test'` on the "
            "test split. The other rows belong to other splits and are not counted as dropped; to drop rows a "
            "benchmark leaves out, use the mapping's `filters`."
        ),
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> "Step":
        given = [name for name in type(self).model_fields if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"a step has exactly one of {', '.join(type(self).model_fields)}; this one has {len(given) or 'none'}")
        return self


class SplitRead(TableSpec):
    steps: list[Step] = Field(default_factory=list, description="Transformations applied in order after reading.")


class Read(Strict):
    """How the source's files become rows, split by split, before a mapping applies."""

    splits: dict[NonEmpty, SplitRead] = Field(
        min_length=1, description="Each split the record uses and the files it is read from. Split names are the record's own."
    )
    tables: dict[Id, TableSpec] = Field(default_factory=dict, description="Extra tables that `join` steps read (DischargeMe's targets).")


class Filter(Strict):
    keep: NonEmpty = Field(
        description=(
            "A Jinja expression over the row's columns; rows where it is false are dropped and counted in the "
            "build summary, e.g. `image is none`, `QC == 'TRUE'`, `Answer and Answer.strip()`."
        )
    )
    why: NonEmpty = Field(description="Why the benchmark drops these rows, with its source (HELM scenario, paper).")


class Cap(Strict):
    per: NonEmpty = Field(description="The column whose values form the groups (CLEAR: `condition`).")
    rows: int = Field(ge=1, description="At most this many rows per group, the first in source order.")
    why: str | None = Field(None, description="Where the cap comes from.")


# --------------------------------------------------------------------------------------------- datasets


class Licence(Strict):
    spdx: NonEmpty = Field(
        description="An SPDX licence id such as `MIT` or `CC-BY-4.0`, or `unknown` / `other`. Both of the latter need a `note`."
    )
    note: str | None = Field(None, description="Where the licence was read, or why it is unknown or non-standard.")


class Access(Strict):
    tier: Literal["public", "gated", "private"] = Field(
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
    read: Read | None = Field(
        None,
        description=(
            "How the files become rows (`read.splits`). Required for every source except a hub repo in hub layout, "
            "which `datasets` can load by itself."
        ),
    )


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
    read: Read | None = Field(
        None,
        description=(
            "How the files become rows (`read.splits`). Required for every source except a hub repo in hub layout, "
            "which `datasets` can load by itself."
        ),
    )


class UrlSource(Strict):
    type: Literal["url"] = Field(description="The data is downloaded from a URL.")
    url: NonEmpty = Field(description="An https URL.")
    note: str | None = Field(None, description="What is at the URL and how it is read.")
    read: Read | None = Field(
        None,
        description=(
            "How the files become rows (`read.splits`). Required for every source except a hub repo in hub layout, "
            "which `datasets` can load by itself."
        ),
    )


class PhysioNetSource(Strict):
    type: Literal["physionet"] = Field(description="A credentialed PhysioNet project.")
    project: NonEmpty = Field(description="The PhysioNet project or parent database, e.g. `MIMIC-IV`.")
    url: str | None = Field(None, description="https URL of the project page or file listing.")
    files: list[NonEmpty] = Field(default_factory=list, description="The files read.")
    read: Read | None = Field(
        None,
        description=(
            "How the files become rows (`read.splits`). Required for every source except a hub repo in hub layout, "
            "which `datasets` can load by itself."
        ),
    )


class LocalSource(Strict):
    type: Literal["local"] = Field(description="Private or institution-held files, supplied with `--data-dir`.")
    description: NonEmpty = Field(description="What the files are and who holds them.")
    files: list[NonEmpty] = Field(default_factory=list, description="Expected file names, relative to the data folder.")
    path: str | None = Field(
        None, description="A folder inside the registry root holding the files, for test fixtures. Never absolute."
    )
    read: Read | None = Field(
        None,
        description=(
            "How the files become rows (`read.splits`). Required for every source except a hub repo in hub layout, "
            "which `datasets` can load by itself."
        ),
    )
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


class Choices(Strict):
    """How the answer options of a closed task are read from a row. Give exactly one of the fields."""

    columns: list[NonEmpty] | None = Field(
        None, description="One column per option, in letter order, e.g. `[opa, opb, opc, opd]` for A-D."
    )
    struct: str | None = Field(
        None, description="A column holding a mapping from letter to option text, e.g. MedQA's `options: {A: ..., B: ...}`."
    )
    items: str | None = Field(
        None,
        description=(
            "A column holding a list of options: plain strings (`[\"Aspirin\", \"Heparin\"]`), or objects such as "
            "HeadQA's `answers: [{aid, atext}, ...]` with `text_key`."
        ),
    )
    text_key: str | None = Field(None, description="With `items` whose options are objects: the key of each option's text (`atext`).")
    id_key: str | None = Field(None, description="With `items`: the key of each option's id (`aid`).")
    fixed: list[NonEmpty] | None = Field(
        None, description="Option texts that are the same for every row, e.g. `[yes, no, maybe]`. May use `{{ column }}`."
    )


class LetterScheme(Strict):
    encoding: Literal["letter"] = Field(description="The gold answer is already a letter, e.g. MedQA `answer_idx: C`.")
    column: NonEmpty = Field(description="The column holding the gold letter.")
    letters: list[str] = Field(min_length=2, description="The letters the column may hold, contiguous from A.")
    positive: str | None = Field(None, description="For a binary scheme, the letter that means the positive class.")


class IndexScheme(Strict):
    encoding: Literal["index"] = Field(
        description="The gold answer is the position of the correct option, counting from `base`."
    )
    column: NonEmpty = Field(description="The column holding the index, e.g. MedMCQA `cop`.")
    base: Literal[0, 1] = Field(description="0 when the first option is 0 (hub MedMCQA), 1 when it is 1 (MedMCQA JSON).")
    count: int = Field(ge=2, le=26, description="How many options there are.")
    unlabeled: int | None = Field(
        None, description="The value that marks a row without a gold answer, e.g. `-1` in MedMCQA's test split."
    )
    positive: str | None = Field(None, description="For a binary scheme, the letter that means the positive class.")


class OptionIdScheme(Strict):
    encoding: Literal["option_id"] = Field(
        description="The gold answer is the id of one option in a list column, e.g. HeadQA `ra` matching `answers[].aid`."
    )
    column: NonEmpty = Field(description="The column holding the gold option id.")
    max_options: int = Field(ge=2, le=26, description="The largest number of options a row may have.")


class MappedScheme(Strict):
    encoding: Literal["string_set", "coded", "boolean"] = Field(
        description=(
            "`string_set`: a fixed set of strings (PubMedQA yes/no/maybe). `coded`: numeric or symbolic codes "
            "(CLEAR 1/0/2). `boolean`: true/false written as the strings in `map`."
        )
    )
    column: str | None = Field(
        None, description="The column holding the gold value. Omit it only when every variant names its `label`."
    )
    map: dict[str, str] = Field(
        min_length=2,
        description=(
            "Every source value and the letter it becomes. Keys and values are strings: quote `\"yes\"`, "
            "`\"0\"`, `\"true\"`. The map must be total and one-to-one, with letters contiguous from A."
        ),
    )
    positive: str | None = Field(None, description="For a two-value scheme, the source value that means the positive class.")
    unlabeled: list[str] = Field(default_factory=list, description="Source values that mark a row without a gold answer.")


class FreeTextScheme(Strict):
    encoding: Literal["free_text"] = Field(description="The gold answer is reference text, scored by a metric or a jury.")
    column: NonEmpty = Field(description="The column holding the reference text.")


class NumberScheme(Strict):
    encoding: Literal["number"] = Field(
        description="The gold answer is a value with an accepted range, e.g. MedCalc-Bench's lower and upper limits."
    )
    column: NonEmpty = Field(description="The column holding the gold value.")
    lower_column: str | None = Field(None, description="Column with the lowest accepted value.")
    upper_column: str | None = Field(None, description="Column with the highest accepted value.")
    absolute_tolerance: float | None = Field(None, ge=0, description="Accepted absolute error, when no range columns exist.")
    relative_tolerance: float | None = Field(None, ge=0, description="Accepted relative error, when no range columns exist.")


LabelScheme = Annotated[
    Union[LetterScheme, IndexScheme, OptionIdScheme, MappedScheme, FreeTextScheme, NumberScheme],
    Field(discriminator="encoding", description="How the source encodes the gold answer, and how it maps to outputs."),
]


class Variant(Strict):
    """One instance built from a row; used when a row yields several instances (MedHallu, DischargeMe)."""

    id: Id = Field(description="Suffix added to the instance id; templates see it as `variant`.")
    columns: dict[str, str] = Field(
        description=(
            "Names this variant gives to source columns: name -> column to read (e.g. `answer: Ground Truth`). "
            "The template sees each name, and a label scheme whose `column` is one of the names reads through it."
        )
    )
    label: str | None = Field(
        None,
        description=(
            "A fixed gold source value for every instance of this variant (MedHallu: `\"0\"` for the factual answer). "
            "Only for string_set, coded and boolean schemes; omit it to read the gold value from the scheme's column."
        ),
    )


class Metric(Strict):
    name: NonEmpty = Field(description="HELM's metric name, e.g. `exact_match`.")
    display: str | None = Field(None, description="The display name used by HELM.")
    range: list[float] | None = Field(None, min_length=2, max_length=2, description="`[min, max]` of the score.")


class Judge(Strict):
    """One member of an LLM jury."""

    name: Id = Field(description="A short name for the judge, e.g. `gpt`; each judge's ratings are kept under it.")
    model: NonEmpty = Field(description="The judge model as HELM names it, e.g. `openai/gpt-4o-2024-05-13`.")
    helm_deployment: str | None = Field(
        None, description="The HELM model deployment that serves the judge, e.g. `stanfordhealthcare/gpt-4o-2024-05-13`."
    )
    inspect_model: str | None = Field(
        None, description="The judge as Inspect AI names a model (`provider/model`), when that differs from `model`."
    )


def medhelm_judges() -> list[Judge]:
    """MedHELM's three judges (HELM's scenarios/medhelm/judges.yaml), the default of every jury."""
    return [
        Judge(name="gpt", model="openai/gpt-4o-2024-05-13", helm_deployment="stanfordhealthcare/gpt-4o-2024-05-13",
              inspect_model="openai/gpt-4o-2024-05-13"),
        Judge(name="llama", model="meta/llama-3.3-70b-instruct",
              helm_deployment="stanfordhealthcare/llama-3.3-70b-instruct",
              inspect_model="together/meta-llama/Llama-3.3-70B-Instruct-Turbo"),
        Judge(name="claude", model="anthropic/claude-3-7-sonnet-20250219",
              helm_deployment="stanfordhealthcare/claude-3-7-sonnet-20250219",
              inspect_model="anthropic/claude-3-7-sonnet-20250219"),
    ]


class JuryAxis(Strict):
    id: Id = Field(description="The axis, e.g. `accuracy`; the key the judge's JSON answer uses for it.")
    question: NonEmpty = Field(description="What the judge asks on this axis, in clinreg's words.")


class Jury(Strict):
    """How an LLM jury rates a free-text answer: who judges, on which axes, on what scale, seeing what."""

    judges: list[Judge] = Field(
        default_factory=medhelm_judges, min_length=1,
        description="The judge models. MedHELM's three (GPT-4o 2024-05-13, Llama 3.3 70B Instruct, Claude 3.7 Sonnet) when omitted.",
    )
    rubric: NonEmpty = Field(
        description=(
            "What the judge is told the task is and how to read the answer, in clinreg's own words (not HELM's "
            "prompt text). The export adds the shown texts, the axes, the scale and the JSON answer format."
        )
    )
    axes: list[JuryAxis] = Field(min_length=1, description="The axes every judge rates, e.g. accuracy, completeness and clarity.")
    scale: list[int] = Field(
        default_factory=lambda: [1, 5], min_length=2, max_length=2, description="`[lowest, highest]` rating on each axis."
    )
    aggregate: Literal["mean"] = Field(
        "mean", description="`mean`: the score is the mean of every judge's rating on every axis (3 judges x 3 axes = 9)."
    )
    shows: list[Literal["input", "response", "reference"]] = Field(
        default_factory=lambda: ["input", "response", "reference"], min_length=1,
        description="What the judge is shown: the model's input, its response and the reference answer.",
    )
    helm_annotator: str | None = Field(
        None,
        description=(
            "HELM's annotator class for this benchmark, e.g. `helm.benchmark.annotation.aci_bench_annotator.ACIBenchAnnotator`; "
            "the HELM export runs it (with HELM's rubric) so its scores are MedHELM's by construction."
        ),
    )


class SqlDatabase(Strict):
    file: NonEmpty = Field(
        description="The SQLite file, relative to the data folder (`--data-dir`), e.g. `ehr_sql/eicu.sqlite`."
    )
    source: str | None = Field(None, description="Where the file comes from (an https URL pinned to a commit).")
    time_limit_seconds: float = Field(10.0, gt=0, le=600, description="Longest time one query may run.")


class Scoring(Strict):
    """How a free-text answer is scored, as MedHELM scores it."""

    method: Literal["jury", "sql_execution", "code_set_f1", "error_flag"] = Field(
        description=(
            "`jury`: an LLM jury rates the answer (see `jury`). `sql_execution`: the predicted and the gold query run "
            "read-only against `database` and score 1 when they return the same rows (EHRSQL). `code_set_f1`: F1 "
            "of the codes in the answer against the gold codes (MIMIC-IV billing codes). `error_flag`: 1 when the "
            "answer's flag (CORRECT or a sentence number) agrees with the gold's (MEDEC)."
        )
    )
    jury: Jury | None = Field(None, description="For `jury`: the jury.")
    database: SqlDatabase | None = Field(None, description="For `sql_execution`: the database the queries run against.")
    helm_metric: str | None = Field(
        None,
        description="HELM's metric class for this benchmark, e.g. `helm.benchmark.metrics.ehr_sql_metrics.EhrSqlMetric`.",
    )

    @model_validator(mode="after")
    def _parts(self) -> "Scoring":
        if (self.method == "jury") != (self.jury is not None):
            raise ValueError("give `jury` exactly when method is jury")
        if (self.method == "sql_execution") != (self.database is not None):
            raise ValueError("give `database` exactly when method is sql_execution")
        return self


class GoldInInputRows(Strict):
    split: NonEmpty = Field(description="The split the rows are in (the record's own split name).")
    rows: list[Annotated[int, Field(ge=0)]] = Field(
        min_length=1, description="Source row numbers in that split, counting from 0, as CLR907's message names them."
    )
    why: NonEmpty = Field(description="Why these references are legitimately in their inputs (e.g. an extractive answer).")


class InstanceCounts(Strict):
    source: int | None = Field(None, ge=0, description="Rows in the source split(s).")
    evaluated: int | None = Field(None, ge=0, description="Instances MedHELM evaluated (Nature Medicine Table 1).")
    note: str | None = Field(None, description="How the counts relate, where they differ.")


class Mapping(Strict):
    id: Id = Field(description="snake_case id, unique within the record. Usually the HELM scenario name.")
    helm_names: list[NonEmpty] = Field(
        default_factory=list,
        description=(
            "Every display name this benchmark has had in HELM releases: the run group's `display_name` and "
            "`short_display_name` in each version of HELM's MedHELM schema, e.g. `[MIMIC-IV-BHC, MIMIC-BHC]` or "
            "`[CLEAR, CLEAR-AD]`. `clinreg results import` maps a leaderboard column such as `MIMIC-BHC - Jury "
            "Score` to this mapping through these names, ignoring case. Add a name when HELM renames the "
            "benchmark; never remove one, or older leaderboards stop importing. Leave it empty for a benchmark "
            "HELM does not run."
        ),
    )
    tasks: list[Id] = Field(min_length=1, description="Ids of the taxonomy tasks this benchmark measures.")
    splits: list[NonEmpty] = Field(min_length=1, description="The source splits the benchmark is built from.")
    input_template: NonEmpty = Field(
        description=(
            "A Jinja template of the question: what the model reads before any options or answer instruction. It "
            "sees only the row's columns (and variant fields). For a closed task it names no answer format: each "
            "export lists the options and asks for a letter in its harness's own way (CLR512)."
        )
    )
    instruction: str | None = Field(
        None,
        description=(
            "For number and free-text tasks: the answer instruction that follows the question in every export "
            "(e.g. `Give only the value, without units or explanation.`). Closed tasks take none: the letter "
            "instruction is written by clinreg, or by the harness's own multiple-choice template."
        ),
    )
    choices: Choices | None = Field(None, description="For closed tasks: where the answer options come from.")
    label: LabelScheme
    references: list[str] = Field(
        default_factory=list, description="Extra columns holding reference texts (besides a free-text label column)."
    )
    variants: list[Variant] = Field(default_factory=list, description="Several instances per row (e.g. MedHallu).")
    metadata_columns: list[str] = Field(default_factory=list, description="Columns copied into each instance's metadata.")
    fields_read: list[str] = Field(default_factory=list, description="Every source field the benchmark reads.")
    filters: list[Filter] = Field(default_factory=list, description="Rows the benchmark drops, as expressions the builder applies and counts.")
    cap: Cap | None = Field(None, description="At most so many rows per group (CLEAR: 100 per condition).")
    gold_in_input: str | None = Field(
        None,
        description=(
            "Why this open-ended benchmark's reference is in its input by design (NoteExtract restructures the note "
            "itself). Without it, a reference found in the input stops the build and `check-data` (CLR907). It "
            "turns the check off for every row: to exempt a few rows, use `gold_in_input_rows`."
        ),
    )
    gold_in_input_rows: list[GoldInInputRows] = Field(
        default_factory=list,
        description=(
            "Rows whose reference is legitimately in their input (an extractive answer), each group with its split "
            "and the reason. CLR907 still checks every other row."
        ),
    )
    metric: Metric = Field(description="The main metric.")
    scoring: Scoring | None = Field(
        None,
        description=(
            "How a free-text answer is scored as MedHELM scores it: an LLM jury, SQL execution, code-set F1 or an "
            "error flag. Every free-text mapping declares it (CLR510), in a form that fits the mapping (CLR509)."
        ),
    )
    scoring_note: str | None = Field(
        None,
        description=(
            "Why `scoring` is absent, when none of its methods can express how the benchmark is scored: CLR510 "
            "quotes it, and exports fall back to token overlap."
        ),
    )
    instances: InstanceCounts = Field(default_factory=InstanceCounts, description="Instance counts.")
    note: str | None = Field(None, description="Anything a user of the benchmark should know.")


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
        None, min_length=1, description="Who should care about this benchmark and when to use it, from its source's own intended use (card field)."
    )
    not_for: str | None = Field(
        None, min_length=1,
        description="What the benchmark should not be used for or read as, e.g. a claim it cannot support (card field).",
    )
    languages: Languages | None = Field(None, description="The languages of the data, with where that was read (card field).")
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
        description="Related benchmarks a reader should compare this one with: dataset ids in this registry, each with a reason.",
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

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# --------------------------------------------------------------------------------------------- releases


class Release(Strict):
    version: str = Field(description="Semantic version of the release.")
    date: dt.date = Field(
        description="Release date (YYYY-MM-DD). For an open release, the day it was opened: set the day it is published."
    )
    title: NonEmpty = Field(description="One line on what the release is.")
    status: Literal["published", "open"] = Field(
        "published",
        description=(
            "`published` (the default): the release is out, and what it holds never changes (CLR604). `open`: the "
            "release being prepared, which new records name in `added_in`; only the newest release may be open. "
            "`clinreg new release X.Y.Z --title ...` opens one. To publish it, set `status: published`, its date, "
            "and `datasets_added`."
        ),
    )
    datasets_added: list[Id] | None = Field(
        None,
        description=(
            "For a published release: the ids of the records it added (every record whose `added_in` is this "
            "release), `[]` when it added none. Written once, when the release is published; it fixes what the "
            "release holds, so that a later record cannot name it in `added_in` (CLR604). An open release leaves it out."
        ),
    )
    notes: str | None = Field(None, description="Longer notes, e.g. the upstream change the release follows.")


class ReleaseHistory(Strict):
    current: str = Field(description="The version of the registry as it stands in this tree: the newest release, open or published.")
    releases: list[Release] = Field(min_length=1, description="Every release, oldest first.")


# File kinds: which model validates which file, and which schema file documents it.
FILE_MODELS: dict[str, type[Strict]] = {
    "taxonomy": Taxonomy,
    "category": Category,
    "dataset": Dataset,
    "releases": ReleaseHistory,
}
