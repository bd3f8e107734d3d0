"""`clinreg review approve|reject|request-changes`: only the item's review block changes, byte for byte."""

from __future__ import annotations

import difflib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinreg.core.hashing import review_hash
from clinreg.core.store import load_registry
from clinreg.reports.coverage import coverage_data
from clinreg.rules.engine import validate
from trees import write_tree
from workflow.helpers import sign

CARE = "taxonomy/care.yaml"

# The fixture's category file, dressed up with everything a round trip through a YAML dumper would disturb:
# comments everywhere, odd quoting, flow and block styles, a folded scalar and a line far over 80 characters.
CATEGORY = """\
# yaml-language-server: $schema=../schemas/category.schema.json
# Care: a hand-written header comment.
id: care
name: 'Care'
definition: >-
  Work done while caring for patients, written over two lines so that a dumper
  would be tempted to re-fold it.
subcategories:

  # ---- diagnosis ------------------------------------------------------------
  - id: diagnosis
    name: "Diagnosis"   # double-quoted on purpose
    definition: Deciding what is wrong.
    note: >-
      A folded note
      over two lines.
    tasks:
      - id: answer_questions
        name: Answer questions
        definition: Answer a clinical question.   # trailing comment
        provenance: {kind: published, quote: "A name", citation: {text: "A paper, with a comma, that runs on for far \
longer than any line-width setting of a YAML dumper would allow"}}
        review: {status: proposed}  # awaiting review

      - id: rank_differentials
        name: Rank differentials
        definition: Rank candidate diagnoses.
        provenance:
          kind: drafted
        review:
          status: proposed
          # a comment inside the review block
  - {id: treatment, name: Treatment, definition: Deciding what to do., tasks: [{id: plan_treatment, name: Plan \
treatment, definition: Write a treatment plan., provenance: {kind: drafted}, review: {status: proposed}}]}
# a closing comment
"""


@pytest.fixture
def care(tmp_path):
    return write_tree(tmp_path / "reg", {CARE: CATEGORY})


