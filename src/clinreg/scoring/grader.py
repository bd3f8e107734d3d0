"""How a mapping's answers are graded, derived from its label scheme and scoring: never typed in a record."""

from __future__ import annotations

from dataclasses import dataclass

from clinreg.core.model import Mapping

# kind: the grader family a reader filters by; method: how, named plainly.
AUTOMATIC, EXECUTION, JURY, NOT_EXPRESSIBLE = "automatic", "execution", "LLM jury", "not expressible"
GRADER_KINDS = (AUTOMATIC, EXECUTION, JURY, NOT_EXPRESSIBLE)

_SCORING = {
    "jury": (JURY, "an LLM jury rates each answer"),
    "sql_execution": (EXECUTION, "the predicted and gold SQL run against the database; same rows score 1"),
    "code_set_f1": (AUTOMATIC, "F1 of the billing codes in the answer against the gold codes"),
    "error_flag": (AUTOMATIC, "exact match of the error flag (CORRECT or the sentence with the error)"),
    "rubric": (JURY, "a grader model checks each criterion of the instance's own rubric"),
}


@dataclass(frozen=True)
class Grader:
    kind: str  # one of GRADER_KINDS
    method: str
    scale: str  # the score's range as the record's metric states it, e.g. "0 to 1"


def _scale(mapping: Mapping) -> str:
    r = mapping.metric.range
    if r is None:
        return "not stated in the record"
    low, high = (int(v) if float(v).is_integer() else v for v in r)
    return f"{low} to {high}"


def grader_of(mapping: Mapping) -> Grader:
    """The grader of one benchmark: a declared scoring method wins; a `scoring_note` (why none of clinreg's
    methods can express the authors' scoring) makes it not expressible; else the label scheme decides."""
    agent = mapping.generation is not None and mapping.generation.adapter == "agent"
    if mapping.scoring is None and mapping.scoring_note is not None and agent:
        return Grader(NOT_EXPRESSIBLE, "clinreg cannot express how it is graded (see the record's scoring note), and "
                      "no clinreg export runs it: MedHELM runs it as an agent, so its score comes only from medhelm's "
                      "own run", _scale(mapping))
    if mapping.scoring is None and mapping.scoring_note is not None:
        return Grader(NOT_EXPRESSIBLE, "clinreg cannot express how the authors grade it (see the record's scoring "
                      "note); an export's token-overlap score is only a stand-in", _scale(mapping))
    if mapping.scoring is not None:
        kind, method = _SCORING[mapping.scoring.method]
        if mapping.scoring.jury is not None:
            jury = mapping.scoring.jury
            method = (f"an LLM jury of {len(jury.judges)} judge(s) rates each answer on "
                      f"{', '.join(a.id for a in jury.axes)}, {jury.scale[0]} to {jury.scale[1]}; the score is the "
                      "mean")
        if mapping.scoring.rubric is not None:
            method = (f"a grader model ({mapping.scoring.rubric.grader.model}) checks each criterion of the instance's "
                      "own rubric; the score is the points met over the positive points, the mean clipped to 0 to 1")
        return Grader(kind, method, _scale(mapping))
    encoding = mapping.label.encoding
    if encoding == "number":
        return Grader(AUTOMATIC, "exact match of the value, or within its accepted range or tolerance", _scale(mapping))
    if encoding == "free_text":  # no scoring declared (CLR510 warns): the metric alone names it
        return Grader(AUTOMATIC, f"the metric {mapping.metric.name} against the reference text", _scale(mapping))
    return Grader(AUTOMATIC, "exact match of the chosen option", _scale(mapping))
