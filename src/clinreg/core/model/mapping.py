"""A mapping: one benchmark built from a dataset's rows (its template, answer options, gold label and scoring)."""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field

from clinreg.core.model.base import Id, NonEmpty, Strict
from clinreg.core.model.read import Cap, Filter
from clinreg.core.model.scoring import Metric, Scoring


class Choices(Strict):
    """How the answer options of a closed task are read from a row. Give exactly one of the fields."""

    columns: list[NonEmpty] | None = Field(
        None, description="One column per option, in letter order, e.g. `[opa, opb, opc, opd]` for A-D."
    )
    struct: str | None = Field(
        None,
        description="A column holding a mapping from letter to option text, e.g. MedQA's `options: {A: ..., B: ...}`."
    )
    items: str | None = Field(
        None,
        description=(
            "A column holding a list of options: plain strings (`[\"Aspirin\", \"Heparin\"]`), or objects such as "
            "HeadQA's `answers: [{aid, atext}, ...]` with `text_key`."
        ),
    )
    text_key: str | None = Field(None,
                                 description="With `items` whose options are objects: the key of each option's text "
                                             "(`atext`).")
    id_key: str | None = Field(None, description="With `items`: the key of each option's id (`aid`).")
    fixed: list[NonEmpty] | None = Field(
        None,
        description="Option texts that are the same for every row, e.g. `[yes, no, maybe]`. May use `{{ column }}`."
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
    base: Literal[0,
                  1] = Field(description="0 when the first option is 0 (hub MedMCQA), 1 when it is 1 (MedMCQA JSON).")
    count: int = Field(ge=2, le=26, description="How many options there are.")
    unlabeled: int | None = Field(
        None, description="The value that marks a row without a gold answer, e.g. `-1` in MedMCQA's test split."
    )
    positive: str | None = Field(None, description="For a binary scheme, the letter that means the positive class.")


class OptionIdScheme(Strict):
    encoding: Literal["option_id"] = Field(
        description="The gold answer is the id of one option in a list column, e.g. HeadQA `ra` matching "
                    "`answers[].aid`."
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
    positive: str | None = Field(None,
                                 description="For a two-value scheme, the source value that means the positive class.")
    unlabeled: list[str] = Field(default_factory=list,
                                 description="Source values that mark a row without a gold answer.")


class FreeTextScheme(Strict):
    encoding: Literal["free_text"] = Field(description="The gold answer is reference text, scored by a metric or a "
                                                       "jury.")
    column: NonEmpty = Field(description="The column holding the reference text.")


class NumberScheme(Strict):
    encoding: Literal["number"] = Field(
        description="The gold answer is a value with an accepted range, e.g. MedCalc-Bench's lower and upper limits."
    )
    column: NonEmpty = Field(description="The column holding the gold value.")
    lower_column: str | None = Field(None, description="Column with the lowest accepted value.")
    upper_column: str | None = Field(None, description="Column with the highest accepted value.")
    absolute_tolerance: float | None = Field(None, ge=0,
                                             description="Accepted absolute error, when no range columns exist.")
    relative_tolerance: float | None = Field(None, ge=0,
                                             description="Accepted relative error, when no range columns exist.")


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


class GoldInInputRows(Strict):
    split: NonEmpty = Field(description="The split the rows are in (the record's own split name).")
    rows: list[Annotated[int, Field(ge=0)]] = Field(
        min_length=1, description="Source row numbers in that split, counting from 0, as CLR907's message names them."
    )
    why: NonEmpty = Field(description="Why these references are legitimately in their inputs (e.g. an extractive "
                                      "answer).")


class InstanceCounts(Strict):
    source: int | None = Field(None, ge=0, description="Rows in the source split(s).")
    evaluated: int | None = Field(None, ge=0, description="Instances MedHELM evaluated (Nature Medicine Table 1).")
    note: str | None = Field(None, description="How the counts relate, where they differ.")


class Generation(Strict):
    """How the model generates its answer, as MedHELM's run spec sets it; every export passes these to its harness."""

    adapter: Literal["generation", "multiple_choice", "chat", "agent"] = Field(
        description=(
            "How MedHELM's run spec adapts the benchmark (HELM's adapter method): `generation` (one prompt, the "
            "answer generated), `multiple_choice` (HELM's joint multiple-choice adapter: the question and lettered "
            "options, the letter generated), `chat` (the conversation's turns sent as chat messages) or `agent` "
            "(an agent harness drives a multi-step episode; clinreg's exports cannot run it and export nothing for "
            "it). A mapping MedHELM does not run gives the adapter clinreg's exports use."
        ),
    )
    temperature: float = Field(ge=0, description="Sampling temperature. MedHELM runs every benchmark at 0.")
    max_tokens: int = Field(
        ge=1,
        description=(
            "The output limit in tokens (HELM's `max_tokens`): lm-eval's `max_gen_toks`, Inspect's `max_tokens`, "
            "HELM's adapter spec. A closed task's limit applies to the letter every export generates (not to "
            "lm-eval's log-likelihood variant, which generates nothing)."
        ),
    )
    reasoning_max_tokens: int | None = Field(
        None, ge=1,
        description="The limit MedHELM's run-entry confs give reasoning models (`num_output_tokens=4000`), when they "
                    "do.",
    )
    stop: list[str] = Field(default_factory=list,
                            description="Stop sequences (HELM's `stop_sequences`); empty for none.")
    num_outputs: int = Field(
        1, ge=1,
        description=(
            "How many outputs MedHELM asks for per instance (HELM's `num_outputs`): 5 in HELM's multiple-choice "
            "adapter, which scores the most likely one (and reports `exact_match@5` beside); 1 elsewhere. Where a "
            "harness cannot ask for several, the export's manifest says so."
        ),
    )
    instructions: str | None = Field(
        None,
        description=(
            "MedHELM's instructions for the benchmark (HELM's adapter `instructions`), as its run spec gives them. "
            "Every export sends them before the prompt (HELM's adapter instructions; lm-eval's `description`; in "
            "Inspect, before a closed task's question in the user message, or as the system message of a number or "
            "free-text task). A closed task without them gets clinreg's letter instruction. Empty for an `agent` "
            "adapter, whose instructions field carries the harness's settings, not text for the model."
        ),
    )
    run_spec: Id | None = Field(None,
                                description="MedHELM's run spec function the values were read from, e.g. `med_dialog`.")
    source: NonEmpty = Field(description="Where the values were read (file and commit or package version), or why "
                                         "clinreg chose them.")
    note: str | None = Field(None,
                             description="How clinreg's prompt differs from what MedHELM sends, and anything else a "
                                         "user should know.")


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
            "export lists the options and asks for a letter in its harness's own way (CLR508)."
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
    metadata_columns: list[str] = Field(default_factory=list,
                                        description="Columns copied into each instance's metadata.")
    fields_read: list[str] = Field(default_factory=list, description="Every source field the benchmark reads.")
    filters: list[Filter] = Field(default_factory=list,
                                  description="Rows the benchmark drops, as expressions the builder applies and "
                                              "counts.")
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
    generation: Generation | None = Field(None,
                                          description="The generation settings (temperature, output limit, stop, "
                                                      "instructions).")
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
