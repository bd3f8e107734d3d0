"""The review sheet through LibreOffice Calc itself, headless: typed into through UNO (`.uno:EnterString`, what
Calc does with keyboard input) and saved in the formats clinicians' apps save (issue 22). Skipped without
soffice and the system Python's python3-uno; CI installs both."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from clirunner import clinreg as cli

from clinreg.core.store import load_registry
from trees import write_tree
from workflow.test_signoff import CARE, CATEGORY

openpyxl = pytest.importorskip("openpyxl")
TYPE = Path(__file__).resolve().parents[1] / "interop" / "calc_type.py"
SYSTEM_PYTHON = "/usr/bin/python3"


def _have_calc() -> bool:
    if shutil.which("soffice") is None or not Path(SYSTEM_PYTHON).exists():
        return False
    return subprocess.run([SYSTEM_PYTHON, "-c", "import uno"], capture_output=True).returncode == 0


pytestmark = pytest.mark.skipif(not _have_calc() and os.environ.get("CI") != "true",
                                reason="LibreOffice Calc with python3-uno is not installed")


@pytest.fixture
def care(tmp_path):
    return write_tree(tmp_path / "reg", {CARE: CATEGORY})


def calc(src: Path, out: Path, fmt: str, *edits: str, sheet: str = "tasks") -> Path:
    """Open `src` in Calc, type each CELL=TEXT as a user would, save as `out` with Calc's filter `fmt`."""
    env = {**os.environ, "HOME": str(out.parent / "calc-home")}
    done = subprocess.run([SYSTEM_PYTHON, str(TYPE), str(src), str(out), fmt, sheet, *edits], capture_output=True,
                          text=True, timeout=180, env=env)
    assert done.returncode == 0 and out.exists(), done.stdout[-2000:] + done.stderr[-2000:]
    return out


def _export(care, tmp_path, fmt):
    out = tmp_path / f"tasks.{fmt}"
    assert cli("review", "export", "--format", fmt, "-o", out, "--root", care).exit_code == 0
    return out


def _cells(sheet: Path) -> dict[str, str]:
    """Column letter of each exported column, and the row of each task as `row:<id>`."""
    ws = openpyxl.load_workbook(sheet)["tasks"]
    header = [c.value for c in ws[1]]
    cells = {name: openpyxl.utils.get_column_letter(i + 1) for i, name in enumerate(header)}
    cells.update({f"row:{r[0].value}": str(r[0].row) for r in ws.iter_rows(min_row=2)})
    return cells


@pytest.mark.slow
def test_what_a_reviewer_types_in_calc_arrives_as_typed(care, tmp_path):
    sheet = _export(care, tmp_path, "xlsx")
    col = _cells(sheet)
    typed = calc(sheet, tmp_path / "typed.xlsx", "Calc Office Open XML",
                 f"{col['decision']}{col['row:answer_questions']}=approve",
                 f"{col['comment']}{col['row:answer_questions']}=10%",
                 f"{col['reviewer']}{col['row:answer_questions']}=Dr Ada Lee",
                 f"{col['date']}{col['row:answer_questions']}=2026-11-30",
                 f"{col['decision']}{col['row:rank_differentials']}=request changes",
                 f"{col['comment']}{col['row:rank_differentials']}=1/2",
                 f"{col['reviewer']}{col['row:rank_differentials']}=Dr Ada Lee",
                 f"{col['decision']}{col['row:plan_treatment']}=approve",
                 f"{col['comment']}{col['row:plan_treatment']}=TRUE",
                 f"{col['reviewer']}{col['row:plan_treatment']}=Dr Ada Lee")
    result = cli("review", "import", typed, "--root", care, "--date", "2026-12-02")
    assert result.exit_code == 0, result.output
    tasks = load_registry(care).tasks()
    notes = {t: tasks[t].task.review.reviewers[-1]
             for t in ("answer_questions", "rank_differentials", "plan_treatment")}
    assert [n.note for n in notes.values()] == ["10%", "1/2", "TRUE"]
    # The decision's own day from the sheet; the import's day where the reviewer left it blank.
    assert [n.date.isoformat() for n in notes.values()] == ["2026-11-30", "2026-12-02", "2026-12-02"]
    again = cli("review", "import", typed, "--root", care, "--date", "2026-12-03")
    assert again.exit_code == 0 and "0 decision(s) recorded, 0 refused, 3 already recorded" in again.output
    assert len(load_registry(care).tasks()["answer_questions"].task.review.reviewers) == 1


