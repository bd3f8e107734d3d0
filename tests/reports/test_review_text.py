"""The text of the review commands, rendered from their data (reports.review_text)."""

from __future__ import annotations

import datetime as dt
import json

from clinreg.reports.review_text import (
    EXPLAINED, adjudication_line, agreement_lines, decision_line, import_lines, render_agreement, render_status,
    status_lines,
)
from clinreg.review.exchange import ImportResult
from clinreg.review.signoff import SignOff

ROW = {"file": "taxonomy/care.yaml", "kind": "task", "id": "answer_questions", "state": "changes_requested",
       "version": 2, "decisions": [{"name": "Dr A", "decision": "changes_requested"}],
       "previous": {"decision": "approved", "reviewed": {"name": "Answer", "definition": "Old wording."},
                    "now": {"name": "Answer", "definition": "New wording."}}}


def test_status_lines_name_each_decision_and_what_changed_since():
    assert status_lines([ROW], "pending") == [
        "taxonomy/care.yaml: task answer_questions  changes requested; Dr A: changes requested",
        "    definition: approved 'Old wording.', now 'New wording.'",
        "1 item(s) (pending)"]
    assert status_lines([ROW], None, show_hashes=True)[0] == (
        "taxonomy/care.yaml: task answer_questions  changes requested  (version 2); Dr A: changes requested")
    assert status_lines([], None) == ["0 item(s)"]


def test_status_shows_an_adjudication_who_made_it_and_why_and_a_panels_tally():
    row = {**ROW, "state": "approved", "previous": None,
           "decisions": [{"name": "Dr Ben Brown", "decision": "rejected"}],
           "adjudication": {"maintainer": "Max", "decision": "approved", "date": "2026-12-01",
                            "reason": "As published."}}
    assert status_lines([row], None)[:2] == [
        "taxonomy/care.yaml: task answer_questions  approved (by adjudication); Dr Ben Brown: rejected",
        "    adjudicated: approved by Max on 2026-12-01; reason: As published."]
    panel = {"approvals": 1, "min_approvals": 2, "changes_requested": 0, "rejections": 1}
    row = {**ROW, "state": "split", "previous": None, "panel": panel}
    assert "[1 approval of the 2 needed (1 more needed); 1 rejection is open]" in status_lines([row], None)[0]
    assert json.loads(render_status([ROW], None, "json"))["data"] == {"filter": None, "items": [ROW]}
    assert render_status([ROW], "pending", "table") == "\n".join(status_lines([ROW], "pending"))


def test_a_reviewer_name_cannot_drive_the_terminal():
    row = {**ROW, "decisions": [{"name": "Dr \x1b[2J", "decision": "approved"}], "previous": None}
    assert "\x1b" not in status_lines([row], None)[0]


SUMMARY = {"reviewers": 2, "items": 3, "pairable_items": 1, "percent_agreement": 0.5, "alpha": None,
           "alpha_undefined": "every decision is the same",
           "split": [{"kind": "task", "id": "t1", "decisions": {"Dr A": "approved", "Dr B": "rejected"},
                      "state": "conflicting", "adjudicated": False}],
           "items_by_reviewer": [{"reviewer": "Dr A", "items": 2}, {"reviewer": "Dr B", "items": 1}]}


def test_agreement_lines_say_n_a_where_no_statistic_exists():
    data = {"overall": SUMMARY, "categories": [{**SUMMARY, "id": "care"}], "subcategories": []}
    assert agreement_lines(data) == [
        "panel: 2 reviewer(s), 3 item(s) reviewed, 1 by two or more; percent agreement 50.0%, alpha n/a (every "
        "decision is the same); split on 1",
        *EXPLAINED,
        "  Dr A: 2 item(s)", "  Dr B: 1 item(s)",
        "  split: task t1 (Dr A: approved, Dr B: rejected; now conflicting)",
        "category care: 2 reviewer(s), 3 item(s) reviewed, 1 by two or more; percent agreement 50.0%, alpha n/a "
        "(every decision is the same); split on 1"]
    assert json.loads(render_agreement(data, "json"))["kind"] == "review_agreement"


def test_import_lines_split_what_was_applied_from_the_counts():
    applied = [{"file": "taxonomy/care.yaml", "line": 9, "decision": "changes_requested", "kind": "task", "id": "t1",
                "reviewer": "Dr A", "state": "changes_requested"},
               {"file": "taxonomy/care.yaml", "line": 20, "decision": "comment", "kind": "task", "id": "t2",
                "reviewer": "Dr A", "state": "proposed"}]
    result = ImportResult(applied=applied, refused=[{"where": "row 4", "reason": "stale"}], already=[{}])
    out, err = import_lines(result)
    assert out == ["taxonomy/care.yaml:9: changes requested task 't1' by Dr A (now changes requested)",
                   "taxonomy/care.yaml:20: comment (no decision) on task 't2' by Dr A (still proposed)"]
    assert err == ["clinreg: refused: row 4: stale",
                   "1 decision(s) recorded, 1 comment(s) without a decision recorded as comments (they change no "
                   "review state), 1 refused, 1 already recorded"]
    assert import_lines(ImportResult())[1] == ["0 decision(s) recorded, 0 refused"]


def test_a_recorded_decision_and_an_adjudication():
    done = SignOff("task", "t1", "taxonomy/care.yaml", 12, "changes_requested", {"name": "Dr A"},
                   dt.date(2025, 6, 1), "sha256:x", 2, "changes_requested")
    assert decision_line(done, "changes_requested") == ("taxonomy/care.yaml:12: changes requested for task 't1' by "
                                                        "Dr A on 2025-06-01 (review 2 of this item)")
    assert adjudication_line(done, "changes_requested") == ("taxonomy/care.yaml:12: adjudicated task 't1': changes "
                                                            "requested by Dr A on 2025-06-01 (now changes requested)")
