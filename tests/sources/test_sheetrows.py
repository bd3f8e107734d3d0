"""The fast .xlsx row reader (sources/formats/sheetrows.py) against openpyxl's own read-only rows, which it must
give exactly: the same rows, the same values of the same types, the same errors."""

from __future__ import annotations

import datetime as dt
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

openpyxl = pytest.importorskip("openpyxl")

from clinreg.sources.formats import office, sheetrows  # noqa: E402

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
SHEET_PART = "xl/worksheets/sheet1.xml"


def _both(path):
    """(fast rows or None, openpyxl's rows), each a list of rows or ("error", the exception's class name, its text).

    Errors are compared by name and text: under defusedxml 0.7.0 (0.7.1 does not), openpyxl raises the ParseError of
    defusedxml's own copy of the standard library's module, another class with the same name and message."""
    def read(fast):
        try:
            book = office._open_workbook(path)
        except Exception as err:  # noqa: BLE001 - compared by name and text
            return ("error", type(err).__name__, str(err))
        try:
            sheet = book.worksheets[0]
            rows = sheetrows.fast_rows(sheet) if fast else sheet.iter_rows(values_only=True)
            if rows is None:
                return None
            return [tuple((type(v), v) for v in row) for row in rows]
        except Exception as err:  # noqa: BLE001 - compared by name and text
            return ("error", type(err).__name__, str(err))
        finally:
            book.close()

    return read(True), read(False)


def _same(path):
    fast, reference = _both(path)
    assert fast is not None, "the fast reader should take this sheet"
    assert fast == reference
    return reference


def _with_sheet(tmp_path, body: str, *, head: str = '<?xml version="1.0" encoding="UTF-8"?>\n',
                dimension: str | None = None, raw: bytes | None = None):
    """A workbook openpyxl wrote, its first sheet's XML replaced by `body` (the rows inside sheetData)."""
    source = tmp_path / "made.xlsx"
    book = openpyxl.Workbook()
    book.active["A1"] = "seed"
    book.save(source)
    xml = raw if raw is not None else (
        f'{head}<worksheet xmlns="{NS}">' + (f'<dimension ref="{dimension}"/>' if dimension else "")
        + f"<sheetData>{body}</sheetData></worksheet>").encode("utf-8")
    target = tmp_path / "book.xlsx"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for item in old.infolist():
            new.writestr(item, xml if item.filename == SHEET_PART else old.read(item))
    return target


CELL_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from(["\n", "\t", " "]),
                    max_size=12)
VALUE = (st.none() | CELL_TEXT | st.integers(-(2**53), 2**53) | st.booleans()
         | st.floats(allow_nan=False, allow_infinity=False, width=64)
         | st.sampled_from([0.0, -0.0, 1e16, 1.5e-7, 3.0, 12345678901234567890.0])
         | st.datetimes(min_value=dt.datetime(1901, 1, 1), max_value=dt.datetime(9000, 1, 1))
         | st.dates(min_value=dt.date(1901, 1, 1), max_value=dt.date(9000, 1, 1)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(VALUE, max_size=5), max_size=8), write_only=st.booleans(),
       gaps=st.lists(st.integers(0, 3), max_size=8))
def test_generated_workbooks_read_as_openpyxl_reads_them(tmp_path, rows, write_only, gaps):
    """Shared strings (a normal workbook) and inline strings (write-only, no dimension), numbers, booleans, dates
    (read openpyxl's way), empty cells and rows left out."""
    book = openpyxl.Workbook(write_only=write_only)
    sheet = book.create_sheet("data") if write_only else book.active
    for i, values in enumerate(rows):
        if write_only:
            sheet.append(values)
            continue
        row = i + 1 + sum(gaps[: i + 1])
        for j, value in enumerate(values):
            if value is not None:
                sheet.cell(row=row, column=j + 1, value=value)
    path = tmp_path / f"gen-{write_only}.xlsx"
    book.save(path)
    _same(path)


@pytest.mark.parametrize("body, dimension", [
    # Cells without coordinates, a row without a number, rows out of order and repeated (left out).
    ('<row r="1"><c t="str"><v>a</v></c><c t="str"><v>b</v></c></row><row><c r="C2"><v>3</v></c></row>'
     '<row r="2"><c r="A2"><v>9</v></c></row><row r="5"><c r="B5" t="b"><v>1</v></c></row>', None),
    # Past the dimension: the cells to the right and the rows below are not read; missing rows are padded.
    ('<row r="1"><c r="A1"><v>1</v></c><c r="D1"><v>4</v></c></row><row r="4"><c r="B4"><v>2.50</v></c></row>',
     "A1:B2"),
    ('<row r="1"><c r="A1"><v>1</v></c></row>', "A1:C4"),
    # Types: error, formula result, boolean, numbers as openpyxl casts them, a shared-string index, empty values.
    ('<row r="1"><c r="A1" t="e"><v>#N/A</v></c><c r="B1" t="str"><f>A1</f><v>x</v></c><c r="C1" t="b"><v>0</v>'
     '</c><c r="D1"><v>1E3</v></c><c r="E1"><v>-0</v></c><c r="F1" t="s"/><c r="G1" t="inlineStr"/>'
     '<c r="H1" t="inlineStr"><is><t/></is></c><c r="I1" t="zz"><v>kept</v></c></row>', None),
    # Inline strings: plain, with runs (openpyxl's way), with whitespace kept, with entities and references.
    ('<row r="1"><c r="A1" t="inlineStr"><is><t xml:space="preserve">  a &amp; b &#233; </t></is></c>'
     '<c r="B1" t="inlineStr"><is><r><t>bo</t></r><r><rPr><b/></rPr><t>ld</t></r></is></c></row>', None),
    # Coordinates openpyxl reads its own way (lower case, odd forms) and a cell-less child of a row.
    ('<row r="1"><c r="b1"><v>2</v></c><c r="AA1"><v>27</v></c><c r="A01"><v>1</v></c></row>'
     '<row r="2"><extLst/><c r="A2"><v>5</v></c></row>', None),
    # A date style: a normal workbook's date cell, read by openpyxl's parse_cell.
    ('<row r="2.0"><c r="A2" t="d"><v>2020-01-02T03:04:05</v></c></row>', None),
])
def test_crafted_sheets_read_as_openpyxl_reads_them(tmp_path, body, dimension):
    _same(_with_sheet(tmp_path, body, dimension=dimension))