def _content(ods: Path) -> str:
    import zipfile

    return zipfile.ZipFile(ods).read("content.xml").decode("utf-8")


@pytest.mark.slow
def test_a_sheet_saved_as_ods_imports_what_was_typed_as_typed(care, tmp_path):
    """Issue 40 (16): LibreOffice's own format, as "Use ODF Format!" saves it, read by the xlsx rules."""
    sheet = _export(care, tmp_path, "xlsx")
    col = _cells(sheet)
    row = col["row:answer_questions"]
    ods = calc(sheet, tmp_path / "tasks.ods", "calc8",
               f"{col['decision']}{row}=approve", f"{col['comment']}{row}=Two  spaces\nand a second line",
               f"{col['reviewer']}{row}=Dr Ada Lee", f"{col['date']}{row}=2026-11-30",
               f"{col['decision']}{col['row:rank_differentials']}=request changes",
               f"{col['comment']}{col['row:rank_differentials']}=1/2",
               f"{col['reviewer']}{col['row:rank_differentials']}=Dr Ada Lee",
               f"{col['decision']}{col['row:plan_treatment']}=reject",
               f"{col['comment']}{col['row:plan_treatment']}=10%",
               f"{col['reviewer']}{col['row:plan_treatment']}=Dr Ada Lee",
               f"{col['decision']}{col['row:diagnosis']}=approve",
               f"{col['reviewer']}{col['row:diagnosis']}=Dr Ada Lee")
    content = _content(ods)
    # What makes .ods more than a zip of cells is in the file Calc wrote: repeated cells and two paragraphs.
    assert "table:number-columns-repeated" in content and "<text:p>and a second line</text:p>" in content
    before = (care / CARE).read_text(encoding="utf-8")
    result = cli("review", "import", ods, "--root", care, "--date", "2026-12-02")
    assert result.exit_code == 0, result.output
    reg = load_registry(care)
    tasks = reg.tasks()
    got = {t: tasks[t].task.review.reviewers[-1] for t in ("answer_questions", "rank_differentials", "plan_treatment")}
    assert {t: (r.decision, r.note, r.date.isoformat()) for t, r in got.items()} == {
        "answer_questions": ("approved", "Two  spaces\nand a second line", "2026-11-30"),
        "rank_differentials": ("changes_requested", "1/2", "2026-12-02"),
        "plan_treatment": ("rejected", "10%", "2026-12-02"),
    }
    sub = next(s for s, *_ in reg.subcategories() if s.id == "diagnosis")
    assert (sub.review.status, sub.review.reviewers[-1].name) == ("approved", "Dr Ada Lee")
    from workflow.helpers import only_review_lines_changed

    assert only_review_lines_changed(before, (care / CARE).read_text(encoding="utf-8"))
    again = cli("review", "import", ods, "--root", care)
    assert again.exit_code == 0 and "0 decision(s) recorded, 0 refused, 4 already recorded" in again.output


@pytest.mark.slow
def test_wording_rewritten_in_an_ods_is_refused_by_its_cell_and_a_change_request_carries_it(care, tmp_path):
    sheet = _export(care, tmp_path, "xlsx")
    col = _cells(sheet)
    row = col["row:answer_questions"]
    edited = calc(sheet, tmp_path / "edited.ods", "calc8",
                  f"{col['definition']}{row}=Answer the question in one sentence.", f"{col['decision']}{row}=approve",
                  f"{col['reviewer']}{row}=Dr Ada Lee")
    before = (care / CARE).read_bytes()
    refused = cli("review", "import", edited, "--root", care)
    assert refused.exit_code == 2
    assert f"edited.ods: tasks!{col['definition']}{row} (definition): the wording was changed" in refused.output
    assert (care / CARE).read_bytes() == before
    proposal = calc(edited, tmp_path / "proposal.ods", "calc8", f"{col['decision']}{row}=request changes")
    result = cli("review", "import", proposal, "--root", care)
    assert result.exit_code == 0, result.output
    entry = load_registry(care).tasks()["answer_questions"].task.review.reviewers[-1]
    assert (entry.decision, entry.note) == ("changes_requested",
                                            "proposed definition: Answer the question in one sentence.")


