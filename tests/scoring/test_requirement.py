"""The judge a benchmark requires: derived from its scoring, counted as the judging code asks, and portable only
where the judges can be called outside the environment the reference run used."""

from __future__ import annotations

import pytest

from clinreg.core.model import Judge
from clinreg.core.model.card import Fact
from clinreg.core.store import load_registry
from clinreg.scoring.requirement import (
    NOT_PORTABLE, PORTABLE, SAME_MODELS_ELSEWHERE, SUBSTITUTES, judge_calls, judge_requirement,
)


@pytest.fixture(scope="module")
def reg():
    return load_registry()


def _jury_mapping(reg):
    """A copy of the first embedded benchmark scored by MedHELM's default jury."""
    for ds in sorted(reg.datasets.values(), key=lambda d: d.id):
        for m in ds.mappings:
            if m.scoring is not None and m.scoring.jury is not None and m.scoring.jury.tied_to is None:
                return m.model_copy(deep=True)
    pytest.skip("the registry holds no jury benchmark")


def _rubric_mapping(reg):
    for ds in sorted(reg.datasets.values(), key=lambda d: d.id):
        for m in ds.mappings:
            if m.scoring is not None and m.scoring.rubric is not None:
                return m.model_copy(deep=True)
    pytest.skip("the registry holds no rubric benchmark")


def test_a_benchmark_without_a_judge_takes_no_calls(reg):
    m = next(m for ds in reg.datasets.values() for m in ds.mappings if m.scoring is None)
    req = judge_requirement(m)
    assert (req.needs_judge, req.judge_calls_per_instance, req.portable) == (False, 0, None)
    assert judge_calls(m) == (0, None)


def test_medhelms_jury_is_one_call_per_judge_rating_every_axis(reg):
    m = _jury_mapping(reg)
    jury = m.scoring.jury
    req = judge_requirement(m)
    assert req.needs_judge and req.kind == "jury"
    assert req.judge_calls_per_instance == len(jury.judges)
    assert req.ratings_per_instance == len(jury.judges) * len(jury.axes)
    assert [j["model"] for j in req.judges] == [j.model for j in jury.judges]
    # MedHELM's judges sit on Stanford Health Care's deployments: not portable as MedHELM ran them
    assert req.portability == SAME_MODELS_ELSEWHERE and req.portable is False
    assert "Stanford Health Care" in req.portability_reason


def test_two_judges_take_two_calls_and_the_count_follows_the_instances(reg):
    m = _jury_mapping(reg)
    m.scoring.jury.judges = m.scoring.jury.judges[:2]
    m.instances.evaluated, m.instances.source = 10, 99
    assert judge_requirement(m).judge_calls_per_instance == 2
    assert judge_calls(m) == (20, "evaluated")
    m.instances.evaluated = None
    assert judge_calls(m) == (198, "source")
    m.instances.source = None
    assert judge_calls(m) == (None, None)


def test_judges_on_public_deployments_are_portable(reg):
    m = _jury_mapping(reg)
    m.scoring.jury.judges = [Judge(name="gpt", model="openai/gpt-4o-2024-05-13",
                                   helm_deployment="openai/gpt-4o-2024-05-13")]
    req = judge_requirement(m)
    assert (req.portability, req.portable) == (PORTABLE, True)


def test_a_retired_or_unroutable_judge_needs_a_substitute(reg):
    m = _jury_mapping(reg)
    m.scoring.jury.judges = [Judge(name="old", model="x/stand-in", helm_deployment="x/stand-in",
                                   replaces="openai/gpt-4o-2024-05-13", replaced_because="retired (test)")]
    assert judge_requirement(m).portability == SUBSTITUTES
    m.scoring.jury.judges = [Judge(name="in", model="meta/llama", helm_deployment="stanfordhealthcare/llama")]
    req = judge_requirement(m)
    assert req.portability == SUBSTITUTES and "only a private deployment" in req.portability_reason


def test_a_jury_tied_to_an_environment_is_not_portable_and_says_where_that_was_read(reg):
    m = _jury_mapping(reg)
    m.scoring.jury.tied_to = Fact(value="a hospital's own network", source="a thread")
    req = judge_requirement(m)
    assert (req.portability, req.portable) == (NOT_PORTABLE, False)
    assert "a hospital's own network" in req.portability_reason and "a thread" in req.portability_reason


def test_a_rubric_takes_one_call_per_criterion_and_medhelms_run_one_per_judge(reg):
    from clinreg.core.model.scoring import CriteriaPerInstance

    m = _rubric_mapping(reg)
    rubric = m.scoring.rubric
    rubric.criteria_per_instance = CriteriaPerInstance(value=4.5, source="a count")
    rubric.helm_annotator = "helm.benchmark.annotation.x.Annotator"
    m.instances.evaluated = 100
    req = judge_requirement(m)
    assert req.kind == "rubric grader" and req.judge_calls_per_instance == 4.5
    assert req.reference_calls_per_instance == 4.5 * 3  # medhelm asks each of its three judges per criterion
    assert judge_calls(m) == (450, "evaluated")
    rubric.helm_annotator = None
    assert judge_requirement(m).reference_calls_per_instance is None


def test_a_rubric_whose_criteria_are_not_stated_is_not_counted(reg):
    from clinreg.core.model.scoring import CriteriaPerInstance

    m = _rubric_mapping(reg)
    m.scoring.rubric.criteria_per_instance = CriteriaPerInstance(value="unknown", reason="not read")
    req = judge_requirement(m)
    assert req.needs_judge and req.judge_calls_per_instance is None
    assert judge_calls(m) == (None, None)
    assert any("cannot be counted" in n for n in req.notes)


def test_every_embedded_benchmark_states_its_judge_requirement(reg):
    for ds in reg.datasets.values():
        for m in ds.mappings:
            req = judge_requirement(m)
            judged = m.scoring is not None and (m.scoring.jury is not None or m.scoring.rubric is not None)
            unknown = m.scoring is None and m.scoring_note is not None
            assert req.needs_judge is (None if unknown else judged), m.id
            if judged:
                assert req.judges and req.portability and req.portability_reason and req.calls_basis, m.id
            if m.scoring is not None and m.scoring.jury is not None:
                assert req.judge_calls_per_instance == len(m.scoring.jury.judges), m.id


def test_a_benchmark_whose_scoring_is_not_expressible_is_not_counted_either_way(reg):
    m = next((m.model_copy(deep=True) for ds in reg.datasets.values() for m in ds.mappings
              if m.scoring is None and m.scoring_note is not None), None)
    if m is None:
        pytest.skip("the registry holds no benchmark with a scoring note")
    req = judge_requirement(m)
    assert req.needs_judge is None and req.judge_calls_per_instance is None and "scoring note" in req.calls_basis
    assert judge_calls(m) == (None, None)
