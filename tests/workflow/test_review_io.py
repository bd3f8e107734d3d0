"""The clinician round trip without a terminal: export a spreadsheet, edit it as a clinician would, import it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from clirunner import clinreg as cli, invoke

from clinreg.cli.main import main
from clinreg.core.store import load_registry
from trees import write_tree
from workflow.helpers import only_review_lines_changed
from workflow.test_signoff import CARE, CATEGORY

openpyxl = pytest.importorskip("openpyxl")


@pytest.fixture
def care(tmp_path):
    return write_tree(tmp_path / "reg", {CARE: CATEGORY})


def _export(care, tmp_path, fmt):
    out = tmp_path / f"tasks.{fmt}"
    result = cli("review", "export", "--format", fmt, "-o", out, "--root", care)
    assert result.exit_code == 0, result.output
    return out


def _fill(path, edits):
    """Edit the exported workbook with openpyxl, cell by cell, as a clinician's spreadsheet program would."""
    wb = openpyxl.load_workbook(path)
    ws = wb["tasks"]
    header = [c.value for c in ws[1]]
    rows = {ws.cell(row=r, column=1).value: r for r in range(2, ws.max_row + 1)}
    for task_id, values in edits.items():
        for column, value in values.items():
            ws.cell(row=rows[task_id], column=header.index(column) + 1, value=value)
    wb.save(path)


def test_xlsx_round_trip_records_the_decisions_and_touches_only_review_blocks(care, tmp_path):
    sheet = _export(care, tmp_path, "xlsx")
    wb = openpyxl.load_workbook(sheet)
    header = [c.value for c in wb["tasks"][1]]
    assert header[:9] == ["id", "tier", "category", "subcategory", "name", "definition", "example", "state", "decision"]
    # What only a maintainer needs is at the right (issue 40): provenance as recorded, version and content hash.
    assert header[-3:] == ["source_details", "version", "content_hash"]
    # Each subcategory's row comes before its tasks: subcategories are reviewed in the sheet too.
    assert [(r[0].value, r[header.index("kind")].value) for r in wb["tasks"].iter_rows(min_row=2)] == [
        ("diagnosis", "subcategory"), ("answer_questions", "task"), ("rank_differentials", "task"),
        ("treatment", "subcategory"), ("plan_treatment", "task")]
    _fill(sheet, {"answer_questions": {"decision": "approve", "comment": "Clear.", "reviewer": "Dr Ada Lee",
                                       "orcid": "0000-0002-1825-0097"},
                  "rank_differentials": {"decision": "request changes", "comment": "Ranked by what?",
                                         "reviewer": "Dr Ada Lee"}})
    before = (care / CARE).read_text(encoding="utf-8")
    result = cli("review", "import", sheet, "--root", care, "--date", "2025-06-01")
    assert result.exit_code == 0, result.output
    after = (care / CARE).read_text(encoding="utf-8")
    assert only_review_lines_changed(before, after)
    tasks = load_registry(care).tasks()
    answer = tasks["answer_questions"].task.review
    assert (answer.status, answer.reviewers[-1].name, answer.reviewers[-1].orcid, answer.reviewers[-1].note) == \
        ("approved", "Dr Ada Lee", "0000-0002-1825-0097", "Clear.")
    assert tasks["rank_differentials"].task.review.reviewers[-1].decision == "changes_requested"
    assert tasks["plan_treatment"].task.review.reviewers == []


def test_a_decision_on_changed_wording_is_refused_and_named_the_rest_apply(care, tmp_path):
    sheet = _export(care, tmp_path, "xlsx")
    _fill(sheet, {"answer_questions": {"decision": "approve", "reviewer": "Dr Ada"},
                  "rank_differentials": {"decision": "approve", "reviewer": "Dr Ada"}})
    path = care / CARE
    path.write_text(path.read_text(encoding="utf-8").replace("Rank candidate diagnoses.", "Rank diagnoses.", 1),
                    encoding="utf-8")
    edited = path.read_text(encoding="utf-8")
    result = cli("review", "import", sheet, "--root", care)
    assert result.exit_code == 1
    assert "rank_differentials" in result.output and "changed since the decision was made" in result.output
    tasks = load_registry(care).tasks()
    assert tasks["rank_differentials"].task.review.reviewers == []  # nothing written for the refused task
    assert tasks["answer_questions"].task.review.status == "approved"
    assert "Rank diagnoses." in path.read_text(encoding="utf-8") and path.read_text(encoding="utf-8") != edited