@pytest.mark.slow
def test_a_formula_typed_into_an_ods_is_refused_by_its_cell_and_nothing_is_written(care, tmp_path):
    """The CSV export opened in Calc has no Text-formatted columns: =1+1 typed there becomes a formula cell, which
    the import refuses by its cell, as it does for xlsx; in the xlsx export's Text columns it stays the typed text,
    refused as formula-like too."""
    import csv

    csv_file = _export(care, tmp_path, "csv")
    lines = list(csv.reader(csv_file.read_text(encoding="utf-8").splitlines()))
    letter = {name: openpyxl.utils.get_column_letter(i + 1) for i, name in enumerate(lines[0])}
    row = next(i for i, line in enumerate(lines, start=1) if line[lines[0].index("id")] == "answer_questions")
    ods = calc(csv_file, tmp_path / "formula.ods", "calc8", f"{letter['decision']}{row}=approve",
               f"{letter['comment']}{row}==1+1", f"{letter['reviewer']}{row}=Dr Ada Lee")
    assert 'table:formula="of:=1+1"' in _content(ods)  # Calc made it a formula, not the typed text
    before = (care / CARE).read_bytes()
    result = cli("review", "import", ods, "--root", care)
    assert result.exit_code == 2
    assert f"formula.ods: tasks!{letter['comment']}{row} (comment): a formula" in result.output
    sheet = _export(care, tmp_path, "xlsx")
    col = _cells(sheet)
    typed = calc(sheet, tmp_path / "typed.ods", "calc8", f"{col['decision']}{col['row:answer_questions']}=approve",
                 f"{col['comment']}{col['row:answer_questions']}==1+1",
                 f"{col['reviewer']}{col['row:answer_questions']}=Dr Ada Lee")
    assert "table:formula=" not in _content(typed)
    refused = cli("review", "import", typed, "--root", care)
    assert refused.exit_code == 2
    assert f"typed.ods: tasks!{col['comment']}{col['row:answer_questions']} (comment): a formula" in refused.output
    assert (care / CARE).read_bytes() == before


@pytest.mark.slow
def test_formula_like_wording_travels_through_an_ods_as_words(tmp_path):
    root = write_tree(tmp_path / "reg", {CARE: FORMULA_LIKE})
    sheet = _export(root, tmp_path, "xlsx")
    col = _cells(sheet)
    row = col["row:rank_differentials"]
    ods = calc(sheet, tmp_path / "saved.ods", "calc8", f"{col['decision']}{row}=approve",
               f"{col['reviewer']}{row}=Dr Ada Lee")
    assert "table:formula=" not in _content(ods)
    result = cli("review", "import", ods, "--root", root)
    assert result.exit_code == 0, result.output
    assert load_registry(root).tasks()["rank_differentials"].task.review.reviewers[-1].reviewed.name == "=1+1"


@pytest.mark.slow
@pytest.mark.parametrize("options, encoding", [
    ("44,34,76", "utf-8"),  # comma, UTF-8: Calc's "Text CSV" as most apps save it
    ("59,34,1252", "cp1252"),  # semicolon and Windows-1252, as a German-locale spreadsheet app saves it
])
def test_the_csv_export_resaved_by_calc_imports(care, tmp_path, options, encoding):
    sheet = _export(care, tmp_path, "xlsx")
    col = _cells(sheet)
    saved = calc(sheet, tmp_path / "saved.csv", f"Text - txt - csv (StarCalc):{options}",
                 f"{col['decision']}{col['row:answer_questions']}=approve",
                 f"{col['reviewer']}{col['row:answer_questions']}=Dr Jürgen Müller",
                 f"{col['comment']}{col['row:answer_questions']}=Gut; klar.")
    raw = saved.read_bytes()
    raw.decode(encoding)  # Calc wrote the encoding asked for
    assert (b";" in raw.split(b"\n", 1)[0]) == (encoding == "cp1252")
    result = cli("review", "import", saved, "--root", care)
    assert result.exit_code == 0, result.output
    who = load_registry(care).tasks()["answer_questions"].task.review.reviewers[-1]
    assert (who.name, who.note, who.decision) == ("Dr Jürgen Müller", "Gut; klar.", "approved")


