"""Review decisions in and out of the registry without a terminal: the spreadsheet export and the import of
decisions saved by the offline form (JSON) or edited in a spreadsheet (xlsx, ods or csv)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from clinreg.core.diagnostics import Diagnostic, make
from clinreg.core.provenance import dataset_names, plain_note
from clinreg.core.reviewstate import decision_value, derive_state, item_hash, policy_of, sealed, tally_words
from clinreg.core.store import Registry
from clinreg.errors import ClinregError
from clinreg.review.signoff import COMMENT, DECISIONS, ORCID, AlreadyRecorded, Request, SignOffError, sign_off_many
from clinreg.text.plainwords import first_sight, has_maintainer_words
from clinreg.text.safeio import atomic_open, read_regular_file
from clinreg.text.suggest import closest

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_NOTE = 2000
MAX_NAME = 200
MAX_ROWS = 5000
HASH = re.compile(r"^sha256:[0-9a-f]{64}$")
COLUMNS = ("id", "tier", "category", "subcategory", "name", "definition", "example",
           "state", "decision", "comment", "reviewer", "orcid", "date",
           # what a decision needs beside the wording: whether the row is a task or a subcategory, the datasets that
           # measure the task, where its wording comes from (in plain words), earlier decisions, and what changed
           "kind", "datasets", "provenance", "earlier_decisions", "changed_since_review",
           # at the right, for the maintainers (issue 40): provenance as recorded (commits, paths), and the version
           # and content hash that tie a decision to the wording read
           "source_details", "version", "content_hash")
EDITABLE = ("decision", "comment", "reviewer", "orcid", "date")
WORDING = ("name", "definition", "example")  # exported text: a change on screen is never approved silently
READ = ("id", "content_hash", "decision", "comment", "reviewer", "orcid", "date", "kind", *WORDING)
GUARDED = tuple(c for c in READ if c not in EDITABLE)  # exported text, which the CSV export guards
# A spreadsheet runs a cell that starts with one of these as a formula; registry text must stay text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


UNREADABLE, BAD_ENTRY = "CLR804", "CLR805"  # the file cannot be read at all; a row or cell of it cannot be used


@dataclass(frozen=True)
class Place:
    """Where in a decisions file a problem is: the words the messages name it by, and the same as data."""

    text: str  # "decisions.csv:3", "form.json: decisions[2]", "sheet.xlsx: tasks!B3 (decision)"
    file: str
    line: int = 1
    column: int = 1
    key_path: tuple | None = None

    def __str__(self) -> str:
        return self.text


class Problem(NamedTuple):
    """One problem of a decisions file: its one line for people (`text`), and the same as a located diagnostic."""

    text: str
    diagnostic: Diagnostic


def _problem(place: Place | Path | str, text: str, *, field: str | None = None, code: str = BAD_ENTRY) -> Problem:
    """A problem at PLACE (a file alone, or a row or cell of it); `field` is the column or key it is about."""
    if not isinstance(place, Place):
        place = Place(str(place), str(place))
    key_path = (*(place.key_path or ()), field) if field is not None else place.key_path
    line = f"{place}: {text}"
    return Problem(line, make(code, place.file, place.line, place.column, line, key_path=key_path))


def _refuse(place: Place | Path | str, text: str, *, field: str | None = None) -> ReviewFileError:
    """The error for a decisions file that cannot be read at all (CLR804): its one problem, at PLACE."""
    return ReviewFileError([_problem(place, text, field=field, code=UNREADABLE)])


class ReviewFileError(ClinregError, ValueError):
    """The decisions file cannot be used: every problem found, each located (file, row or cell, field).

    `problems` are their lines for people; `diagnostics` the same as located diagnostics with catalogue codes
    (CLR804 for a file that cannot be read, CLR805 for a row or cell that cannot be used), for `--format json`.
    """

    default_code = "CLR805"  # BAD_ENTRY

    def __init__(self, problems: list[Problem]):
        self.problems = [p.text for p in problems]
        self.diagnostics = [p.diagnostic for p in problems]
        first = self.diagnostics[0] if problems else None
        super().__init__(self.problems[0] if problems else "bad decisions file", code=first and first.code,
                         file=first and first.file, line=first and first.line, column=first and first.column,
                         key_path=first and first.key_path)


@dataclass
class Decision:
    where: str  # file:row or file:cell, for messages
    kind: str
    id: str
    content_hash: str
    decision: str
    note: str | None
    reviewer: str
    orcid: str | None
    date: dt.date | None = None


@dataclass
class ImportResult:
    applied: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    already: list[dict[str, Any]] = field(default_factory=list)  # recorded by an earlier import of the same file

    def to_dict(self) -> dict[str, Any]:
        return {"applied": self.applied, "refused": self.refused, "already_recorded": self.already}


# --------------------------------------------------------------------------------------------- export


class UnknownExportCategory(ClinregError, ValueError):
    """`review export --category` names a category the taxonomy does not hold."""

    default_code = "CLR984"


def export_rows(reg: Registry, category: str | None = None) -> list[dict[str, Any]]:
    """One row per subcategory and per task, in document order, with the hash that a decision on it must carry;
    with `category`, only that category's (UnknownExportCategory, with the closest id, for one not held)."""
    known = [c.id for c, _ in reg.ordered_categories()]
    if category is not None and category not in known:
        guess = closest(category, known)
        raise UnknownExportCategory(f"--category {category}: no such category"
                                    + (f"; did you mean {guess}?" if guess else "")
                                    + f" (known: {', '.join(known) or 'none'})")
    measured: dict[str, list[str]] = {}
    for record in reg.datasets.values():
        for mapping in record.mappings:
            for task_id in mapping.tasks:
                measured.setdefault(task_id, []).append(record.name)
    rows = []
    names = dataset_names(reg)

    def row(kind: str, item: Any, placement: str, category: str, sub: str, tier: str, example: str,
            datasets: str, provenance: str, details: str = "") -> dict[str, Any]:
        digest = item_hash(kind, item, placement)
        state = derive_state(item.review, digest, policy_of(reg))
        history = list(item.review.reviewers) if item.review else []
        if sealed(state):  # the panel is still deciding: a tally, not who said what
            history = [r for r in history if r.content_hash != digest]
        earlier = "; ".join(f"{r.date or ''} {r.name}: {(r.decision or 'comment').replace('_', ' ')}"
                            + (f" ({' '.join(r.note.split())})" if r.note else "")
                            for r in history)
        if sealed(state):
            earlier = "; ".join(filter(None, [earlier, f"this wording: {tally_words(state.panel)} "
                                                       "(who decided what is shown once the panel has decided)"]))
        changed = ""
        if state.state == "stale" and state.previous and state.previous.reviewed:
            before = state.previous.reviewed
            changed = "; ".join(f"{field} was: {' '.join(str(getattr(before, field) or '').split())}"
                                for field in ("name", "definition", "example", "placement")
                                if getattr(before, field, None) is not None
                                and " ".join(str(getattr(before, field) or "").split())
                                != " ".join(str({"placement": placement}.get(field, getattr(item, field, ""))
                                                or "").split()))
        return {"id": item.id, "tier": tier, "category": category, "subcategory": sub, "name": item.name,
                "definition": " ".join(item.definition.split()), "example": example,
                "version": digest.split(":")[1][:12], "content_hash": digest, "state": state.state,
                "decision": "", "comment": "", "reviewer": "", "orcid": "", "date": "", "kind": kind,
                "datasets": datasets, "provenance": first_sight(provenance), "earlier_decisions": earlier,
                "changed_since_review": changed,
                "source_details": details or (provenance if has_maintainer_words(provenance) else "")}

    for sub, cat, _, _ in reg.subcategories():
        if category is not None and cat.id != category:
            continue
        rows.append(row("subcategory", sub, cat.id, cat.id, sub.id, "subcategory", "",
                        f"{len(sub.tasks)} tasks", plain_note(sub.note, names)[0] or ""))
        for task in sub.tasks:
            p = task.provenance
            source = {"published": "quoted from a public source", "derived": "worded by clinreg from a benchmark",
                      "drafted": "drafted by clinreg"}[p.kind]
            note, placement = plain_note(p.note, names, p.subcategory_assignment)  # ids as names, placement in words
            cited = f"Source: {p.citation.text}." if p.citation else ""
            provenance = source + (f". {cited}" if cited else "") + (f" {note}" if note else "") \
                + (f" {placement}" if placement else "")
            details = "; ".join(t for t in (cited, note) if has_maintainer_words(t))
            rows.append(row("task", task, sub.id, cat.id, sub.id, p.kind, " ".join((task.example or "").split()),
                            ", ".join(sorted(set(measured.get(task.id, [])))) or "none yet", provenance, details))
    return rows


