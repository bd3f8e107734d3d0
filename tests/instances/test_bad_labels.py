"""Rows whose label is outside the scheme: an error naming split and row by default, counted skips on request."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from record_fixtures import build, hub_folder, record
from clinreg.core.model import MappedScheme
from clinreg.core.builderrors import BadLabel
from clinreg.instances.labels import BAD, OK, UNLABELED, normalise

YES_NO = {"encoding": "string_set", "column": "answer", "map": {"yes": "A", "no": "B"}}


def _folder(tmp_path, answers, split="test"):
    hub_folder(tmp_path, "owner/fixture", {split: [{"question": f"q{i}", "answer": a} for i, a in enumerate(answers)]})


def test_bad_label_names_split_and_row(tmp_path):
    _folder(tmp_path, ["yes", "no", "perhaps", "yes"])
    with pytest.raises(BadLabel) as err:
        build(record({"label": YES_NO}), tmp_path)
    message = str(err.value)
    assert "split 'test'" in message and "row 2" in message and "'perhaps'" in message
    assert "\n" not in message


def test_skip_counts_bad_rows(tmp_path):
    _folder(tmp_path, ["yes", None, "perhaps", "no"])
    out, report = build(record({"label": YES_NO}), tmp_path, on_bad_label="skip")
    assert [i.source_index for i in out] == [0, 3]
    assert report.skipped == 2 and report.tallies[0].skipped_rows == [1, 2]
    assert any(n.kind == "skipped" and "skipped 2 row(s)" in n.text for n in report.notices())


def test_letter_past_the_row_options_is_bad(tmp_path):
    rows = [{"question": "q", "a": "x", "b": "y", "c": None, "gold": "C"}]
    hub_folder(tmp_path, "owner/fixture", {"test": rows})
    rec = record({"choices": {"columns": ["a", "b", "c"]},
                  "label": {"encoding": "letter", "column": "gold", "letters": ["A", "B", "C"]}})
    with pytest.raises(BadLabel, match="names an option the row has"):
        build(rec, tmp_path)


def test_whole_floats_compare_as_integers(tmp_path):
    # A CSV column with a blank is read as float (1.0); it must still match the map key "1".
    table = pa.table({"question": ["a", "b", "c"], "flag": pa.array([1.0, 0.0, None])})
    hub_folder(tmp_path, "owner/fixture", {"test": table})
    rec = record({"label": {"encoding": "coded", "column": "flag", "map": {"0": "A", "1": "B"}}})
    out, report = build(rec, tmp_path, on_bad_label="skip")
    assert [i.answer for i in out] == ["B", "A"] and report.skipped == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["yes", "no", "maybe", "", "Yes"]), st.text(max_size=4)),
                max_size=30))
def test_mapped_status_matches_a_plain_lookup(values):
    scheme = MappedScheme(encoding="string_set", column="answer", map={"yes": "A", "no": "B"}, unlabeled=["maybe"])
    labels = normalise(scheme, pa.table({"answer": pa.array(values, pa.string())}), "t")
    expected = [OK if v in ("yes", "no") else UNLABELED if v == "maybe" else BAD for v in values]
    assert labels.status.tolist() == expected
    assert labels.letters.to_pylist() == [{"yes": "A", "no": "B"}.get(v) for v in values]
    assert isinstance(labels.status, np.ndarray)