@pytest.mark.slow
def test_the_csv_export_opened_and_saved_as_xlsx_imports(care, tmp_path):
    """Calc names the one sheet of a CSV it saves as .xlsx after the file, not `tasks`."""
    csv_file = _export(care, tmp_path, "csv").rename(tmp_path / "review-round-2.csv")
    import csv

    lines = list(csv.reader(csv_file.read_text(encoding="utf-8").splitlines()))
    letter = {name: openpyxl.utils.get_column_letter(i + 1) for i, name in enumerate(lines[0])}
    row = next(i for i, line in enumerate(lines, start=1) if line[lines[0].index("id")] == "answer_questions")
    saved = calc(csv_file, tmp_path / "from-csv.xlsx", "Calc Office Open XML",
                 f"{letter['decision']}{row}=approve", f"{letter['reviewer']}{row}=Dr Ada Lee")
    assert openpyxl.load_workbook(saved).sheetnames != ["tasks"]
    result = cli("review", "import", saved, "--root", care)
    assert result.exit_code == 0, result.output
    assert load_registry(care).tasks()["answer_questions"].task.review.status == "approved"


@pytest.mark.slow
def test_approving_wording_rewritten_in_calc_is_refused_and_a_change_request_carries_it(care, tmp_path):
    sheet = _export(care, tmp_path, "xlsx")
    col = _cells(sheet)
    edited = calc(sheet, tmp_path / "edited.xlsx", "Calc Office Open XML",
                  f"{col['definition']}{col['row:answer_questions']}=Answer the question in one sentence.",
                  f"{col['decision']}{col['row:answer_questions']}=approve",
                  f"{col['reviewer']}{col['row:answer_questions']}=Dr Ada Lee")
    before = (care / CARE).read_bytes()
    refused = cli("review", "import", edited, "--root", care)
    assert refused.exit_code == 2
    assert (f"edited.xlsx: tasks!{col['definition']}{col['row:answer_questions']} (definition): the wording was changed"
            in refused.output)
    assert (care / CARE).read_bytes() == before
    proposal = calc(edited, tmp_path / "proposal.xlsx", "Calc Office Open XML",
                    f"{col['decision']}{col['row:answer_questions']}=request changes")
    result = cli("review", "import", proposal, "--root", care)
    assert result.exit_code == 0, result.output
    entry = load_registry(care).tasks()["answer_questions"].task.review.reviewers[-1]
    assert entry.decision == "changes_requested"
    assert entry.note == "proposed definition: Answer the question in one sentence."


FORMULA_LIKE = CATEGORY.replace("name: Rank differentials", "name: \"=1+1\"").replace(
    "definition: Answer a clinical question.", "definition: \"-1 dose: answer a clinical question.\"")


@pytest.mark.slow
def test_wording_that_starts_like_a_formula_shows_in_calc_as_written_and_imports_as_it_was(tmp_path):
    """The xlsx export writes such wording as string cells, not behind a guard apostrophe: Calc shows the words as
    they are (no stray apostrophe), runs no formula (=1+1 never becomes 2), and the import reads the original."""
    root = write_tree(tmp_path / "reg", {CARE: FORMULA_LIKE})
    sheet = _export(root, tmp_path, "xlsx")
    col = _cells(sheet)
    row = col["row:rank_differentials"]
    # the cells' text as Calc shows it
    shown = calc(sheet, tmp_path / "shown.csv", "Text - txt - csv (StarCalc):44,34,76")
    import csv

    cells = {line["id"]: line for line in csv.DictReader(shown.read_text(encoding="utf-8").splitlines())}
    assert cells["rank_differentials"]["name"] == "=1+1"
    assert cells["answer_questions"]["definition"] == "-1 dose: answer a clinical question."
    saved = calc(sheet, tmp_path / "saved.xlsx", "Calc Office Open XML", f"{col['decision']}{row}=approve",
                 f"{col['reviewer']}{row}=Dr Ada Lee", f"{col['decision']}{col['row:answer_questions']}=approve",
                 f"{col['reviewer']}{col['row:answer_questions']}=Dr Ada Lee")
    ws = openpyxl.load_workbook(saved)["tasks"]
    name = ws[f"{col['name']}{row}"]
    assert (name.value, name.data_type) == ("=1+1", "s")
    assert all(c.data_type != "f" for r in ws.iter_rows() for c in r)
    result = cli("review", "import", saved, "--root", root)
    assert result.exit_code == 0, result.output  # not "the wording was changed in the file"
    tasks = load_registry(root).tasks()
    assert tasks["rank_differentials"].task.review.reviewers[-1].reviewed.name == "=1+1"
    assert tasks["answer_questions"].task.review.status == "approved"


