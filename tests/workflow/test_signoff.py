"""`clinreg review approve|reject|request-changes`: only the item's review block changes, byte for byte."""

from __future__ import annotations

import difflib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinreg.coverage import coverage_data
from clinreg.hashing import review_hash
from clinreg.rules.engine import validate
from clinreg.store import load_registry
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
        provenance: {kind: source, citation: {text: "A paper, with a comma, that runs on for far longer than any line-width setting of a YAML dumper would allow"}}
        review: {status: proposed}  # awaiting review

      - id: rank_differentials
        name: Rank differentials
        definition: Rank candidate diagnoses.
        provenance:
          kind: drafted
        review:
          status: proposed
          # a comment inside the review block
  - {id: treatment, name: Treatment, definition: Deciding what to do., tasks: [{id: plan_treatment, name: Plan treatment, definition: Write a treatment plan., provenance: {kind: drafted}, review: {status: proposed}}]}
# a closing comment
"""


@pytest.fixture
def care(tmp_path):
    return write_tree(tmp_path / "reg", {CARE: CATEGORY})


def _diff(before: str, after: str) -> list[tuple[str, list[str], list[str]]]:
    """The changed regions as (opcode, old lines, new lines)."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    return [(op, a[i1:i2], b[j1:j2]) for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
            if op != "equal"]


def test_approve_changes_only_the_review_lines(care):
    path = care / CARE
    before = path.read_bytes()
    result = sign(care, "approve", "answer_questions", "--reviewer", "Jane Doe", "--orcid", "0000-0002-1825-0097",
                  "--note", "Clear: yes.", "--date", "2025-06-01")
    assert result.exit_code == 0, result.output
    after = path.read_bytes()
    digest = review_hash("Answer questions", "Answer a clinical question.")
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
    result = sign(care, "approve", "answer_questions", "--reviewer", "Ali Khan", "--date", "2025-06-02", "--format", "json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)["data"]
    assert payload["reviewers"] == 2 and payload["status"] == "approved" and payload["kind"] == "task"
    twice = path.read_text(encoding="utf-8")
    changes = _diff(once, twice)
    old = [line for _, a, _ in changes for line in a]
    new = [line for _, _, b in changes for line in b]
    # the first reviewer's lines and the unchanged hash (with its comment) stay; the new entry and date differ
    assert old == ["          date: 2025-06-01\n"]
    assert new == ["            - name: Ali Khan\n", "              date: 2025-06-02\n", "              decision: approved\n",
                   "          date: 2025-06-02\n"]
    task = load_registry(care).tasks()["answer_questions"].task
    assert [r.name for r in task.review.reviewers] == ["Jane Doe", "Ali Khan"]
    assert str(task.review.date) == "2025-06-02"


def test_reject_and_request_changes_record_their_status(care):
    assert sign(care, "reject", "rank_differentials", "--reviewer", "Jane Doe", "--note", "Not a task.").exit_code == 0
    assert sign(care, "request-changes", "answer_questions", "--reviewer", "Jane Doe", "--note", "Say which question.").exit_code == 0
    tasks = load_registry(care).tasks()
    rank, answer = tasks["rank_differentials"].task.review, tasks["answer_questions"].task.review
    assert (rank.status, rank.reviewers[-1].decision, rank.reviewers[-1].note) == ("rejected", "rejected", "Not a task.")
    assert (answer.status, answer.reviewers[-1].decision) == ("changes_requested", "changes_requested")
    assert rank.content_hash == review_hash("Rank differentials", "Rank candidate diagnoses.")
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
    digest = review_hash("Diagnosis", "Deciding what is wrong.")
    assert changes[0][2] == [
        "    review:\n", "      status: approved\n", "      reviewers:\n", "        - name: Jane Doe\n",
        "          date: 2025-06-01\n", "          decision: approved\n", "      date: 2025-06-01\n",
        f'      content_hash: "{digest}"\n',
    ]
    assert after.index("    review:\n") > after.index("      over two lines.\n") and after.index("    review:\n") < after.index("    tasks:")
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
    path.write_text(text.replace("Answer a clinical question.", "Answer any clinical question."), encoding="utf-8")
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