@pytest.mark.parametrize("edit, message", [
    ({"answer_questions": {"decision": "=HYPERLINK(\"http://x\",\"approve\")", "reviewer": "A"}},
     "tasks!I3 (decision): a formula"),
    ({"answer_questions": {"decision": "maybe", "reviewer": "A"}}, "decision 'maybe' is not one of"),
    ({"answer_questions": {"decision": "approve", "reviewer": "A", "comment": "x" * 2001}}, "over the limit of 2000"),
    ({"answer_questions": {"decision": 1, "reviewer": "A"}},
     "tasks!I3 (decision): the spreadsheet read what was typed here as a number"),
    ({"answer_questions": {"decision": "approve", "reviewer": "A", "id": "no_such_task"}},
     "unknown task 'no_such_task'"),
    ({"answer_questions": {"decision": "approve"}}, "reviewer: no reviewer name"),
    ({"answer_questions": {"decision": "approve", "reviewer": "A", "orcid": "123"}}, "orcid: '123' is not an ORCID"),
    ({"answer_questions": {"comment": "Looks odd"}}, "reviewer: no reviewer name"),
    ({"answer_questions": {"decision": "approve", "reviewer": "A", "content_hash": "sha256:00"}}, "content_hash"),
])
def test_bad_cells_are_located_and_nothing_is_written(care, tmp_path, edit, message):
    sheet = _export(care, tmp_path, "xlsx")
    _fill(sheet, {**edit, "rank_differentials": {"decision": "approve", "reviewer": "B"}})
    before = (care / CARE).read_bytes()
    result = cli("review", "import", sheet, "--root", care)
    assert result.exit_code == 2 and message in result.output, result.output
    assert "Traceback" not in result.output and "nothing was imported" in result.output
    assert (care / CARE).read_bytes() == before


def test_csv_round_trip_and_registry_text_never_becomes_a_formula(tmp_path):
    hostile = CATEGORY.replace("name: Rank differentials", "name: \"=HYPERLINK('http://evil','x')\"")
    root = write_tree(tmp_path / "reg", {CARE: hostile})
    sheet = _export(root, tmp_path, "csv")
    text = sheet.read_text(encoding="utf-8")
    assert "'=HYPERLINK" in text and ",=HYPERLINK" not in text
    xlsx = _export(root, tmp_path, "xlsx")
    ws = openpyxl.load_workbook(xlsx)["tasks"]
    assert all(c.data_type != "f" for row in ws.iter_rows() for c in row)
    import csv
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    for row in rows:
        if row["id"] == "rank_differentials":
            row.update(decision="reject", comment="Not a task.", reviewer="Dr B")
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = cli("review", "import", sheet, "--root", root)
    assert result.exit_code == 0, result.output
    assert load_registry(root).tasks()["rank_differentials"].task.review.status == "rejected"


def test_json_from_the_form_with_bad_entries_is_located(care, tmp_path):
    bad = tmp_path / "d.json"
    bad.write_text(json.dumps({"clinreg_decisions": 1, "reviewer": {"name": "A", "orcid": None}, "decisions": [
        {"kind": "task", "id": "answer_questions", "content_hash": 5, "decision": "approved"},
        "not an object",
    ]}), encoding="utf-8")
    result = cli("review", "import", bad, "--root", care)
    assert result.exit_code == 2
    assert "d.json: decisions[0]: content_hash: expected text, found int" in result.output
    assert "d.json: decisions[1]: expected an object" in result.output
    for content, message in [("{", "not JSON"), ("[]", "not a clinreg decisions file")]:
        bad.write_text(content, encoding="utf-8")
        result = cli("review", "import", bad, "--root", care)
        assert result.exit_code == 2 and message in result.output


@pytest.mark.slow
def test_csv_export_works_without_openpyxl_and_xlsx_names_the_extra(care, tmp_path):
    block = ("import sys\nclass Block:\n    def find_spec(self, name, path=None, target=None):\n"
             "        if name.split('.')[0] == 'openpyxl': raise ImportError('blocked')\n"
             "sys.meta_path.insert(0, Block())\nfrom clinreg.cli.main import main\nsys.exit(main())\n")

    def run(*args):
        return subprocess.run([sys.executable, "-c", block, *map(str, args)], capture_output=True, text=True)

    ok = run("review", "export", "--format", "csv", "-o", tmp_path / "a.csv", "--root", care)
    assert ok.returncode == 0 and (tmp_path / "a.csv").exists(), ok.stderr
    missing = run("review", "export", "--format", "xlsx", "-o", tmp_path / "a.xlsx", "--root", care)
    assert missing.returncode == 2 and "clinreg[review]" in missing.stderr and "Traceback" not in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1 and not (tmp_path / "a.xlsx").exists()