def describe_rows(rows: list[dict[str, Any]]) -> str:
    """What an export holds, tasks and subcategories counted apart: "121 tasks and 22 subcategories"."""
    tasks = sum(1 for r in rows if r["kind"] == "task")
    subs = len(rows) - tasks
    return (f"{tasks} task{'' if tasks == 1 else 's'} and "
            f"{subs} subcategor{'y' if subs == 1 else 'ies'}")


def safe_cell(value: Any) -> Any:
    """Registry text as a CSV cell that a spreadsheet never runs as a formula: a leading apostrophe before text
    that starts like a formula (or with an apostrophe, so that `_unquote` removes exactly what was added).

    Only the CSV needs it: the xlsx export writes every cell as a string cell, which no spreadsheet evaluates,
    so the clinician sees the wording without a stray apostrophe."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS + ("'",)):
        return "'" + value
    return value


# A CSV has no second sheet for a read-me: its first column holds the instructions, one line per row, where a
# clinician opening the file sees them first. The import reads columns by name and never reads this one.
CSV_INSTRUCTIONS = (
    "How to review: fill in only the columns decision, comment, reviewer, orcid and date.",
    "decision: approve, request changes or reject. Leave it blank for what you did not review.",
    "A comment with no decision is recorded as a comment.",
    "date: the day you decided, written as 2026-12-01 (left blank: the day of the import).",
    "Do not edit id or content_hash: the hash ties your decision to the wording you read.",
    "To propose other wording, write it into name, definition or example and choose request changes.",
    "A leading apostrophe before = + - or @ keeps a spreadsheet from running the text; leave it.",
    "Save as CSV (UTF-8 if asked), .xlsx or .ods and send the file back. This column is not imported.",
)


def render_csv(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(("instructions", *COLUMNS))
    lines = list(CSV_INSTRUCTIONS)
    if len(rows) < len(lines):  # a registry with fewer rows than lines: the rest share the last row's cell
        lines[max(len(rows), 1) - 1:] = [" ".join(lines[max(len(rows), 1) - 1:])]
    for i, row in enumerate(rows):
        writer.writerow([lines[i] if i < len(lines) else "", *(safe_cell(row[c]) for c in COLUMNS)])
    return buf.getvalue()


def write_xlsx(rows: list[dict[str, Any]], path: Path) -> None:
    """An xlsx workbook: a `tasks` sheet (one row per task; decision, comment, reviewer and orcid to fill in,
    the decision column a drop-down) and a `read me` sheet. Every registry cell is written as a string."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.worksheet.datavalidation import DataValidation

    wb = Workbook()
    ws = wb.active
    ws.title = "tasks"
    ws.append(list(COLUMNS))
    for cell in ws[1]:
        cell.font = Font(bold=True)
    for row in rows:
        ws.append([row[c] for c in COLUMNS])
    for r in ws.iter_rows(min_row=2):
        for cell in r:
            cell.data_type = "s"  # a string cell, whatever it looks like: `=...` is shown as typed, never run
            cell.alignment = Alignment(wrap_text=True, vertical="top")
            # Text format ("@"): a spreadsheet app keeps what the reviewer types (10%, 1/2, TRUE) as typed.
            cell.number_format = "@"
    widths = {"id": 30, "tier": 10, "category": 22, "subcategory": 26, "name": 34, "definition": 60, "example": 50,
              "version": 14, "content_hash": 20, "state": 14, "decision": 18, "comment": 40, "reviewer": 20,
              "orcid": 21, "date": 12, "kind": 12, "datasets": 30, "provenance": 40, "earlier_decisions": 40,
              "changed_since_review": 40, "source_details": 40}
    fill = PatternFill("solid", fgColor="FFF6DF")
    for i, column in enumerate(COLUMNS, start=1):
        letter = ws.cell(row=1, column=i).column_letter
        ws.column_dimensions[letter].width = widths[column]
        if column in EDITABLE:
            for r in range(1, len(rows) + 2):
                ws.cell(row=r, column=i).fill = fill
            ws.column_dimensions[letter].number_format = "@"  # the whole column, rows a reviewer adds too
    decision_col = ws.cell(row=1, column=COLUMNS.index("decision") + 1).column_letter
    choices = DataValidation(type="list", formula1='"approve,request changes,reject"', allow_blank=True,
                             showErrorMessage=True, errorTitle="Decision",
                             error="Choose approve, request changes or reject from the list.")
    ws.add_data_validation(choices)
    choices.add(f"{decision_col}2:{decision_col}{len(rows) + 1}")
    ws.freeze_panes = "B2"
    notes = wb.create_sheet("read me")
    for line in (
        f"This workbook holds {describe_rows(rows)}, one per row of the tasks sheet (column kind says which).",
        "Fill in the yellow columns only: decision (approve, request changes or reject), comment, reviewer, orcid,",
        "and date (the day you decided, as 2026-12-01; the import's day when left blank).",
        "Leave decision blank for tasks you did not review; a comment with no decision is recorded as a comment.",
        "Do not edit id or content_hash (at the right, with the source details): the hash ties your",
        "decision to the wording you read, and the import refuses a decision whose wording has changed since.",
        "To propose other wording, write it into name, definition or example and choose request changes: the",
        "import records your wording in the note. An approval or a rejection of edited wording is refused.",
        "Importing the same file twice records nothing twice.",
    ):
        notes.append([line])
    with atomic_open(path, "wb", encoding=None) as handle:
        wb.save(handle)


