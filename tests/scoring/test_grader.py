"""The grader of a benchmark is derived from its label scheme and scoring, never typed in the record."""

from __future__ import annotations

from clinreg.scoring.grader import AUTOMATIC, EXECUTION, JURY, NOT_EXPRESSIBLE, grader_of
from clinreg.core.store import load_registry
from trees import write_tree


def test_closed_and_jury_mappings_get_their_graders(tmp_path):
    reg = load_registry(write_tree(tmp_path / "reg"))
    closed = grader_of(reg.datasets["qa_set"].mappings[0])
    jury = grader_of(reg.datasets["plans"].mappings[0])
    assert (closed.kind, closed.method) == (AUTOMATIC, "exact match of the chosen option")
    assert jury.kind == JURY and "accuracy, clarity" in jury.method and jury.scale == "1 to 5"


def test_every_embedded_benchmark_has_the_grader_its_scoring_implies():
    reg = load_registry()
    kinds = {m.id: grader_of(m).kind for ds in reg.datasets.values() for m in ds.mappings}
    assert kinds["ehr_sql"] == EXECUTION
    assert kinds["mimiciv_billing_code"] == AUTOMATIC and kinds["medec"] == AUTOMATIC
    for ds in reg.datasets.values():
        for m in ds.mappings:
            expected = JURY if m.scoring is not None and m.scoring.method == "jury" else None
            if expected:
                assert kinds[m.id] == JURY, m.id
            elif m.scoring is None and m.scoring_note is not None:
                assert kinds[m.id] == NOT_EXPRESSIBLE, m.id
            elif m.label.encoding != "free_text":
                assert kinds[m.id] == AUTOMATIC, m.id


def test_a_scoring_note_without_scoring_is_graded_not_expressible(tmp_path):
    from trees import GOOD_TREE

    rel = "registry/datasets/plans.yaml"
    text = GOOD_TREE[rel]
    text = text[:text.index("    scoring:")] + "    scoring_note: NOT EXPRESSIBLE. A rubric per case.\n"
    reg = load_registry(write_tree(tmp_path / "reg", {rel: text}))
    g = grader_of(reg.datasets["plans"].mappings[0])
    assert g.kind == NOT_EXPRESSIBLE and "cannot express" in g.method


def test_compare_with_a_record_added_in_a_later_release_is_no_error_at_the_older_release():
    from clinreg.rules.engine import validate

    report = validate(load_registry().root, release="1.0.0")
    assert [d for d in report.diagnostics if d.code == "CLR306"] == []


def test_an_agent_benchmark_promises_no_stand_in_score():
    """Review finding: an agent's card said an export's token-overlap score stands in, but no export runs it."""
    reg = load_registry()
    agents = [m for ds in reg.datasets.values() for m in ds.mappings
              if m.generation is not None and m.generation.adapter == "agent" and m.scoring is None]
    if not agents:
        import pytest

        pytest.skip("the registry holds no agent benchmark")
    for m in agents:
        g = grader_of(m)
        assert g.kind == NOT_EXPRESSIBLE and "stand-in" not in g.method and "medhelm's own run" in g.method, m.id