def test_subcategories_are_reviewed_in_the_sheet_with_what_a_decision_needs(care, tmp_path):
    sheet = _export(care, tmp_path, "xlsx")
    ws = openpyxl.load_workbook(sheet)["tasks"]
    header = [c.value for c in ws[1]]
    rows = {r[0].value: {h: c.value for h, c in zip(header, r)} for r in ws.iter_rows(min_row=2)}
    assert rows["diagnosis"]["kind"] == "subcategory" and rows["diagnosis"]["datasets"] == "2 tasks"
    assert rows["answer_questions"]["datasets"] == "QA set"  # the datasets that measure the task, by name
    assert rows["answer_questions"]["provenance"] == (
        "quoted from a public source. Source: A paper, with a comma, that runs on for far longer than any "
        "line-width setting of a YAML dumper would allow.")
    assert rows["rank_differentials"]["datasets"] == "none yet"
    _fill(sheet, {"diagnosis": {"decision": "approve", "reviewer": "Dr Ada Lee", "date": "2026-11-29"}})
    result = cli("review", "import", sheet, "--root", care)
    assert result.exit_code == 0, result.output
    sub = next(s for s, *_ in load_registry(care).subcategories() if s.id == "diagnosis")
    assert (sub.review.status, sub.review.reviewers[-1].name, sub.review.reviewers[-1].date.isoformat()) == \
        ("approved", "Dr Ada Lee", "2026-11-29")
    # The next export shows that decision to the next reviewer.
    again = _export(care, tmp_path / "next", "xlsx")
    ws = openpyxl.load_workbook(again)["tasks"]
    earlier = {r[0].value: r[header.index("earlier_decisions")].value for r in ws.iter_rows(min_row=2)}
    assert earlier["diagnosis"] == "2026-11-29 Dr Ada Lee: approved"


@pytest.mark.parametrize("encoding, separator", [("cp1252", ";"), ("utf-8", ";"), ("utf-8", "\t")])
def test_csv_in_other_locales_imports(care, tmp_path, encoding, separator):
    import csv
    import io

    sheet = _export(care, tmp_path, "csv")
    rows = list(csv.DictReader(sheet.read_text(encoding="utf-8").splitlines()))
    for row in rows:
        if row["id"] == "answer_questions":
            row.update({"decision": "approve", "reviewer": "Dr Jürgen Müller", "comment": "Gut, klar."})
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), delimiter=separator, lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    sheet.write_bytes(buffer.getvalue().encode(encoding))
    result = cli("review", "import", sheet, "--root", care)
    assert result.exit_code == 0, result.output
    who = load_registry(care).tasks()["answer_questions"].task.review.reviewers[-1]
    assert (who.name, who.note) == ("Dr Jürgen Müller", "Gut, klar.")


def test_a_csv_mixing_utf8_and_windows_1252_is_refused_not_misread(care, tmp_path):
    sheet = _export(care, tmp_path, "csv")
    text = sheet.read_text(encoding="utf-8")
    sheet.write_bytes(text.encode("utf-8") + "Müller".encode("cp1252") + "Müller".encode("utf-8") + b"\n")
    before = (care / CARE).read_bytes()
    result = cli("review", "import", sheet, "--root", care)
    assert result.exit_code == 2 and "mixes the two" in result.output
    assert (care / CARE).read_bytes() == before


def _comment_file(care, tmp_path, fmt):
    """A decisions file in `fmt` holding one approval and one comment without a decision (on rank_differentials)."""
    if fmt == "json":
        tasks = {t: load_registry(care).tasks()[t] for t in ("answer_questions", "rank_differentials")}
        from clinreg.core.reviewstate import item_hash

        path = tmp_path / "d.json"
        path.write_text(json.dumps({"clinreg_decisions": 1, "saved": "2026-11-30T09:00:00.000Z",
                                    "reviewer": {"name": "Dr Ada Lee", "orcid": None}, "decisions": [
            {"kind": "task", "id": t, "content_hash": item_hash("task", tasks[t].task, tasks[t].subcategory.id),
             "decision": d, "note": n}
            for t, d, n in (("answer_questions", "approved", None),
                            ("rank_differentials", None, "Ranked by likelihood or by danger?"))]}), encoding="utf-8")
        return path
    sheet = _export(care, tmp_path, fmt)
    edits = {"answer_questions": {"decision": "approve", "reviewer": "Dr Ada Lee", "date": "2026-11-30"},
             "rank_differentials": {"comment": "Ranked by likelihood or by danger?", "reviewer": "Dr Ada Lee",
                                    "date": "2026-11-30"}}
    if fmt == "xlsx":
        _fill(sheet, edits)
        return sheet
    import csv

    rows = list(csv.DictReader(sheet.read_text(encoding="utf-8").splitlines()))
    for row in rows:
        row.update(edits.get(row["id"], {}))
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return sheet