# --------------------------------------------------------------------------------------------- import


def read_decisions(path: Path, reg: Registry, *, reviewer: str | None = None,
                   orcid: str | None = None) -> list[Decision]:
    """Parse and check a decisions file. Raises ReviewFileError listing every located problem."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise _refuse(path, f"cannot read it: {exc.strerror or exc}") from None
    if not path.is_file():
        raise _refuse(path, "not a regular file")
    if size > MAX_FILE_BYTES:
        raise _refuse(path, f"{size} bytes is over the {MAX_FILE_BYTES}-byte limit for a decisions file")
    suffix = path.suffix.lower()
    if suffix == ".json":
        raw = _json_rows(path)
    elif suffix == ".csv":
        raw = _csv_rows(path)
    elif suffix == ".xlsx":
        raw = _xlsx_rows(path)
    elif suffix == ".ods":  # LibreOffice's own format, what "Use ODF Format!" saves: read by the xlsx rules
        raw = _ods_rows(path)
    elif suffix in (".xls", ".numbers"):
        raise _refuse(path.name, "clinreg reads the decisions from .xlsx, .ods or .csv; in your "
                      "spreadsheet app choose File > Save As, pick \"Excel 2007-365 (.xlsx)\" (or \"Text "
                      "CSV\", UTF-8), and import that file")
    else:
        raise _refuse(path, "expected a .json (saved by the review form), .xlsx, .ods or .csv file")
    return _check(raw, reg, reviewer, orcid, path)


def _read(path: Path) -> bytes:
    """The file's bytes: a regular file within MAX_FILE_BYTES, checked again as it is opened (a FIFO or a device
    put in its place after the first check is refused, not read)."""
    try:
        return read_regular_file(path, MAX_FILE_BYTES)
    except OSError as exc:
        raise _refuse(path.name, f"cannot read it: {exc.strerror or exc}") from None


def _json_rows(path: Path) -> list[tuple[Place, dict[str, Any]]]:
    name = path.name
    try:
        data = json.loads(_read(path).decode("utf-8"))
    except UnicodeDecodeError:
        raise _refuse(name, "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise _refuse(Place(f"{name}:{exc.lineno}:{exc.colno}", name, exc.lineno, exc.colno),
                      f"not JSON: {exc.msg}") from None
    except RecursionError:  # nested deeper than Python's parser goes: no decisions file is
        raise _refuse(name, "nested too deeply to be a decisions file") from None
    if not isinstance(data, dict) or data.get("clinreg_decisions") != 1:
        raise _refuse(name, "not a clinreg decisions file (expected an object with \"clinreg_decisions\": 1)")
    who = data.get("reviewer")
    if not isinstance(who, dict):
        raise _refuse(name, "reviewer: expected an object with name and orcid", field="reviewer")
    decisions = data.get("decisions")
    if not isinstance(decisions, list):
        raise _refuse(name, "decisions: expected a list", field="decisions")
    if len(decisions) > MAX_ROWS:
        raise _refuse(name, f"decisions: {len(decisions)} entries is over the limit of {MAX_ROWS}",
                      field="decisions")
    rows = []
    for i, d in enumerate(decisions):
        where = Place(f"{name}: decisions[{i}]", name, key_path=("decisions", i))
        if not isinstance(d, dict):
            rows.append((where, {"__error__": "expected an object"}))
            continue
        saved = data.get("saved")
        rows.append((where, {"kind": d.get("kind", "task"), "id": d.get("id"), "content_hash": d.get("content_hash"),
                             "decision": d.get("decision"), "comment": d.get("note"),
                             "reviewer": who.get("name"), "orcid": who.get("orcid"),
                             "date": saved[:10] if isinstance(saved, str) else None}))
    return rows


def _csv_rows(path: Path) -> list[tuple[Place, dict[str, Any]]]:
    name = path.name
    data = _read(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Excel's "CSV" (not "CSV UTF-8") in Western locales writes Windows-1252. A file holding UTF-8 sequences
        # too is damaged or mixed, and reading it as Windows-1252 would change names silently: refused.
        if re.search(rb"[\xc2-\xf4][\x80-\xbf]", data):
            raise _refuse(name, "not UTF-8 text, and not Windows-1252 either (it mixes the two); save "
                          "the spreadsheet again as \"CSV UTF-8\"") from None
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            raise _refuse(name, "neither UTF-8 nor Windows-1252 text; save the spreadsheet as "
                          "\"CSV UTF-8\"") from None
    csv.field_size_limit(MAX_FILE_BYTES)
    first = text.split("\n", 1)[0]
    # The separator the file uses: German and other locales save with `;`, some apps with a tab.
    delimiter = max((",", ";", "\t"), key=lambda d: (first.count(d), d == ","))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise _refuse(name, "empty") from None
    except csv.Error as exc:
        raise _refuse(Place(f"{name}:1", name), str(exc)) from None
    header = [h.strip().lower() for h in header]
    missing = [c for c in ("id", "content_hash", "decision") if c not in header]
    if missing:
        raise _refuse(Place(f"{name}:1", name), f"missing column(s) {', '.join(missing)} (the first line "
                      "must be the exported header: id, ..., decision, comment, reviewer, orcid, date)")
    rows = []
    try:
        for line_no, values in enumerate(reader, start=2):
            if len(rows) >= MAX_ROWS:
                raise _refuse(name, f"more than {MAX_ROWS} rows")
            if not any(v.strip() for v in values):
                continue
            row = {h: (values[i] if i < len(values) else "") for i, h in enumerate(header)}
            rows.append((Place(f"{name}:{line_no}", name, line_no),
                         {k: _unquote(row[k]) if k in GUARDED else row[k] for k in READ if k in row}))
    except csv.Error as exc:
        raise _refuse(Place(f"{name}:{reader.line_num}", name, reader.line_num), str(exc)) from None
    return rows


def _unquote(value: Any) -> Any:
    """Undo safe_cell's leading apostrophe on text we exported: exactly its inverse, so `_unquote(safe_cell(v))`
    is `v` for every text. Only exported columns are unquoted; what a reviewer types is read as typed."""
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(_FORMULA_STARTS + ("'",)):
        return value[1:]
    return value


def _xlsx_rows(path: Path) -> list[tuple[Place, dict[str, Any]]]:
    name = path.name
    try:
        from openpyxl import load_workbook
    except ImportError:
        raise _refuse(name, "reading .xlsx needs openpyxl: install clinreg with the `review` extra "
                      "(pip install 'clinreg[review]'), or save the sheet as CSV") from None
    import zipfile

    try:
        with zipfile.ZipFile(path) as zf:  # a zip bomb must not be expanded: check the stated sizes first
            if sum(i.file_size for i in zf.infolist()) > 20 * MAX_FILE_BYTES:
                raise _refuse(name, f"the workbook expands to more than {20 * MAX_FILE_BYTES} bytes")
        wb = load_workbook(path, read_only=True, data_only=False)
    except ReviewFileError:
        raise
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many types for a damaged or non-xlsx file
        raise _refuse(name, f"not a readable .xlsx workbook ({type(exc).__name__})") from None
    try:
        return _sheet_rows(wb, name)
    except ReviewFileError:
        raise
    except Exception as exc:  # noqa: BLE001 - a damaged sheet (truncated XML...) fails only once its rows are read
        raise _refuse(name, f"the `tasks` sheet cannot be read ({type(exc).__name__}); save the workbook "
                      "again from the spreadsheet app, or as CSV") from None
    finally:
        wb.close()


def _ods_rows(path: Path) -> list[tuple[Place, dict[str, Any]]]:
    from clinreg.review.ods import OdsError, load_ods

    name = path.name
    try:
        wb = load_ods(path, max_bytes=20 * MAX_FILE_BYTES, max_rows=MAX_ROWS)
    except OdsError as exc:
        raise _refuse(name, str(exc)) from None
    return _sheet_rows(wb, name)


def _sheet_rows(wb: Any, name: str) -> list[tuple[Place, dict[str, Any]]]:
    """The rows of the `tasks` sheet, each cell checked; a problem in any cell is reported with the rest."""
    from_csv = "tasks" not in wb.sheetnames
    if not from_csv:
        ws = wb["tasks"]
    elif len(wb.sheetnames) == 1:  # a CSV opened and saved as .xlsx: its one sheet is named after the file
        ws = wb[wb.sheetnames[0]]
    else:
        raise _refuse(name, "no sheet named `tasks` (the exported workbook has one)")
    it = ws.iter_rows()
    try:
        header_cells = next(it)
    except StopIteration:
        raise _refuse(name, "the `tasks` sheet is empty") from None
    header = [str(c.value).strip().lower() if c.value is not None else "" for c in header_cells]
    missing = [c for c in ("id", "content_hash", "decision") if c not in header]
    if missing:
        raise _refuse(Place(f"{name}: tasks!1", name), f"missing column(s) {', '.join(missing)}")
    rows: list[tuple[Place, dict[str, Any]]] = []
    problems: list[Problem] = []
    for r_index, cells in enumerate(it, start=2):
        if len(rows) >= MAX_ROWS:
            raise _refuse(name, f"more than {MAX_ROWS} rows")
        row: dict[str, Any] = {}
        where: dict[str, str] = {}  # each column's cell, to name it when its words were edited
        for col, cell in zip(header, cells):
            if col not in READ:
                continue
            where[col] = f"tasks!{cell.coordinate}" if hasattr(cell, "coordinate") else f"tasks!{col}{r_index}"
            ref = Place(f"{name}: {where[col]} ({col})", name, r_index)
            value = cell.value
            # The exported wording is written as string cells, so text starting with `=` is the registry's own
            # words there; only a formula cell is a formula.
            if cell.data_type == "f" or (isinstance(value, str) and value.startswith("=") and col not in WORDING):
                problems.append(_problem(ref, "a formula; type plain text instead", field=col))
                continue
            if col == "date" and isinstance(value, (dt.datetime, dt.date)):
                value = (value.date() if isinstance(value, dt.datetime) else value).isoformat()
            elif isinstance(value, (dt.datetime, dt.date, dt.time)):
                problems.append(_problem(ref, "the spreadsheet read what was typed here as a date or time; type it "
                                         "as text (start the cell with an apostrophe, or format the column as Text)",
                                         field=col))
                continue
            elif value is not None and not isinstance(value, str):
                # Never turned into a string: 10% arrives as 0.1 and TRUE as True, which is not what was typed.
                problems.append(_problem(ref, "the spreadsheet read what was typed here as a number or a true/false "
                                         "value; type it as text (start the cell with an apostrophe, or format the "
                                         "column as Text)", field=col))
                continue
            # Our xlsx export adds no apostrophe; a CSV export re-saved as xlsx may still carry the CSV's guard.
            row[col] = _unquote(value) if from_csv and col in GUARDED else value
        if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
            continue
        number = next((c.coordinate.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for c in cells if hasattr(c, "coordinate")),
                      str(r_index))  # a sheet that leaves out blank rows still names the row the app shows
        line = int(number) if number.isdigit() else r_index
        rows.append((Place(f"{name}: tasks!row {number}", name, line), {**row, "__cells__": where}))
    if problems:
        raise ReviewFileError(problems)
    return rows


def _check(raw: list[tuple[Place, dict[str, Any]]], reg: Registry, reviewer: str | None, orcid: str | None,
           path: Path) -> list[Decision]:
    """Turn rows into decisions, collecting every problem; rows without a decision are skipped."""
    tasks = reg.tasks()
    subs = {s.id for s, *_ in reg.subcategories()}
    problems: list[Problem] = []
    out: list[Decision] = []
    seen: dict[tuple[str, str], str] = {}
    for where, row in raw:
        if "__error__" in row:
            problems.append(_problem(where, row["__error__"]))
            continue
        bad = [k for k in ("kind", *READ) if row.get(k) is not None and not isinstance(row.get(k), str)]
        if bad:
            problems += [_problem(where, f"{k}: expected text, found {type(row[k]).__name__}", field=k) for k in bad]
            continue
        decision_text = (row.get("decision") or "").strip()
        note = (row.get("comment") or "").strip() or None
        if not decision_text and not note:
            continue
        # A comment without a decision is recorded as a comment: it changes no review state.
        decision = decision_value(decision_text) if decision_text else COMMENT
        if decision is None:
            problems.append(_problem(where, f"decision {row.get('decision')!r:.60} is not one of approve, request "
                                            "changes, reject", field="decision"))
            continue
        kind = row.get("kind") or "task"
        item_id = (row.get("id") or "").strip()
        if kind not in ("task", "subcategory"):
            problems.append(_problem(where, f"kind {kind!r:.40} is not task or subcategory", field="kind"))
            continue
        if not item_id or (item_id not in tasks if kind == "task" else item_id not in subs):
            problems.append(_problem(where, f"id: unknown {kind} {item_id!r:.80}", field="id"))
            continue
        digest = (row.get("content_hash") or "").strip()
        if not HASH.match(digest):
            problems.append(_problem(where, f"content_hash: {digest!r:.80} is not a sha256 hash as exported "
                                            "(sha256:<64 hex>)", field="content_hash"))
            continue
        if note is not None and len(note) > MAX_NOTE:
            problems.append(_problem(where, f"comment: {len(note)} characters is over the limit of {MAX_NOTE}",
                                     field="comment"))
            continue
        if note is not None and note.startswith("="):
            problems.append(_problem(where, "comment: starts with '=' like a spreadsheet formula; reword it",
                                     field="comment"))
            continue
        name = " ".join((row.get("reviewer") or reviewer or "").split())
        if not name:
            problems.append(_problem(where, "reviewer: no reviewer name (fill the reviewer column, or pass --reviewer)",
                                     field="reviewer"))
            continue
        if len(name) > MAX_NAME or name.startswith("="):
            problems.append(_problem(where, f"reviewer: not a plain name of at most {MAX_NAME} characters",
                                     field="reviewer"))
            continue
        who_orcid = (row.get("orcid") or orcid or "").strip() or None
        if who_orcid is not None and not ORCID.match(who_orcid):
            problems.append(_problem(where, f"orcid: {who_orcid!r:.40} is not an ORCID iD such as 0000-0002-1825-0097",
                                     field="orcid"))
            continue
        day = None
        date_text = (row.get("date") or "").strip()
        if date_text:
            try:
                day = dt.date.fromisoformat(date_text[:10])
            except ValueError:
                problems.append(_problem(where, f"date: {date_text!r:.40} is not a date written as 2026-12-01",
                                         field="date"))
                continue
        # The wording a row carries is compared with the registry's only while the hash still names that
        # wording: when the registry changed since the export, the hash check refuses the decision anyway.
        if kind == "task" and digest == item_hash("task", tasks[item_id].task, tasks[item_id].subcategory.id):
            edited = _edited_wording(row, tasks[item_id].task)
            if edited and decision not in ("changes_requested", COMMENT):
                located = row.get("__cells__") or {}
                # A workbook names each edited cell (file: tasks!F2 (definition)); a CSV its line and column.
                cells = (f"{path.name}: " + ", ".join(f"{located[k]} ({k})" for k in edited)
                         if all(k in located for k in edited) else f"{where}: {', '.join(edited)}")
                problems.append(_problem(Place(cells, where.file, where.line, where.column, where.key_path),
                                         "the wording was changed in the file, and a decision covers the exported "
                                         "words only; choose request changes to propose the new wording (it is "
                                         "recorded in the note), or restore the exported text", field=edited[0]))
                continue
            if edited:
                proposed = "; ".join(f"proposed {k}: {' '.join(str(row[k]).split())}" for k in edited)
                note = f"{note}\n{proposed}" if note else proposed
                if len(note) > MAX_NOTE:
                    problems.append(_problem(where, f"comment and proposed wording: over the limit of {MAX_NOTE} "
                                             "characters", field="comment"))
                    continue
        key = (kind, item_id, name.lower())
        if key in seen:
            problems.append(_problem(where, f"a second decision by {name} on {item_id} (first at {seen[key]})"))
            continue
        seen[key] = where
        out.append(Decision(str(where), kind, item_id, digest, decision, note, name, who_orcid, day))
    if problems:
        raise ReviewFileError(problems)
    return out


def _edited_wording(row: dict[str, Any], task: Any) -> list[str]:
    """The wording columns a file holds that differ from the registry's text (spaces and line breaks aside)."""
    exported = {"name": task.name, "definition": task.definition, "example": task.example or ""}
    return [k for k in WORDING if k in row and row[k] is not None and not _same_words(str(row[k]), exported[k])]