def _diff(before: str, after: str) -> list[tuple[str, list[str], list[str]]]:
    """The changed regions as (opcode, old lines, new lines)."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    return [(op, a[i1:i2], b[j1:j2])
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
            if op != "equal"]


def test_approve_changes_only_the_review_lines(care):
    path = care / CARE
    before = path.read_bytes()
    result = sign(care, "approve", "answer_questions", "--reviewer", "Jane Doe", "--orcid", "0000-0002-1825-0097",
                  "--note", "Clear: yes.", "--date", "2025-06-01")
    assert result.exit_code == 0, result.output
    after = path.read_bytes()
    digest = review_hash("Answer questions", "Answer a clinical question.", None, "diagnosis")
    expected = before.replace(
        b"        review: {status: proposed}  # awaiting review\n",
        ("        review:\n"
         "          status: approved\n"
         "          reviewers:\n"
         "            - name: Jane Doe\n"
         "              orcid: 0000-0002-1825-0097\n"
         "              date: 2025-06-01\n"
         "              decision: approved\n"
         '              note: "Clear: yes."\n'
         f'              content_hash: "{digest}"\n'
         "              reviewed:\n"
         "                name: Answer questions\n"
         "                definition: Answer a clinical question.\n"
         "                placement: diagnosis\n"
         "          date: 2025-06-01\n"
         f'          content_hash: "{digest}"  # awaiting review\n').encode(),
    )
    assert after == expected
    # byte-level: the only changed region is that task's review line
    changes = _diff(before.decode(), after.decode())
    assert len(changes) == 1 and changes[0][0] == "replace"
    assert changes[0][1] == ["        review: {status: proposed}  # awaiting review\n"]
    assert all(line.startswith("        review:") or line.startswith("          ") for line in changes[0][2])
    assert [d for d in validate(care).diagnostics if d.severity != "info" and d.file == CARE] == []


def test_approve_twice_appends_a_reviewer_and_keeps_the_first(care):
    path = care / CARE
    assert sign(care, "approve", "answer_questions", "--reviewer", "Jane Doe", "--date", "2025-06-01").exit_code == 0
    once = path.read_text(encoding="utf-8")
    result = sign(care, "approve", "answer_questions", "--reviewer", "Ali Khan", "--date", "2025-06-02", "--format",
                  "json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)["data"]
    assert payload["reviewers"] == 2 and payload["status"] == "approved" and payload["kind"] == "task"
    twice = path.read_text(encoding="utf-8")
    changes = _diff(once, twice)
    old = [line for _, a, _ in changes for line in a]
    new = [line for _, _, b in changes for line in b]
    # the first reviewer's lines and the unchanged hash (with its comment) stay; the new entry and date differ
    assert old == ["          date: 2025-06-01\n"]
    assert new[:3] == ["            - name: Ali Khan\n", "              date: 2025-06-02\n",
                       "              decision: approved\n"]
    # plus the decision's hash and the wording it covers
    assert new[-1] == "          date: 2025-06-02\n" and len(new) == 9
    task = load_registry(care).tasks()["answer_questions"].task
    assert [r.name for r in task.review.reviewers] == ["Jane Doe", "Ali Khan"]
    assert str(task.review.date) == "2025-06-02"


def test_reject_and_request_changes_record_their_status(care):
    assert sign(care, "reject", "rank_differentials", "--reviewer", "Jane Doe", "--note", "Not a task.").exit_code == 0
    assert sign(care, "request-changes", "answer_questions", "--reviewer", "Jane Doe", "--note",
                "Say which question.").exit_code == 0
    tasks = load_registry(care).tasks()
    rank, answer = tasks["rank_differentials"].task.review, tasks["answer_questions"].task.review
    assert (rank.status, rank.reviewers[-1].decision, rank.reviewers[-1].note) == ("rejected", "rejected",
                                                                                   "Not a task.")
    assert (answer.status, answer.reviewers[-1].decision) == ("changes_requested", "changes_requested")
    assert rank.content_hash == review_hash("Rank differentials", "Rank candidate diagnoses.", None, "diagnosis")
    assert rank.reviewers[-1].content_hash == rank.content_hash
    assert rank.reviewers[-1].reviewed.definition == "Rank candidate diagnoses."
    states = {t["id"]: t["review"] for t in coverage_data(load_registry(care))["tasks"]}
    assert states["rank_differentials"] == "rejected" and states["answer_questions"] == "changes_requested"


def test_block_review_with_a_comment_is_replaced_in_place(care):
    path = care / CARE
    before = path.read_text(encoding="utf-8")
    assert sign(care, "reject", "rank_differentials", "--reviewer", "Jane Doe", "--date", "2025-06-01").exit_code == 0
    changes = _diff(before, path.read_text(encoding="utf-8"))
    assert [a for _, a, _ in changes] == [["          status: proposed\n"]]  # the comment inside the block stays
    assert changes[0][2][0] == "          status: rejected\n"


def test_subcategory_review_is_inserted_before_its_tasks(care):
    path = care / CARE
    before = path.read_text(encoding="utf-8")
    result = sign(care, "approve", "diagnosis", "--reviewer", "Jane Doe", "--date", "2025-06-01")
    assert result.exit_code == 0, result.output
    after = path.read_text(encoding="utf-8")
    changes = _diff(before, after)
    assert len(changes) == 1 and changes[0][0] == "insert"
    digest = review_hash("Diagnosis", "Deciding what is wrong.", None, "care")
    assert changes[0][2] == [
        "    review:\n", "      status: approved\n", "      reviewers:\n", "        - name: Jane Doe\n",
        "          date: 2025-06-01\n", "          decision: approved\n", f'          content_hash: "{digest}"\n',
        "          reviewed:\n", "            name: Diagnosis\n", "            definition: Deciding what is wrong.\n",
        "            placement: care\n", "      date: 2025-06-01\n", f'      content_hash: "{digest}"\n',
    ]
    assert (after.index("    review:\n") > after.index("      over two lines.\n")
            and after.index("    review:\n") < after.index("    tasks:"))
    data = coverage_data(load_registry(care))
    assert next(s for s in data["subcategories"] if s["id"] == "diagnosis")["subcategory_review"] == "approved"


def test_items_in_flow_style_stay_on_their_line(care):
    path = care / CARE
    before = path.read_text(encoding="utf-8")
    assert sign(care, "approve", "plan_treatment", "--reviewer", "Jane Doe", "--date", "2025-06-01").exit_code == 0
    assert sign(care, "approve", "treatment", "--reviewer", "Jane Doe", "--date", "2025-06-01").exit_code == 0
    after = path.read_text(encoding="utf-8")
    changes = _diff(before, after)
    assert len(changes) == 1 and len(changes[0][1]) == len(changes[0][2]) == 1
    reg = load_registry(care)
    assert reg.tasks()["plan_treatment"].task.review.status == "approved"
    assert reg.categories["care"][0].subcategories[1].review.status == "approved"
    assert [d for d in validate(care).diagnostics if d.code == "CLR801"] == []


def test_crlf_file_stays_crlf(tmp_path):
    root = write_tree(tmp_path / "reg")
    path = root / CARE
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    before = path.read_bytes()
    assert sign(root, "approve", "answer_questions", "--reviewer", "Jane Doe", "--date", "2025-06-01").exit_code == 0
    after = path.read_bytes()
    assert b"\n" not in after.replace(b"\r\n", b"")
    head, tail = before.split(b"        review: {status: proposed}\r\n", 1)
    assert after.startswith(head + b"        review:\r\n          status: approved\r\n")
    assert after.endswith(tail)


def test_editing_an_approved_task_reports_clr801_with_item_and_reviewer(care):
    assert sign(care, "approve", "answer_questions", "--reviewer", "Jane Doe", "--date", "2025-06-01").exit_code == 0
    assert [d for d in validate(care).diagnostics if d.code == "CLR801"] == []
    path = care / CARE
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("Answer a clinical question.", "Answer any clinical question.", 1), encoding="utf-8")
    stale = [d for d in validate(care).diagnostics if d.code == "CLR801"]
    assert len(stale) == 1
    assert stale[0].file == CARE and "'answer_questions'" in stale[0].message and "Jane Doe" in stale[0].message
    assert stale[0].line == path.read_text(encoding="utf-8").splitlines().index(
        "        definition: Answer any clinical question.   # trailing comment") + 1
    task = next(t for t in coverage_data(load_registry(care))["tasks"] if t["id"] == "answer_questions")
    assert task["review"] == "stale"


def test_unknown_item_suggests_the_closest_and_changes_nothing(care):
    before = (care / CARE).read_bytes()
    result = sign(care, "approve", "answer_question", "--reviewer", "Jane Doe")
    assert result.exit_code == 2
    assert "did you mean 'answer_questions'" in result.output and "Traceback" not in result.output
    assert (care / CARE).read_bytes() == before


@pytest.mark.parametrize("args, message", [
    (("--reviewer", "  "), "--reviewer"),
    (("--reviewer", "Jane", "--orcid", "12345"), "ORCID"),
    (("--reviewer", "Jane", "--date", "June 1st"), "--date"),
    ((), "Missing option"),
])
def test_bad_reviewer_details_are_usage_errors(care, args, message):
    before = (care / CARE).read_bytes()
    result = sign(care, "approve", "answer_questions", *args)
    assert result.exit_code == 2 and message in result.output, result.output
    assert (care / CARE).read_bytes() == before


def test_broken_root_is_a_usage_error(tmp_path):
    result = sign(tmp_path / "nowhere", "approve", "x", "--reviewer", "Jane")
    assert result.exit_code == 2 and "Traceback" not in result.output


_words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=30)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=_words, note=_words)
def test_any_reviewer_text_round_trips_or_is_refused(tmp_path_factory, name, note):
    root = write_tree(tmp_path_factory.mktemp("reg"), {CARE: CATEGORY})
    before = (root / CARE).read_bytes()
    result = sign(root, "approve", "answer_questions", "--reviewer", name, "--note", note, "--date", "2025-06-01")
    if result.exit_code != 0:
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert (root / CARE).read_bytes() == before
        return
    review = load_registry(root).tasks()["answer_questions"].task.review
    assert review.reviewers[-1].name == " ".join(name.split())
    assert review.reviewers[-1].note in (note.strip(), None)
    changes = _diff(before.decode(), (root / CARE).read_text(encoding="utf-8"))
    assert [a for _, a, _ in changes] == [["        review: {status: proposed}  # awaiting review\n"]]


# --------------------------------------------------------------------------------------------- derived states


def _state(root, task_id):
    return next(t for t in coverage_data(load_registry(root))["tasks"] if t["id"] == task_id)["review"]


@pytest.mark.parametrize("old, new", [
    ("        definition: Rank candidate diagnoses.\n",
     "        definition: Rank candidate diagnoses.\n        example: Rank pneumonia first for every cough.\n"),
])
def test_an_approval_covers_the_example_and_goes_stale_when_it_changes(care, old, new):
    assert sign(care, "approve", "rank_differentials", "--reviewer", "Jane Doe", "--date", "2025-06-01").exit_code == 0
    assert _state(care, "rank_differentials") == "approved"
    path = care / CARE
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    stale = [d for d in validate(care).diagnostics if d.code == "CLR801"]
    assert len(stale) == 1 and "example was '(none)', now 'Rank pneumonia first for every cough.'" in stale[0].message
    assert _state(care, "rank_differentials") == "stale"


def test_moving_an_approved_task_to_another_subcategory_makes_it_stale(care):
    assert sign(care, "approve", "plan_treatment", "--reviewer", "Jane Doe", "--date", "2025-06-01").exit_code == 0
    path = care / CARE
    text = path.read_text(encoding="utf-8")
    # move the flow-style task out of `treatment` into `diagnosis` (first in its task list)
    flow_task = text[text.index("{id: plan_treatment"):text.index("]}\n# a closing")]
    text = text.replace("tasks: [" + flow_task + "]", "tasks: []")
    text = text.replace("    tasks:\n", "    tasks:\n      - " + flow_task + "\n", 1)
    path.write_text(text, encoding="utf-8")
    stale = [d for d in validate(care).diagnostics if d.code == "CLR801"]
    assert len(stale) == 1 and "placement was 'treatment', now 'diagnosis'" in stale[0].message


def test_two_reviewers_who_disagree_are_a_conflict_and_strict_validate_fails(care):
    from clinreg.cli.main import main
    from clirunner import invoke

    assert sign(care, "approve", "answer_questions", "--reviewer", "Jane Doe").exit_code == 0
    assert sign(care, "reject", "answer_questions", "--reviewer", "Ali Khan", "--note", "Too vague.").exit_code == 0
    assert _state(care, "answer_questions") == "conflicting"
    conflicts = [d for d in validate(care).diagnostics if d.code == "CLR802"]
    assert (len(conflicts) == 1 and "Jane Doe: approved" in conflicts[0].message
            and "Ali Khan: rejected" in conflicts[0].message)
    assert invoke(main, ["validate", "--root", str(care)]).exit_code == 0
    strict = invoke(main, ["validate", "--strict", "--root", str(care)])
    assert strict.exit_code == 1 and "CLR802 [error]" in strict.output
    # Ali changes their mind: their latest decision replaces their earlier one, and the conflict is gone.
    assert sign(care, "approve", "answer_questions", "--reviewer", "Ali Khan").exit_code == 0
    assert _state(care, "answer_questions") == "approved"
    assert invoke(main, ["validate", "--strict", "--root", str(care)]).exit_code == 0


def test_changes_requested_then_revised_awaits_re_review(care):
    assert sign(care, "request-changes", "rank_differentials", "--reviewer", "Jane Doe", "--note",
                "Say ranked by what.").exit_code == 0
    assert _state(care, "rank_differentials") == "changes_requested"
    path = care / CARE
    path.write_text(path.read_text(encoding="utf-8").replace("Rank candidate diagnoses.",
                                                             "Rank candidate diagnoses by likelihood.", 1),
                    encoding="utf-8")
    assert _state(care, "rank_differentials") == "revised"
    assert sign(care, "approve", "rank_differentials", "--reviewer", "Jane Doe").exit_code == 0
    assert _state(care, "rank_differentials") == "approved"


def test_a_stale_approval_fails_strict_validate(care):
    from clinreg.cli.main import main
    from clirunner import invoke

    assert sign(care, "approve", "answer_questions", "--reviewer", "Jane Doe").exit_code == 0
    path = care / CARE
    path.write_text(path.read_text(encoding="utf-8").replace("Answer a clinical question.", "Answer any question.", 1),
                    encoding="utf-8")
    result = invoke(main, ["validate", "--strict", "--root", str(care)])
    assert result.exit_code == 1 and "CLR801 [error]" in result.output


def test_a_rejected_task_leaves_the_coverage_denominators(care):
    before = coverage_data(load_registry(care))
    assert sign(care, "reject", "rank_differentials", "--reviewer", "Jane Doe", "--note", "Not a task.").exit_code == 0
    after = coverage_data(load_registry(care))
    assert after["totals"]["tasks"] == before["totals"]["tasks"] - 1 and after["totals"]["tasks_rejected"] == 1
    assert after["totals"]["by_tier"]["drafted"]["tasks"] == before["totals"]["by_tier"]["drafted"]["tasks"] - 1
    assert "1 rejected task is left out of every count" in after["provenance_note"]
    diagnosis = next(s for s in after["subcategories"] if s["id"] == "diagnosis")
    assert diagnosis["tasks"] == 1 and diagnosis["tasks_rejected"] == 1


def test_review_status_lists_states_and_shows_old_beside_new_wording(care):
    from clirunner import invoke

    from clinreg.cli.main import main

    assert sign(care, "approve", "answer_questions", "--reviewer", "Jane Doe").exit_code == 0
    assert sign(care, "approve", "rank_differentials", "--reviewer", "Jane Doe").exit_code == 0
    assert sign(care, "reject", "rank_differentials", "--reviewer", "Ali Khan").exit_code == 0
    path = care / CARE
    path.write_text(path.read_text(encoding="utf-8").replace("Answer a clinical question.", "Answer any question.", 1),
                    encoding="utf-8")

    def status(*args):
        result = invoke(main, ["review", "status", "--root", str(care), *args])
        assert result.exit_code == 0, result.output
        return result.output

    data = json.loads(status("--format", "json"))["data"]
    states = {i["id"]: i["state"] for i in data["items"]}
    assert states == {"diagnosis": "proposed", "answer_questions": "stale", "rank_differentials": "conflicting",
                      "treatment": "proposed", "plan_treatment": "proposed"}
    stale = json.loads(status("--stale", "--format", "json"))["data"]["items"]
    assert [i["id"] for i in stale] == ["answer_questions"]
    assert stale[0]["previous"]["reviewed"]["definition"] == "Answer a clinical question."
    assert stale[0]["previous"]["now"]["definition"] == "Answer any question."
    assert [i["id"] for i in json.loads(status("--conflicts", "--format",
                                               "json"))["data"]["items"]] == ["rank_differentials"]
    pending = {i["id"] for i in json.loads(status("--pending", "--format", "json"))["data"]["items"]}
    assert pending == {"diagnosis", "answer_questions", "rank_differentials", "treatment", "plan_treatment"}
    text = status("--stale")
    assert "definition: approved 'Answer a clinical question.', now 'Answer any question.'" in text


@pytest.mark.parametrize("item, needle", [
    ("answer_questions", "      - id: answer_questions"),  # a block item with a flow review
    ("rank_differentials", "      - id: rank_differentials"),  # a block review replaced in place
    ("plan_treatment", "  - {id: treatment"),  # a flow item inside a flow subcategory: its line
    ("diagnosis", "  - id: diagnosis"),  # a subcategory, its review inserted
])
def test_the_reported_line_is_the_items_line_in_the_written_file(care, item, needle):
    """The line `review approve` prints is where the item starts in the file as written (computed from the
    parse made for the edit, not a second parse)."""
    result = sign(care, "approve", item, "--reviewer", "Jane Doe", "--date", "2025-06-01")
    assert result.exit_code == 0, result.output
    lines = (care / CARE).read_text(encoding="utf-8").splitlines()
    expected = next(i for i, line in enumerate(lines, 1) if line.startswith(needle))
    assert f"{CARE}:{expected}: approved" in result.output, result.output


# ------------------------------------------------------------------------- many decisions, one write per file

ITEMS = [("answer_questions", "task"), ("rank_differentials", "task"), ("plan_treatment", "task"),
         ("diagnosis", "subcategory"), ("treatment", "subcategory")]


def _requests():
    from clinreg.review.signoff import Request

    out = [Request(item, "approved", "Jane Doe", kind=kind) for item, kind in ITEMS]
    out.insert(2, Request("answer_questions", "changes_requested", "Ali Khan", note="Say which questions.",
                          kind="task"))
    return out


def test_many_decisions_write_what_one_at_a_time_would(tmp_path):
    """sign_off_many applies every decision on a file from one parse and writes once; the file and each
    outcome (line, state, reviewers) must be what sign_off gives one decision after another. The fixture has
    block and flow items, reviews to replace and reviews to insert, and two reviewers on one task."""
    import datetime as dt

    from clinreg.review.signoff import sign_off, sign_off_many

    day = dt.date(2025, 6, 1)
    one, many = write_tree(tmp_path / "one", {CARE: CATEGORY}), write_tree(tmp_path / "many", {CARE: CATEGORY})
    singles = [sign_off(load_registry(one), r.item_id, r.decision, r.reviewer, note=r.note, kind=r.kind, today=day)
               for r in _requests()]
    batch = sign_off_many(load_registry(many), _requests(), today=day)
    assert (many / CARE).read_bytes() == (one / CARE).read_bytes()
    # The same outcomes, except that every line is a line of the file as finally written (one at a time, an
    # item's line is reported before later decisions insert review blocks above it).
    assert [{**b.to_dict(), "line": 0} for b in batch] == [{**s.to_dict(), "line": 0} for s in singles]
    lines = (many / CARE).read_text(encoding="utf-8").splitlines()
    for outcome in batch:
        assert f"id: {outcome.id}" in lines[outcome.line - 1], (outcome.id, outcome.line)
    assert batch[0].state == "approved" and batch[0].reviewers == 1 and batch[2].reviewers == 2


def test_a_stale_decision_among_many_is_refused_and_the_others_written(care):
    from clinreg.review.signoff import Request, StaleDecision, sign_off_many

    requests = _requests()
    requests[1] = Request("rank_differentials", "approved", "Jane Doe", kind="task", expected_hash="sha256:" + "0" * 64)
    outcomes = sign_off_many(load_registry(care), requests)
    assert isinstance(outcomes[1], StaleDecision) and "changed since the decision was made" in str(outcomes[1])
    assert all(not isinstance(o, Exception) for i, o in enumerate(outcomes) if i != 1)
    text = (care / CARE).read_text(encoding="utf-8")
    assert text.count("name: Jane Doe") == len(ITEMS) - 1 and "name: Ali Khan" in text
    assert [d for d in validate(care).diagnostics if d.severity == "error"] == []


def test_a_file_the_joint_edit_cannot_verify_falls_back_to_one_decision_at_a_time(care, monkeypatch):
    import clinreg.review.signoff as signoff

    real = signoff._splice_many
    calls = []

    def flaky(text, reviews):
        calls.append(len(reviews))
        if len(reviews) > 1:
            raise signoff.SignOffError("two review blocks overlap in the file")
        return real(text, reviews)

    monkeypatch.setattr(signoff, "_splice_many", flaky)
    outcomes = signoff.sign_off_many(load_registry(care), _requests())
    assert all(not isinstance(o, Exception) for o in outcomes), outcomes
    assert calls[0] == len(ITEMS) and calls[1:] == [1] * len(_requests())
    assert (care / CARE).read_text(encoding="utf-8").count("name: Jane Doe") == len(ITEMS)


def _packaged_tree(tmp_path, monkeypatch):
    """A tree where an installed wheel keeps its registry (<package>/_registry), with clinreg.cli.common pointing
    there."""
    import clinreg.cli.common

    package = tmp_path / "site" / "clinreg"
    root = write_tree(package / "_registry", {CARE: CATEGORY})
    monkeypatch.setattr(clinreg.cli.common, "__file__", str(package / "cli" / "common.py"))
    return root


@pytest.mark.parametrize("command", ["approve", "import"])
def test_writing_into_the_packaged_registry_is_refused_in_one_line(tmp_path, monkeypatch, command):
    from clirunner import invoke

    from clinreg.cli.main import main

    root = _packaged_tree(tmp_path, monkeypatch)
    before = (root / CARE).read_bytes()
    if command == "approve":
        args = ["review", "approve", "answer_questions", "--reviewer", "Jane Doe", "--root", str(root)]
    else:
        decisions = tmp_path / "decisions.csv"
        decisions.write_text("id,decision,reviewer\nanswer_questions,approved,Jane Doe\n", encoding="utf-8")
        args = ["review", "import", str(decisions), "--root", str(root)]
    result = invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        "clinreg: error: the registry shipped inside the installed package is read-only; run this in a checkout "
        "of a registry tree, or pass --root DIR"]
    assert (root / CARE).read_bytes() == before


@pytest.mark.parametrize("command", ["approve", "import"])
def test_a_bad_date_is_a_one_line_usage_error(care, tmp_path, command):
    from clirunner import invoke

    from clinreg.cli.main import main

    target = (["approve", "answer_questions", "--reviewer", "Jane Doe"] if command == "approve"
              else ["import", str(tmp_path / "x.csv")])
    result = invoke(main, ["review", *target, "--date", "2025-13-01", "--root", str(care)])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == ["clinreg: error: --date '2025-13-01' is not a date such as "
                                                  "2025-06-01"]