@pytest.mark.parametrize("fmt", ["xlsx", "csv", "json"])
def test_a_comment_without_a_decision_is_recorded_as_a_comment(care, tmp_path, fmt):
    decisions = _comment_file(care, tmp_path, fmt)
    before = (care / CARE).read_text(encoding="utf-8")
    result = cli("review", "import", decisions, "--root", care)
    assert result.exit_code == 0, result.output
    assert "comment (no decision) on task 'rank_differentials' by Dr Ada Lee (still proposed)" in result.output
    assert "1 decision(s) recorded, 1 comment(s) without a decision recorded as comments" in result.output
    after = (care / CARE).read_text(encoding="utf-8")
    assert only_review_lines_changed(before, after)
    # The YAML's history: the comment is an entry with its note and no decision; status, date and hash untouched.
    import yaml

    sub = yaml.safe_load(after)["subcategories"][0]
    review = next(t for t in sub["tasks"] if t["id"] == "rank_differentials")["review"]
    assert review["status"] == "proposed" and "date" not in review and "content_hash" not in review
    (entry,) = review["reviewers"]
    assert "decision" not in entry
    assert (entry["name"], entry["note"], str(entry["date"])) == \
        ("Dr Ada Lee", "Ranked by likelihood or by danger?", "2026-11-30")
    assert load_registry(care).tasks()["answer_questions"].task.review.status == "approved"
    status = json.loads(cli("review", "status", "--root", care, "--format", "json").output)["data"]["items"]
    assert {r["id"]: r["state"] for r in status}["rank_differentials"] == "proposed"
    again = cli("review", "import", decisions, "--root", care)  # idempotent for comments too
    assert again.exit_code == 0 and "2 already recorded" in again.output, again.output
    assert (care / CARE).read_text(encoding="utf-8") == after


def test_a_comment_on_rewritten_wording_carries_the_proposed_words(care, tmp_path):
    sheet = _export(care, tmp_path, "xlsx")
    _fill(sheet, {"rank_differentials": {"comment": "Say by what.", "reviewer": "Dr Ada Lee",
                                         "definition": "Rank candidate diagnoses by likelihood."}})
    result = cli("review", "import", sheet, "--root", care)
    assert result.exit_code == 0, result.output
    entry = load_registry(care).tasks()["rank_differentials"].task.review.reviewers[-1]
    assert entry.decision is None
    assert entry.note == "Say by what.\nproposed definition: Rank candidate diagnoses by likelihood."


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@given(st.text(alphabet=st.sampled_from("'=+-@\t\rab 1"), max_size=6) | st.text(max_size=20))
def test_the_csv_guard_is_removed_exactly_as_it_was_added(text):
    from clinreg.review.exchange import _FORMULA_STARTS, _unquote, safe_cell

    guarded = safe_cell(text)
    assert not guarded.startswith(_FORMULA_STARTS)
    assert _unquote(guarded) == text


def test_the_xlsx_holds_wording_that_starts_like_a_formula_as_string_cells_without_an_apostrophe(tmp_path):
    hostile = CATEGORY.replace("name: Rank differentials", "name: \"=HYPERLINK('http://evil','x')\"")
    root = write_tree(tmp_path / "reg", {CARE: hostile})
    ws = openpyxl.load_workbook(_export(root, tmp_path, "xlsx"))["tasks"]
    (cell,) = [c for r in ws.iter_rows() for c in r if "HYPERLINK" in str(c.value)]
    assert (cell.value, cell.data_type) == ("=HYPERLINK('http://evil','x')", "s")