def _same_words(cell: str, text: str) -> bool:
    """Whether a cell holds the exported text; a sheet exported before clinreg wrote formula-like wording as
    string cells still carries the guard apostrophe it then added, which is not an edit."""
    cell, text = " ".join(cell.split()), " ".join(text.split())
    return cell == text or (cell[:1] == "'" and cell[1:] == text and text.startswith(_FORMULA_STARTS + ("'",)))


def apply_decisions(reg: Registry, decisions: list[Decision], today: dt.date | None = None) -> ImportResult:
    """Record the decisions through the locked, byte-exact writer, one write per file. A decision whose hash
    no longer matches its item is refused (nothing is written for that item); the others are applied."""
    result = ImportResult()
    requests = [Request(d.id, d.decision, d.reviewer, d.orcid, d.note, d.kind, d.content_hash, d.date)
                for d in decisions]
    for d, done in zip(decisions, sign_off_many(reg, requests, today=today)):  # one write per file
        if isinstance(done, AlreadyRecorded):
            result.already.append({"id": d.id, "kind": d.kind, "where": d.where, "reason": str(done)})
            continue
        if isinstance(done, SignOffError):  # StaleDecision included
            result.refused.append({"id": d.id, "kind": d.kind, "where": d.where, "reason": str(done)})
            continue
        result.applied.append({"id": d.id, "kind": d.kind, "decision": d.decision, "reviewer": d.reviewer,
                               "file": done.file, "line": done.line, "state": done.state})
    return result


__all__ = ["COLUMNS", "DECISIONS", "Decision", "ImportResult", "Place", "Problem", "ReviewFileError", "apply_decisions",
           "describe_rows",
           "export_rows",
           "read_decisions", "render_csv", "write_xlsx"]
