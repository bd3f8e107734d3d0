"""The .ods reader on damaged and hostile files, which no spreadsheet app writes (what LibreOffice writes is tested
through LibreOffice itself in test_review_calc.py). The files here are built by the test, cell by cell, from the
OpenDocument structures the reader must survive: huge repeats, entities, passwords, other document kinds."""

from __future__ import annotations

import zipfile
from xml.sax.saxutils import escape

import pytest
from clirunner import clinreg as cli

from clinreg.core.store import load_registry
from clinreg.review.exchange import COLUMNS, export_rows
from clinreg.review.ods import column_letter
from trees import write_tree
from workflow.test_signoff import CARE, CATEGORY

pytest.importorskip("defusedxml")
HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n{dtd}<office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>'
        '<table:table table:name="tasks">')
TAIL = "</table:table></office:spreadsheet></office:body></office:document-content>"


@pytest.fixture
def care(tmp_path):
    return write_tree(tmp_path / "reg", {CARE: CATEGORY})


def text_cell(value: str) -> str:
    return f'<table:table-cell office:value-type="string"><text:p>{escape(value)}</text:p></table:table-cell>'


def sheet(care, edits: dict[str, dict[str, str]], *, extra_rows: str = "", dtd: str = "", cell=text_cell) -> str:
    """content.xml holding the exported rows, with `edits` {id: {column: text}} typed in."""
    rows = ["<table:table-row>" + "".join(text_cell(c) for c in COLUMNS) + "</table:table-row>"]
    for row in export_rows(load_registry(care)):
        values = {**row, **edits.get(row["id"], {})}
        rows.append("<table:table-row>" + "".join(cell(str(values[c])) for c in COLUMNS)
                    + '<table:table-cell table:number-columns-repeated="16000"/></table:table-row>')
    return HEAD.format(dtd=dtd) + "".join(rows) + extra_rows + TAIL


def ods(path, content: str, *, mimetype="application/vnd.oasis.opendocument.spreadsheet", manifest="", bomb=False):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("mimetype", mimetype)
        zf.writestr("META-INF/manifest.xml", manifest or "<manifest/>")
        zf.writestr("content.xml", content)
        if bomb:
            zf.writestr("Pictures/zeros.bin", b"\0" * (110 * 1024 * 1024))
    return path


def corrupt_content(path):
    """content.xml's deflated bytes scrambled, so that reading it raises zlib's own error."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("content.xml")
    data[info.header_offset + 30 + len(info.filename) + len(info.extra)] = 0xFF  # deflate block type 11: invalid
    path.write_bytes(bytes(data))
    return path


APPROVE = {"answer_questions": {"decision": "approve", "reviewer": "Dr Ada Lee", "comment": "ok"}}


def test_repeats_to_the_sheet_edge_are_read_without_expanding_them(care, tmp_path):
    blank = ('<table:table-row table:number-rows-repeated="1048000"><table:table-cell '
             'table:number-columns-repeated="16384"/></table:table-row>')
    path = ods(tmp_path / "edge.ods", sheet(care, APPROVE, extra_rows=blank))
    result = cli("review", "import", path, "--root", care)
    assert result.exit_code == 0, result.output
    assert load_registry(care).tasks()["answer_questions"].task.review.status == "approved"


def test_a_repeated_row_counts_each_time_and_the_row_limit_holds(care, tmp_path):
    many = ('<table:table-row table:number-rows-repeated="6000">' + text_cell("x") + "</table:table-row>")
    path = ods(tmp_path / "many.ods", sheet(care, APPROVE, extra_rows=many))
    result = cli("review", "import", path, "--root", care)
    assert result.exit_code == 2 and "more than 5000 rows" in result.output


def test_spaces_paragraphs_and_comments_in_a_cell_read_as_the_app_shows_them(care, tmp_path):
    note = ('<table:table-cell office:value-type="string"><office:annotation><text:p>a comment</text:p>'
            '</office:annotation><text:p>Two<text:s text:c="2"/>spaces<text:tab/>and <text:span>a span</text:span>'
            '</text:p><text:p>second<text:line-break/>line</text:p></table:table-cell>')

    def cell(value):
        return note if value == "NOTE" else text_cell(value)

    path = ods(tmp_path / "note.ods",
               sheet(care, {"answer_questions": {**APPROVE["answer_questions"], "comment": "NOTE"}},
                                            cell=cell))
    result = cli("review", "import", path, "--root", care)
    assert result.exit_code == 0, result.output
    assert load_registry(care).tasks()["answer_questions"].task.review.reviewers[-1].note == \
        "Two  spaces\tand a span\nsecond\nline"


@pytest.mark.parametrize("typed, says", [
    ('<table:table-cell office:value-type="percentage" office:value="0.1"><text:p>10%</text:p></table:table-cell>',
     "as a number or a true/false value"),
    ('<table:table-cell office:value-type="boolean" '
     'office:boolean-value="true"><text:p>TRUE</text:p></table:table-cell>', "as a number or a true/false value"),
    ('<table:table-cell office:value-type="date" '
     'office:date-value="2026-01-02"><text:p>01/02/26</text:p></table:table-cell>', "as a date or time"),
    ('<table:table-cell office:value-type="time" '
     'office:time-value="PT12H30M00S"><text:p>12:30</text:p></table:table-cell>', "as a date or time"),
    ('<table:table-cell table:formula="of:=1+1" office:value-type="float" office:value="2"><text:p>2</text:p>'
     '</table:table-cell>', "a formula"),
])
def test_a_note_the_app_read_as_something_else_is_refused_by_its_cell(care, tmp_path, typed, says):
    def cell(value):
        return typed if value == "TYPED" else text_cell(value)

    path = ods(tmp_path / "typed.ods",
               sheet(care, {"answer_questions": {**APPROVE["answer_questions"], "comment": "TYPED"}},
                                             cell=cell))
    before = (care / CARE).read_bytes()
    result = cli("review", "import", path, "--root", care)
    row = 2 + [r["id"] for r in export_rows(load_registry(care))].index("answer_questions")
    assert result.exit_code == 2
    assert f"typed.ods: tasks!{column_letter(COLUMNS.index('comment') + 1)}{row} (comment): " in result.output
    assert says in result.output and "Traceback" not in result.output
    assert (care / CARE).read_bytes() == before


@pytest.mark.parametrize("build, says", [
    (lambda care, p: ods(p, sheet(care, APPROVE, dtd='<!DOCTYPE x [<!ENTITY a "aaaa">]>\n')), "entities or a DTD"),
    (lambda care, p: ods(p, sheet(care, APPROVE), manifest="<manifest><encryption-data/></manifest>"), "password"),
    (lambda care, p: ods(p, sheet(care, APPROVE), mimetype="application/vnd.oasis.opendocument.text"),
     "not a spreadsheet"),
    (lambda care, p: ods(p, sheet(care, APPROVE), bomb=True), "expands to more than"),
    (lambda care, p: ods(p, sheet(care, APPROVE)[:-40]), "not well-formed XML"),
    (lambda care, p: p.write_bytes(b"not a zip") and p, "not a readable .ods spreadsheet"),
    (lambda care, p: corrupt_content(ods(p, sheet(care, APPROVE))), "not a readable .ods spreadsheet"),
])
def test_damaged_and_hostile_files_are_refused_in_one_line(care, tmp_path, build, says):
    path = build(care, tmp_path / "bad.ods")
    result = cli("review", "import", path, "--root", care)
    assert result.exit_code == 2 and says in result.output, result.output
    assert "Traceback" not in result.output
    assert load_registry(care).tasks()["answer_questions"].task.review.status == "proposed"
