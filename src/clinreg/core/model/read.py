"""The read step: how a source's files become rows, declared as data.

The builder reads the files as they are distributed (a plain clone, a PhysioNet download, a private spreadsheet),
then the mapping's filters, cap, template and label apply."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from clinreg.core.model.base import Id, NonEmpty, Strict

FileFormat = Literal["csv", "tsv", "json", "jsonl", "parquet", "xlsx", "feather", "arrow", "text", "lines", "xml",
                     "docx"]


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
        description="Allowed values of a `{name}` part, e.g. `{subset: [healthcaremagic, icliniq]}`; other matches are "
                    "not read.",
    )
    archive: str | None = Field(
        None,
        description=(
            "A zip file inside the mirror folder (HEAD-QA's `data/head-qa-es-en-pdfs.zip`); `files` then names "
            "members inside it. Only the named members are unpacked, each checked for its path and size."
        ),
    )
    encoding: str = Field("utf-8", description="Text encoding of csv/tsv/json/jsonl/text/lines files.")
    delimiter: str | None = Field(None, min_length=1, max_length=1,
                                  description="csv: the field delimiter (`,` by default, tab for tsv).")
    sheet: str | None = Field(None, description="xlsx: the sheet to read; the first sheet when omitted.")
    records: str | None = Field(
        None,
        description=(
            "json: a dotted path to the list of records inside the file (ACI-Bench's `data`). `*` stands for every "
            "value of an object: an object keyed by id (PubMedQA's `ori_pqal.json`) is `records: \"*\"` with "
            "`key_column`; HEAD-QA's exams are `exams.*.data`, each record keeping its exam's plain fields."
        ),
    )
    key_column: str | None = Field(None,
                                   description="json with `*` in `records`: the column that receives the key of each "
                                               "`*`.")
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
    docx_table: int | None = Field(None, ge=0,
                                   description="docx: read the N-th table (header row first) instead of the "
                                               "paragraphs.")


class JoinStep(Strict):
    table: Id = Field(description="The name of a table in `read.tables`.")
    keys: list[NonEmpty] = Field(
        min_length=1,
        description="Key columns present in both tables. (Not `on`: YAML 1.1 reads an unquoted `on` as true.)"
    )
    cardinality: Literal["one_to_one", "many_to_one", "one_to_many"] = Field(
        description=(
            "`one_to_one`: each row matches exactly one row of the table. `many_to_one`: several rows may share one "
            "row of the table (MedAlign's instructions and a patient's EHR). `one_to_many`: a row may match several "
            "rows of the table; their columns are joined into one text with `separator` (DischargeMe's radiology "
            "reports)."
        )
    )
    unmatched: Literal["error", "drop", "keep"] = Field(
        "error",
        description="A row whose key matches nothing: an error naming the key (default), dropped and counted, or kept "
                    "with empty columns."
    )
    columns: list[NonEmpty] | None = Field(
        None,
        description="The table's columns to bring in (all but the keys when omitted; `[]` joins only to keep or drop "
                    "rows)."
    )
    suffix: str = Field(
        "_right",
        description="Appended to a brought-in column whose name the row already has; `\"\"` replaces the row's column."
    )
    separator: str = Field("\n\n", description="`one_to_many`: the text placed between joined values.")
    many: Literal["all", "first"] = Field(
        "all",
        description="`one_to_many`: join every matching row (`all`), or take only the first in file order (`first`)."
    )


class PickStep(Strict):
    column: NonEmpty = Field(description="The new column.")
    list: NonEmpty = Field(description="A column holding a list (of structs), e.g. MEDIQA's `AnswerList`.")
    where: dict[str, str | int | float | bool] = Field(
        default_factory=dict,
        description="Field path -> value; the first item that matches all is picked (MEDIQA: `{ReferenceRank: 1}`)."
    )
    value: str | None = Field(None,
                              description="The field of the picked item to keep (`AnswerText`); the whole item when "
                                          "omitted.")


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
        min_length=1,
        description="Columns whose text is removed wherever it occurs in `column` (DischargeMe: the target sections)."
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
    columns: list[NonEmpty] = Field(min_length=1,
                                    description="Columns that key a row; rows with equal keys are one row.")
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
        description="A named adapter in `clinreg.sources.adapters`, for sources that truly need code (each documented, "
                    "with its options, in `src/clinreg/sources/adapters.py`)."
    )
    options: dict[str, str | int | list[str]] = Field(default_factory=dict,
                                                      description="The adapter's options, as documented for it.")


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
            raise ValueError(f"a step has exactly one of {', '.join(type(self).model_fields)}; this one has "
                             f"{len(given) or 'none'}")
        return self


class SplitRead(TableSpec):
    steps: list[Step] = Field(default_factory=list, description="Transformations applied in order after reading.")


class Read(Strict):
    """How the source's files become rows, split by split, before a mapping applies."""

    splits: dict[NonEmpty, SplitRead] = Field(
        min_length=1,
        description="Each split the record uses and the files it is read from. Split names are the record's own."
    )
    tables: dict[Id, TableSpec] = Field(default_factory=dict,
                                        description="Extra tables that `join` steps read (DischargeMe's targets).")


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