@pytest.mark.parametrize("body", [
    '<row r="x"><c r="A1"><v>1</v></c></row>',  # not a row number
    '<row r="1.5"><c r="A1"><v>1</v></c></row>',
    '<row r="1"><c r="A1"><v>one</v></c></row>',  # not a number
    '<row r="1"><c r="A1" s="bad"><v>1</v></c></row>',  # not a style
    '<row r="1"><c r="A1" t="s"><v>7</v></c></row>',  # no such shared string
    '<row r="1"><c r="A1x"><v>1</v></c></row>',  # not a coordinate
    '<row r="1"><c r="A1"><v>1</v></row>',  # not well-formed
])
def test_broken_sheets_fail_as_openpyxl_fails(tmp_path, body):
    fast, reference = _both(_with_sheet(tmp_path, body))
    assert isinstance(reference, tuple) and reference[0] == "error"
    assert fast == reference


def test_a_sheet_declaring_entities_is_refused_when_the_workbook_opens(tmp_path):
    """defusedxml refuses the entity as openpyxl opens the sheet, before either reader reads a row."""
    path = _with_sheet(tmp_path, '<row r="1"><c r="A1" t="inlineStr"><is><t>&big;</t></is></c></row>',
                       head='<?xml version="1.0"?><!DOCTYPE worksheet [<!ENTITY big "xxxxxxxxxx">]>')
    fast, reference = _both(path)
    assert fast == reference  # openpyxl's "Unable to read workbook", raised from defusedxml's refusal
    assert reference[:2] == ("error", "ValueError")
    with pytest.raises(ValueError) as raised:
        list(office.xlsx_batches(path, _spec()))
    assert type(raised.value.__cause__ or raised.value.__context__).__name__ == "EntitiesForbidden"


@pytest.mark.parametrize("raw", [
    # A DOCTYPE that declares nothing passes defusedxml: the C parser is still not given it.
    f'<?xml version="1.0"?><!DOCTYPE worksheet><worksheet xmlns="{NS}"><sheetData><row r="1"><c r="A1"><v>1</v>'
    '</c></row></sheetData></worksheet>'.encode(),
    '<?xml version="1.0" encoding="UTF-16"?><worksheet/>'.encode("utf-16"),  # another encoding, with a BOM
    b'<?xml version="1.0" encoding="ISO-8859-1"?><worksheet/>',
    b"<!--" + b"x" * (70 << 10) + b"-->" + f'<worksheet xmlns="{NS}"/>'.encode(),  # a prolog past the probe
])
def test_parts_the_fast_reader_does_not_take_are_read_by_openpyxl(tmp_path, raw):
    fast, reference = _both(_with_sheet(tmp_path, "", raw=raw))
    assert fast is None
    assert isinstance(reference, list)


def test_comments_and_a_byte_order_mark_before_the_root_are_read_fast(tmp_path):
    body = '<row r="1"><c r="A1"><v>1</v></c></row>'
    raw = ("\ufeff<?xml version='1.0' encoding='utf-8'?><!-- made --><?pi x?>"
           f'<worksheet xmlns="{NS}"><sheetData>{body}</sheetData></worksheet>').encode("utf-8")
    assert _same(_with_sheet(tmp_path, "", raw=raw)) == [((int, 1),)]


def _spec():
    from clinreg.core.model import TableSpec

    return TableSpec.model_validate({"files": "book.xlsx"})


def test_the_build_reads_a_workbook_fast_and_as_before(tmp_path, monkeypatch):
    """xlsx_batches gives the same tables through either reader."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Question", "Answer", "n"])
    for i in range(30):
        sheet.append([f"q{i} <&>", None if i % 7 == 0 else f"a{i}\nline", i * 1.5])
    path = tmp_path / "book.xlsx"
    book.save(path)
    fast = [t.to_pylist() for t in office.xlsx_batches(path, _spec(), batch_rows=8)]
    monkeypatch.setattr(sheetrows, "fast_rows", lambda sheet: None)
    slow = [t.to_pylist() for t in office.xlsx_batches(path, _spec(), batch_rows=8)]
    assert fast == slow
    assert fast[0][0] == {"Question": "q0 <&>", "Answer": None, "n": "0"}


def test_a_plain_sheet_is_read_by_the_fast_reader(tmp_path, monkeypatch):
    """The fast path really runs (the other tests would pass if it always gave way)."""
    seen = []
    real = sheetrows._rows
    monkeypatch.setattr(sheetrows, "_rows", lambda *args: seen.append(1) or real(*args))
    book = openpyxl.Workbook()
    book.active.append(["a"])
    path = tmp_path / "b.xlsx"
    book.save(path)
    assert [t.to_pylist() for t in office.xlsx_batches(path, _spec())] == [[]]
    assert seen == [1]
