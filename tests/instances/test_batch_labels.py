"""MappingBuild.labels keeps a batch's labels per variant: `status` and then `instances` on the same table work
the label scheme out once, another table (even of equal content) is worked out again, and variants never share."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from record_fixtures import record
from clinreg.instances import batch as batch_module
from clinreg.instances.batch import MappingBuild

VARIANTS = {
    "input_template": "{{ Question }}|{{ answer }}",
    "label": {"encoding": "coded", "map": {"0": "A", "1": "B"}, "positive": "1"},
    "variants": [
        {"id": "factual", "columns": {"answer": "Ground Truth"}, "label": "0"},
        {"id": "hallucinated", "columns": {"answer": "Hallucinated Answer"}, "label": "1"},
    ],
}


@pytest.fixture
def normalised(monkeypatch):
    """Every call of the label scheme's normalise, by the variant label it was given."""
    calls = []
    real = batch_module.normalise

    def spy(*args, **kwargs):
        calls.append(kwargs.get("variant_label"))
        return real(*args, **kwargs)

    monkeypatch.setattr(batch_module, "normalise", spy)
    return calls


def _letters(table: pa.Table) -> MappingBuild:
    rec = record({"input_template": "{{ question }}",
                  "label": {"encoding": "letter", "column": "gold", "letters": ["A", "B", "C"]},
                  "choices": {"columns": ["a", "b", "c"]}})
    return MappingBuild(rec, rec.mappings[0])


def _table(golds: list[str]) -> pa.Table:
    n = len(golds)
    return pa.table({"question": [f"q{i}" for i in range(n)], "a": ["x"] * n, "b": ["y"] * n, "c": ["z"] * n,
                     "gold": golds})


def test_status_then_instances_on_one_table_normalise_once(normalised):
    table = _table(["A", "C", "B"])
    build = _letters(table)
    status, _ = build.status(table)
    assert (status == 0).all()
    made = build.instances(table, "test", np.arange(3))
    assert normalised == [None]
    assert [g["letter"] for g in made.gold] == ["A", "C", "B"]


def test_another_table_is_worked_out_again_even_of_equal_content(normalised):
    first, second = _table(["A", "B"]), _table(["C", "A"])
    build = _letters(first)
    build.status(first)
    build.instances(first, "test", np.arange(2))
    build.status(second)
    made = build.instances(second, "test", np.arange(2))
    assert [g["letter"] for g in made.gold] == ["C", "A"]  # the second table's labels, not the first's
    assert normalised == [None, None]
    # Another object of equal content is worked out again too: the check is `is` (no comparison of the data).
    again = pa.table(second.to_pydict())
    assert again.equals(second) and again is not second
    build.status(again)
    build.instances(again, "test", np.arange(2))
    assert len(normalised) == 3


def test_variants_keep_their_own_labels(normalised):
    rows = {"Question": ["Q0", "Q1"], "Ground Truth": ["right", "true"], "Hallucinated Answer": ["wrong", "false"]}
    table = pa.table(rows)
    rec = record(VARIANTS)
    build = MappingBuild(rec, rec.mappings[0])
    status, _ = build.status(table)
    assert (status == 0).all() and normalised == ["0", "1"]
    made = build.instances(table, "test", np.arange(2))
    assert normalised == ["0", "1"]  # both variants' labels were kept from status
    assert list(zip(made.variant, made.input, (g["letter"] for g in made.gold))) == [
        ("factual", "Q0|right", "A"), ("hallucinated", "Q0|wrong", "B"),
        ("factual", "Q1|true", "A"), ("hallucinated", "Q1|false", "B"),
    ]
    fresh = MappingBuild(rec, rec.mappings[0])  # no kept labels: the same instances
    fresh.status(table)
    assert fresh.instances(table, "test", np.arange(2)).gold == made.gold