def test_a_sheet_exported_with_the_old_guard_apostrophe_is_not_an_edit():
    from types import SimpleNamespace

    from clinreg.review.exchange import _edited_wording

    task = SimpleNamespace(name="=Sum of doses", definition="-1 means none", example=None)
    # Sheets written before the xlsx used string cells carry the apostrophe the CSV still adds.
    assert _edited_wording({"name": "'=Sum of doses", "definition": "'-1 means none"}, task) == []
    assert _edited_wording({"name": "=Sum of doses"}, task) == []
    # An apostrophe before wording that never needed one is the reviewer's, and so is any other change.
    plain = SimpleNamespace(name="Sum of doses", definition="d", example=None)
    assert _edited_wording({"name": "'Sum of doses"}, plain) == ["name"]
    assert _edited_wording({"name": "'=Sum of the doses"}, task) == ["name"]


def test_the_export_counts_tasks_and_subcategories_apart(care, tmp_path):
    """Issue 40 (14): a subcategory row is not a task. The care tree holds 3 tasks in 2 subcategories; the counts
    come from the taxonomy, as rows of each kind."""
    from clinreg.review.exchange import describe_rows, export_rows

    reg = load_registry(care)
    rows = export_rows(reg)
    tasks, subs = len(reg.tasks()), len(list(reg.subcategories()))
    assert (tasks, subs) == (3, 2)
    assert describe_rows(rows) == "3 tasks and 2 subcategories"
    assert describe_rows([r for r in rows if r["id"] in ("diagnosis", "answer_questions")]) == \
        "1 task and 1 subcategory"
    for fmt in ("xlsx", "csv"):
        out = tmp_path / f"counted.{fmt}"
        result = invoke(main, ["review", "export", "--format", fmt, "-o", str(out),
                                 "--root", str(care)])
        assert result.exit_code == 0, result.output
        assert f"({tasks} tasks and {subs} subcategories)" in result.stderr
    notes = [r[0].value for r in openpyxl.load_workbook(tmp_path / "counted.xlsx")["read me"].iter_rows()]
    assert notes[0].startswith("This workbook holds 3 tasks and 2 subcategories")


def test_problems_of_a_decisions_file_are_diagnostics_with_catalogue_codes(care, tmp_path):
    from clinreg.core.diagnostics import Report, render_github
    from clinreg.review.exchange import ReviewFileError, read_decisions

    bad = tmp_path / "d.json"
    bad.write_text(json.dumps({"clinreg_decisions": 1, "reviewer": {"name": "A", "orcid": None}, "decisions": [
        {"kind": "task", "id": "answer_questions", "content_hash": 5, "decision": "approved"},
        {"kind": "task", "id": "no_such_task", "content_hash": "sha256:" + "0" * 64, "decision": "approved"},
    ]}), encoding="utf-8")
    with pytest.raises(ReviewFileError) as caught:
        read_decisions(bad, load_registry(care))
    found = [(d.code, d.file, d.key_path) for d in caught.value.diagnostics]
    assert found == [("CLR805", "d.json", ("decisions", 0, "content_hash")),
                     ("CLR805", "d.json", ("decisions", 1, "id"))]
    assert caught.value.problems[1] == "d.json: decisions[1]: id: unknown task 'no_such_task'"
    assert render_github(Report(caught.value.diagnostics)).startswith("::error file=d.json,line=1,col=1,title=CLR805::")
    # the one-line JSON error of `review import` carries every problem, located
    result = cli("review", "import", bad, "--root", care, "--format", "json")
    assert result.exit_code == 2
    data = json.loads(result.stderr)["data"]
    assert (data["code"], data["key_path"]) == ("CLR805", ["decisions", 0, "content_hash"])
    assert [d["key_path"] for d in data["diagnostics"]] == [["decisions", 0, "content_hash"], ["decisions", 1, "id"]]
    # a file that cannot be read at all is CLR804, at its line and column where there is one
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ReviewFileError) as caught:
        read_decisions(bad, load_registry(care))
    (d,) = caught.value.diagnostics
    assert (d.code, d.file, d.line, d.column) == ("CLR804", "d.json", 1, 2)


def test_a_csv_problem_is_at_its_line_and_column_name(care, tmp_path):
    from clinreg.review.exchange import ReviewFileError, read_decisions

    sheet = _export(care, tmp_path, "csv")
    import csv
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    rows[1].update(decision="maybe", reviewer="Dr B")
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(ReviewFileError) as caught:
        read_decisions(sheet, load_registry(care))
    (d,) = caught.value.diagnostics
    assert (d.code, d.file, d.line, d.key_path) == ("CLR805", sheet.name, 3, ("decision",))
