"""The judge a benchmark requires: whether it needs one, which models, how many judge calls one instance takes
per model run, and whether the jury can run outside the environment MedHELM ran it in. Derived from the record's
scoring (never typed in a record twice); the facts a record cannot derive (an environment a jury was tied to, a
rubric's criteria per instance) are record fields with their sources.

How calls are counted, read from the code that runs them:
- a MedHELM jury (medhelm 0.8.0, `helm/benchmark/annotation/model_as_judge.py`): one request per judge per
  instance, the reply rating every axis at once (so 3 judges x 3 axes = 3 calls and 9 ratings); no retry;
- a rubric (openai/simple-evals `healthbench_eval.py`): one request per criterion of the instance's rubric, asked
  again while the reply cannot be read (clinreg's exports bound the re-asks), so the figure is a floor; medhelm's
  HealthBenchAnnotator makes that request once per judge of its `judges.yaml`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clinreg.core.model import Judge, Mapping, medhelm_judges

# Deployment owners that serve a judge only inside one organisation: HELM names a deployment `owner/model`, and
# MedHELM's judges run on `stanfordhealthcare/*` (helm#3484, the judges' pull request; medhelm 0.8.0
# helm/benchmark/scenarios/medhelm/judges.yaml), which no one outside Stanford Health Care can call.
PRIVATE_DEPLOYMENT_OWNERS = {"stanfordhealthcare": "Stanford Health Care's internal deployments"}

# How far a jury runs elsewhere, most portable first.
PORTABLE = "portable"  # the same judges on deployments anyone can call
SAME_MODELS_ELSEWHERE = "same models, other deployments"  # the reference's deployments are private; the models are not
SUBSTITUTES = "substitutes needed"  # a judge model is retired or has no public route: another model stands in
NOT_PORTABLE = "not portable"  # the reference run depended on an environment of its own
PORTABILITY_LEVELS = (PORTABLE, SAME_MODELS_ELSEWHERE, SUBSTITUTES, NOT_PORTABLE)


@dataclass(frozen=True)
class JudgeRequirement:
    """What scoring one benchmark with its judges takes. `judge_calls_per_instance` is None where it cannot be
    counted (a rubric whose criteria per instance the record does not state); `portable` is True only at
    PORTABLE."""

    needs_judge: bool | None  # None: the record cannot say (its scoring is not expressible in clinreg's methods)
    kind: str | None  # "jury" or "rubric grader"
    judges: tuple[dict[str, Any], ...] = ()
    reference: str | None = None  # whose judges these are, e.g. "MedHELM's three judges (judges.yaml)"
    judge_calls_per_instance: float | None = None
    ratings_per_instance: float | None = None
    calls_basis: str | None = None  # how the calls were counted, in words
    reference_calls_per_instance: float | None = None  # where MedHELM's own run of it makes another number
    reference_calls_basis: str | None = None
    portability: str | None = None  # one of PORTABILITY_LEVELS
    portability_reason: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def portable(self) -> bool | None:
        return None if self.portability is None else self.portability == PORTABLE

    def to_dict(self) -> dict[str, Any]:
        return {"needs_judge": self.needs_judge, "kind": self.kind, "judges": list(self.judges),
                "reference": self.reference, "judge_calls_per_instance": self.judge_calls_per_instance,
                "ratings_per_instance": self.ratings_per_instance, "calls_basis": self.calls_basis,
                "reference_calls_per_instance": self.reference_calls_per_instance,
                "reference_calls_basis": self.reference_calls_basis, "portable": self.portable,
                "portability": self.portability, "portability_reason": self.portability_reason,
                "notes": list(self.notes)}


NO_JUDGE = JudgeRequirement(needs_judge=False, kind=None, judge_calls_per_instance=0, ratings_per_instance=0,
                            calls_basis="scored without a model: no judge calls")


NOT_EXPRESSIBLE = JudgeRequirement(
    needs_judge=None, kind=None,
    calls_basis="clinreg cannot express how this benchmark is scored (see the record's scoring note), so whether "
                "it needs a judge, and how many calls it takes, is not counted")


def _private(judge: Judge) -> str | None:
    """The organisation whose internal deployment serves the judge, or None when anyone can call it."""
    owner = (judge.helm_deployment or "").split("/", 1)[0]
    return PRIVATE_DEPLOYMENT_OWNERS.get(owner)


def _judge_row(judge: Judge) -> dict[str, Any]:
    return {"name": judge.name, "model": judge.model, "helm_deployment": judge.helm_deployment,
            "inspect_model": judge.inspect_model, "serving": judge.serving, "replaces": judge.replaces,
            "private_deployment": _private(judge)}


def _portability(judges: list[Judge], tied_to: Any) -> tuple[str, str]:
    if tied_to is not None:
        return NOT_PORTABLE, f"the reference run was tied to {tied_to.value} (source: {tied_to.source})"
    replaced = [j for j in judges if j.replaces]
    unroutable = [j for j in judges if _private(j) and not j.inspect_model]
    if replaced or unroutable:
        named = [f"{j.name} stands in for {j.replaces}" for j in replaced]
        named += [f"{j.name} ({j.model}) has only a private deployment" for j in unroutable]
        return SUBSTITUTES, "; ".join(named)
    private = sorted({_private(j) for j in judges if _private(j)})
    if private:
        served = ", ".join(f"{j.name} as {j.inspect_model}" + (f" ({j.serving})" if j.serving else "")
                           for j in judges)
        return SAME_MODELS_ELSEWHERE, (f"the reference run used {' and '.join(private)}; the same models are called "
                                       f"elsewhere ({served}), so scores are close to, not the same as, MedHELM's")
    return PORTABLE, "every judge is served on a deployment anyone with an account can call"


def judge_requirement(mapping: Mapping) -> JudgeRequirement:
    """The judge requirement of one benchmark, from its scoring."""
    scoring = mapping.scoring
    if scoring is None and mapping.scoring_note is not None:
        return NOT_EXPRESSIBLE
    if scoring is None or (scoring.jury is None and scoring.rubric is None):
        return NO_JUDGE
    if scoring.jury is not None:
        jury = scoring.jury
        n, axes = len(jury.judges), len(jury.axes)
        default = [j.model for j in jury.judges] == [j.model for j in medhelm_judges()]
        level, why = _portability(jury.judges, jury.tied_to)
        return JudgeRequirement(
            needs_judge=True, kind="jury", judges=tuple(_judge_row(j) for j in jury.judges),
            reference="MedHELM's three judges, from medhelm's judges.yaml" if default else "the record's own jury",
            judge_calls_per_instance=n, ratings_per_instance=n * axes,
            calls_basis=(f"one call per judge per instance, each rating all {axes} axes at once ({n} judges x "
                         f"{axes} axes = {n * axes} ratings), as MedHELM's annotator asks; no retry"),
            portability=level, portability_reason=why)
    rubric = scoring.rubric
    assert rubric is not None
    criteria = rubric.criteria_per_instance
    per = criteria.value if criteria is not None and criteria.value != "unknown" else None
    level, why = _portability([rubric.grader], None)
    notes = []
    ref_calls = ref_basis = None
    if rubric.helm_annotator:
        judges = medhelm_judges()
        ref_calls = None if per is None else round(per * len(judges), 2)
        ref_basis = (f"medhelm's annotator asks each of its {len(judges)} judges about each criterion: "
                     f"{len(judges)} calls per criterion")
        notes.append("The HELM export grades with medhelm's judges, not the rubric's grader: "
                     + ref_basis + ".")
    if per is None:
        notes.append("The record does not state its criteria per instance: the calls cannot be counted.")
    source = f" ({criteria.source})" if per is not None and criteria is not None else ""
    return JudgeRequirement(
        needs_judge=True, kind="rubric grader", judges=(_judge_row(rubric.grader),),
        reference="the grader the record's rubric names",
        judge_calls_per_instance=per, ratings_per_instance=per,
        calls_basis=(f"one call per criterion of the instance's rubric, {per:g} criteria on average{source}; "
                     "an unreadable reply is asked again, so this is a floor" if per is not None else
                     "one call per criterion of the instance's rubric; an unreadable reply is asked again"),
        reference_calls_per_instance=ref_calls, reference_calls_basis=ref_basis,
        portability=level, portability_reason=why, notes=tuple(notes))


def judge_calls(mapping: Mapping) -> tuple[float | None, str | None]:
    """The judge calls one model run of the benchmark takes: (calls, basis) where basis names the instance count
    used (`evaluated`: MedHELM's evaluated count; `source`: every row of the source split, for a benchmark MedHELM
    did not evaluate); (None, None) where it cannot be counted. A benchmark without a judge takes 0."""
    req = judge_requirement(mapping)
    if req.needs_judge is None:
        return None, None
    if not req.needs_judge:
        return 0, None
    counts = mapping.instances
    n, basis = (counts.evaluated, "evaluated") if counts.evaluated is not None else (counts.source, "source")
    if n is None or req.judge_calls_per_instance is None:
        return None, None
    return round(req.judge_calls_per_instance * n), basis
