"""How a benchmark's answers are scored: its metric, and for free text an LLM jury, SQL execution or a code match."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from clinreg.core.model.base import Citation, Id, NonEmpty, Strict
from clinreg.core.model.card import Fact


class Metric(Strict):
    # Metric names ranked lower-is-better. HELM's schema marks every MedHELM main metric `lower_is_better: false`,
    # and a record has no direction field, so the set is declared here rather than guessed from a name.
    LOWER_IS_BETTER: ClassVar[frozenset[str]] = frozenset()

    name: NonEmpty = Field(description="HELM's metric name, e.g. `exact_match`.")
    display: str | None = Field(None, description="The display name used by HELM.")
    range: list[float] | None = Field(None, min_length=2, max_length=2, description="`[min, max]` of the score.")

    @property
    def lower_is_better(self) -> bool:
        """Whether a lower score ranks higher: the leaderboard ranks it so, and exports say so."""
        return self.ranks_lower(self.name)

    @classmethod
    def ranks_lower(cls, name: str) -> bool:
        """Whether the metric called `name` ranks lower-is-better (for a score that carries only the name)."""
        return name in cls.LOWER_IS_BETTER


class Judge(Strict):
    """One member of an LLM jury."""

    name: Id = Field(description="A short name for the judge, e.g. `gpt`; each judge's ratings are kept under it.")
    model: NonEmpty = Field(description="The judge model as HELM names it, e.g. `openai/gpt-4o-2024-05-13`.")
    helm_deployment: str | None = Field(
        None,
        description="The HELM model deployment that serves the judge, e.g. `stanfordhealthcare/gpt-4o-2024-05-13`."
    )
    inspect_model: str | None = Field(
        None, description="The judge as Inspect AI names a model (`provider/model`), when that differs from `model`."
    )
    serving: str | None = Field(
        None,
        description=(
            "How the provider behind `inspect_model` serves the judge, where it is not the deployment HELM used "
            "(e.g. Together's `Turbo` serving of Llama 3.3 70B, not HELM's stanfordhealthcare deployment)."
        ),
    )
    replaces: str | None = Field(
        None,
        description=(
            "The judge model this one stands in for, when a provider has retired it (e.g. `openai/gpt-4o-2024-05-13`); "
            "every export and every jury score made with this judge says so."
        ),
    )
    replaced_because: str | None = Field(None, description="With `replaces`: why, and where that was read.")

    @model_validator(mode="after")
    def _replacement(self) -> "Judge":
        if (self.replaces is None) != (self.replaced_because is None):
            raise ValueError("give `replaced_because` exactly when `replaces` is given")
        return self


def medhelm_judges() -> list[Judge]:
    """MedHELM's three judges (HELM's scenarios/medhelm/judges.yaml), the default of every jury."""
    return [
        Judge(name="gpt", model="openai/gpt-4o-2024-05-13", helm_deployment="stanfordhealthcare/gpt-4o-2024-05-13",
              inspect_model="openai/gpt-4o-2024-05-13"),
        Judge(name="llama", model="meta/llama-3.3-70b-instruct",
              helm_deployment="stanfordhealthcare/llama-3.3-70b-instruct",
              inspect_model="together/meta-llama/Llama-3.3-70B-Instruct-Turbo",
              serving="Together's Turbo serving for Inspect; HELM's stanfordhealthcare deployment otherwise"),
        Judge(name="claude", model="anthropic/claude-3-7-sonnet-20250219",
              helm_deployment="stanfordhealthcare/claude-3-7-sonnet-20250219",
              inspect_model="anthropic/claude-3-7-sonnet-20250219"),
    ]


class PublishedAgreement(Strict):
    """What a publication reports of how far an LLM-jury method agrees with clinicians in general (not of one
    benchmark's jury), with its source and how far it was read: MedHELM's is `jury_agreement` in
    registry/medhelm_editions.yaml, shown where the jury's rules are described, on every jury benchmark's card whose
    record has no evidence of its own, and in the leaderboard's legend of the `jury not validated` mark."""

    statistic: NonEmpty = Field(
        description="What the figure is, e.g. `ICC between MedHELM's LLM jury and clinicians' ratings`."
    )
    value: float = Field(description="The figure, e.g. `0.47`.")
    beside: NonEmpty = Field(description="The figures reported beside it, for comparison (clinician-clinician ICC).")
    covers: NonEmpty = Field(description="What the figure covers, e.g. the jury method in general, not one benchmark.")
    source: NonEmpty = Field(description="Where the figure was read: the publication, its version and date.")
    status: Literal["verified", "unverified"] = Field(
        description="`verified`: read in the source itself; `unverified`: read elsewhere (say where in `status_note`)."
    )
    status_note: NonEmpty = Field(description="Where the figure was read, and what of the source was not.")


class JuryAxis(Strict):
    id: Id = Field(description="The axis, e.g. `accuracy`; the key the judge's JSON answer uses for it.")
    question: NonEmpty = Field(description="What the judge asks on this axis, in clinreg's words.")


class JuryValidation(Strict):
    """Evidence of how far the jury agrees with clinicians: a ratings file (for `clinreg jury agreement`) or a
    figure a publication reports, with its source."""

    kind: Literal["ratings", "published"] = Field(
        description="`ratings`: a file of per-instance ratings by the judges and clinicians. `published`: a reported "
                    "figure."
    )
    ratings: str | None = Field(
        None,
        description="For `ratings`: the file (CSV or JSON lines: instance_id, rater, axis, score), relative to the "
                    "registry root or an https URL."
    )
    statistic: str | None = Field(
        None, description="For `published`: what the figure is, e.g. `ICC between the jury and clinicians' ratings`."
    )
    value: float | None = Field(None, description="For `published`: the figure, e.g. `0.47`.")
    citation: Citation | None = Field(None,
                                      description="Where the figure or the ratings come from. Required for "
                                                  "`published`.")
    note: str | None = Field(None,
                             description="How far the evidence reaches, e.g. which benchmarks the clinicians rated.")

    @model_validator(mode="after")
    def _fields_of_kind(self) -> "JuryValidation":
        if self.kind == "ratings" and not self.ratings:
            raise ValueError("a `ratings` validation needs `ratings`, the file")
        if self.kind == "published" and (self.statistic is None or self.value is None or self.citation is None):
            raise ValueError("a `published` validation needs `statistic`, `value` and `citation`")
        return self


class Jury(Strict):
    """How an LLM jury rates a free-text answer: who judges, on which axes, on what scale, seeing what."""

    judges: list[Judge] = Field(
        default_factory=medhelm_judges, min_length=1,
        description="The judge models. MedHELM's three (GPT-4o 2024-05-13, Llama 3.3 70B Instruct, Claude 3.7 Sonnet) "
                    "when omitted.",
    )
    rubric: NonEmpty = Field(
        description=(
            "What the judge is told the task is and how to read the answer, in clinreg's own words (not HELM's "
            "prompt text). The export adds the shown texts, the axes, the scale and the JSON answer format."
        )
    )
    axes: list[JuryAxis] = Field(min_length=1,
                                 description="The axes every judge rates, e.g. accuracy, completeness and clarity.")
    scale: list[int] = Field(
        default_factory=lambda: [1, 5], min_length=2, max_length=2,
        description="`[lowest, highest]` rating on each axis."
    )
    aggregate: Literal["mean"] = Field(
        "mean",
        description="`mean`: the score is the mean of every judge's rating on every axis (3 judges x 3 axes = 9)."
    )
    shows: list[Literal["input", "response", "reference"]] = Field(
        default_factory=lambda: ["input", "response", "reference"], min_length=1,
        description="What the judge is shown: the model's input, its response and the reference answer.",
    )
    validation: list[JuryValidation] | None = Field(
        None,
        description=(
            "Evidence that the jury agrees with clinicians: a ratings file or a published figure with its source. "
            "The dataset card shows it."
        ),
    )
    helm_annotator: str | None = Field(
        None,
        description=(
            "HELM's annotator class for this benchmark, e.g. "
            "`helm.benchmark.annotation.aci_bench_annotator.ACIBenchAnnotator`; "
            "the HELM export runs it (with HELM's rubric) so its scores are MedHELM's by construction."
        ),
    )
    tied_to: Fact | None = Field(
        None,
        description=(
            "An environment the reference run of this jury depended on beyond its judges' deployments (e.g. Stanford "
            "Health Care's internal one), with where that was read: such a jury is not portable, and `clinreg show`, "
            "the card and coverage say so."
        ),
    )


class SqlDatabase(Strict):
    file: NonEmpty = Field(
        description="The SQLite file, relative to the data folder (`--data-dir`), e.g. `ehr_sql/eicu.sqlite`."
    )
    source: str | None = Field(None, description="Where the file comes from (an https URL pinned to a commit).")
    time_limit_seconds: float = Field(10.0, gt=0, le=600, description="Longest time one query may run.")


class CriteriaPerInstance(Fact):
    value: Annotated[float, Field(gt=0)] | Literal["unknown"] = Field(
        description="The mean number of criteria in one instance's rubric (one grader call each), or `unknown`."
    )


class RubricGrading(Strict):
    """Grading against a rubric of its own per instance (HealthBench): a grader model decides, for each criterion,
    whether the reply meets it; the instance scores the points of the criteria met (negative ones included) over
    its positive points, clipped to [0, 1]; the benchmark scores the mean."""

    grader: Judge = Field(
        description="The grader model, pinned, e.g. `openai/gpt-4.1-2025-04-14` (simple-evals' grader for HealthBench)."
    )
    column: Id = Field(
        description=(
            "The instance column (one of the mapping's `metadata_columns`) holding the rubric: a list of objects, "
            "each with a criterion text and its points."
        )
    )
    criterion_key: Id = Field("criterion", description="The key of a rubric item's criterion text.")
    points_key: Id = Field("points",
                           description="The key of a rubric item's points (negative for what a reply must not do).")
    conversation_column: Id | None = Field(
        None,
        description=(
            "The instance column (one of the mapping's `metadata_columns`) holding the conversation as chat turns "
            "(a list of {role, content}); the exports send those turns as chat messages, as simple-evals and "
            "medhelm's chat adapter do, and the grader reads them."
        ),
    )
    example_tags_column: Id | None = Field(
        None,
        description=(
            "The instance column (one of the mapping's `metadata_columns`) holding the instance's tags (e.g. "
            "`theme:*`); the Inspect export reports the score of each tag, as simple-evals does."
        ),
    )
    criteria_per_instance: CriteriaPerInstance | None = Field(
        None,
        description=(
            "How many criteria an instance's rubric holds on average, with where that was read: the grader is "
            "called once per criterion, so this counts the judge calls a run takes."
        ),
    )
    helm_annotator: str | None = Field(
        None,
        description=(
            "The annotator class of the medhelm package that grades this benchmark, e.g. "
            "`helm.benchmark.annotation.health_bench_annotator.HealthBenchAnnotator`; the HELM export runs it when "
            "medhelm is installed (plain crfm-helm lacks it)."
        ),
    )


class Scoring(Strict):
    """How a free-text answer is scored, as MedHELM scores it."""

    method: Literal["jury", "sql_execution", "code_set_f1", "error_flag", "rubric"] = Field(
        description=(
            "`jury`: an LLM jury rates the answer (see `jury`). `sql_execution`: the predicted and the gold query run "
            "read-only against `database` and score 1 when they return the same rows (EHRSQL). `code_set_f1`: F1 "
            "of the codes in the answer against the gold codes (MIMIC-IV billing codes). `error_flag`: 1 when the "
            "answer's flag (CORRECT or a sentence number) agrees with the gold's (MEDEC). `rubric`: a grader model "
            "checks each criterion of the instance's own rubric (see `rubric`; HealthBench)."
        )
    )
    jury: Jury | None = Field(None, description="For `jury`: the jury.")
    rubric: RubricGrading | None = Field(None, description="For `rubric`: the grader and where the rubric is.")
    database: SqlDatabase | None = Field(None, description="For `sql_execution`: the database the queries run against.")
    helm_metric: str | None = Field(
        None,
        description="HELM's metric class for this benchmark, e.g. "
                    "`helm.benchmark.metrics.ehr_sql_metrics.EhrSqlMetric`.",
    )

    @model_validator(mode="after")
    def _parts(self) -> "Scoring":
        if (self.method == "jury") != (self.jury is not None):
            raise ValueError("give `jury` exactly when method is jury")
        if (self.method == "sql_execution") != (self.database is not None):
            raise ValueError("give `database` exactly when method is sql_execution")
        if (self.method == "rubric") != (self.rubric is not None):
            raise ValueError("give `rubric` exactly when method is rubric")
        return self