@pytest.mark.slow
def test_the_csv_keeps_its_guard_and_calc_round_trip_imports_the_original_words(tmp_path):
    root = write_tree(tmp_path / "reg", {CARE: FORMULA_LIKE})
    sheet = _export(root, tmp_path, "csv")
    assert "'=1+1" in sheet.read_text(encoding="utf-8")  # a CSV cell has no type: the apostrophe guards it
    import csv

    lines = list(csv.reader(sheet.read_text(encoding="utf-8").splitlines()))
    letter = {name: openpyxl.utils.get_column_letter(i + 1) for i, name in enumerate(lines[0])}
    row = next(i for i, line in enumerate(lines, start=1) if line[lines[0].index("id")] == "rank_differentials")
    saved = calc(sheet, tmp_path / "saved.csv", "Text - txt - csv (StarCalc):44,34,76",
                 f"{letter['decision']}{row}=approve", f"{letter['reviewer']}{row}=Dr Ada Lee")
    assert "2" not in [line[lines[0].index("name")]
                       for line in csv.reader(saved.read_text(encoding="utf-8").splitlines())]
    result = cli("review", "import", saved, "--root", root)
    assert result.exit_code == 0, result.output
    assert load_registry(root).tasks()["rank_differentials"].task.review.reviewers[-1].reviewed.name == "=1+1"


@pytest.mark.slow
def test_the_csv_opens_in_calc_with_its_instructions_first_and_they_are_never_imported(care, tmp_path):
    import csv

    from clinreg.review.exchange import CSV_INSTRUCTIONS

    sheet = _export(care, tmp_path, "csv")
    lines = list(csv.reader(sheet.read_text(encoding="utf-8").splitlines()))
    assert lines[0][0] == "instructions"
    column = [line[0] for line in lines[1:] if line[0]]
    assert " ".join(column) == " ".join(CSV_INSTRUCTIONS)  # every line, in order, fewer rows than lines or not
    letter = {name: openpyxl.utils.get_column_letter(i + 1) for i, name in enumerate(lines[0])}
    row = next(i for i, line in enumerate(lines, start=1) if line[lines[0].index("id")] == "answer_questions")
    saved = calc(sheet, tmp_path / "saved.csv", "Text - txt - csv (StarCalc):44,34,76",
                 f"{letter['decision']}{row}=approve", f"{letter['reviewer']}{row}=Dr Ada Lee",
                 f"{letter['instructions']}2=read it, thanks", f"{letter['instructions']}{len(lines) + 1}=a note here")
    # Calc's own CSV: the instructions are still the first column, as Calc showed them.
    resaved = list(csv.reader(saved.read_text(encoding="utf-8").splitlines()))
    assert resaved[0][0] == "instructions" and resaved[2][0] == lines[2][0]
    before = (care / CARE).read_text(encoding="utf-8")
    result = cli("review", "import", saved, "--root", care)
    assert result.exit_code == 0, result.output
    assert "1 decision(s) recorded, 0 refused" in result.output
    after = (care / CARE).read_text(encoding="utf-8")
    assert "read it" not in after and "a note here" not in after and "How to review" not in after
    from workflow.helpers import only_review_lines_changed

    assert only_review_lines_changed(before, after)
    assert load_registry(care).tasks()["answer_questions"].task.review.status == "approved"
