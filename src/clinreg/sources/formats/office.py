"""Office files, read after a check that their zip parts stay within what a build may spend: an .xlsx sheet
(whole, or in batches, every value as the text a reader sees) and a .docx's paragraphs or one of its tables."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
from defusedxml import ElementTree as SafeET

from clinreg.core.builderrors import SourceUnavailable, one_line
from clinreg.core.model import TableSpec
from clinreg.sources.files import inflate, inflation_limit

# Office files are zip archives of XML: a small file can unpack to a huge one, or list millions of parts or
# shared strings that the parser would hold at once. These bounds are checked before any XML is parsed.
MAX_OFFICE_INFLATED = 1 << 30  # all members together, unpacked
MAX_OFFICE_MEMBERS = 10_000
MAX_SHARED_STRINGS = 2_000_000


def check_office_file(path: Path, what: str) -> None:
    """Refuse an .xlsx or .docx whose parts would take more memory to read than a build may spend, naming it."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise SourceUnavailable(f"{path.name}: not a readable {what} ({one_line(err)})") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_OFFICE_MEMBERS:
            raise SourceUnavailable(f"{path.name}: the {what} holds {len(members):,} parts (at most "
                                    f"{MAX_OFFICE_MEMBERS:,})")
        bound = min(MAX_OFFICE_INFLATED, inflation_limit(path.stat().st_size))
        stated = sum(i.file_size for i in members)
        if stated > bound:
            raise SourceUnavailable(f"{path.name}: the {what} unpacks to {stated:,} bytes (at most {bound:,})")
        total = 0
        for info in members:  # the stated sizes can lie: count what each member really unpacks to
            strings, tail = 0, b""
            try:
                with archive.open(info) as member:
                    while chunk := member.read(1 << 20):
                        total += len(chunk)
                        if total > bound:
                            raise SourceUnavailable(f"{path.name}: the {what} unpacks to more than {bound:,} bytes")
                        if info.filename.endswith("sharedStrings.xml"):
                            window = tail + chunk
                            strings += sum(window.count(m) for m in (b"<si>", b"<si ", b":si>", b":si "))
                            strings -= sum(tail.count(m) for m in (b"<si>", b"<si ", b":si>", b":si "))
                            tail = chunk[-4:]
                            if strings > MAX_SHARED_STRINGS:
                                raise SourceUnavailable(f"{path.name}: the {what} lists more than "
                                                        f"{MAX_SHARED_STRINGS:,} "
                                                        "shared strings")
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as err:
                raise SourceUnavailable(f"{path.name}: {info.filename} cannot be unpacked: {one_line(err)}") from None


def read_xlsx(path: Path, spec: TableSpec) -> pa.Table:
    tables = list(xlsx_batches(path, spec))
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables)


def xlsx_batches(path: Path, spec: TableSpec, batch_rows: int = 10_000) -> Iterator[pa.Table]:
    """The sheet's rows, every value as the text a reader sees, in tables of `batch_rows` (openpyxl's read-only
    mode parses the sheet as a stream); at least one table."""

    check_office_file(path, "workbook")
    book = _open_workbook(path)
    try:
        if spec.sheet is not None and spec.sheet not in book.sheetnames:
            raise SourceUnavailable(f"{path.name}: no sheet {spec.sheet!r} (sheets: {', '.join(book.sheetnames)})")
        sheet = book[spec.sheet] if spec.sheet else book.worksheets[0]
        from clinreg.sources.formats.sheetrows import fast_rows

        rows = fast_rows(sheet)
        if rows is None:
            rows = sheet.iter_rows(values_only=True)
        header = next(rows, None)
        if header is None:
            yield pa.table({})
            return
        names = [str(h).strip() if h is not None else "" for h in header]
        while names and names[-1] == "":
            names.pop()
        if "" in names or len(set(names)) != len(names):
            raise SourceUnavailable(f"{path.name}: the header row of sheet {sheet.title!r} has an empty or repeated "
                                    "column name")
        columns: list[list[Any]] = [[] for _ in names]
        count, yielded = 0, False
        for row in rows:
            cells = list(row[: len(names)]) + [None] * max(0, len(names) - len(row))
            if all(c is None or (isinstance(c, str) and not c.strip()) for c in cells):
                continue  # spreadsheets end in blank rows
            for column, value in zip(columns, cells):
                column.append((value or None) if type(value) is str else _cell(value))  # text: _cell's result
            count += 1
            if count == batch_rows:
                yield pa.table({name: pa.array(values, pa.string())
                                for name, values in zip(names, columns)})
                columns, count, yielded = [[] for _ in names], 0, True
        if count or not yielded:
            yield pa.table({name: pa.array(values, pa.string()) for name, values in zip(names, columns)})
    finally:
        book.close()


def _open_workbook(path: Path) -> Any:
    """openpyxl's read-only workbook, except that a sheet without a `<dimension>` element (openpyxl's own
    write-only mode writes none) is not parsed to its end once just to look for one: openpyxl's read-only
    sheet looks for it when the workbook opens, and then reads the rows until they end either way. The probe
    here stops where the sheet's data starts, with the same answer. Falls back on `load_workbook` if openpyxl's
    internals differ from what this expects."""
    import openpyxl

    try:
        from openpyxl.reader.excel import ExcelReader, get_dependents, get_rels_path
        from openpyxl.worksheet._read_only import ReadOnlyWorksheet
        from openpyxl.worksheet._reader import DATA_TAG, DIMENSION_TAG
        from openpyxl.worksheet.dimensions import SheetDimension
        from openpyxl.xml.functions import iterparse
    except ImportError:  # pragma: no cover - another openpyxl layout
        return openpyxl.load_workbook(path, read_only=True, data_only=True)
    if (not callable(getattr(ReadOnlyWorksheet, "_get_size", None))
        or not callable(getattr(ExcelReader, "read_worksheets", None))):
        return openpyxl.load_workbook(path, read_only=True, data_only=True)  # pragma: no cover

    class Sheet(ReadOnlyWorksheet):
        def _get_size(self) -> None:
            with self._get_source() as source:
                for _event, element in iterparse(source, events=("start",)):
                    if element.tag == DIMENSION_TAG:
                        bounds = SheetDimension.from_tree(element).boundaries
                        self._min_column, self._min_row, self._max_column, self._max_row = bounds
                        return
                    if element.tag == DATA_TAG:
                        return

    class Reader(ExcelReader):
        def read_worksheets(self) -> None:
            for sheet, rel in self.parser.find_sheets():
                if rel.target not in self.valid_files:
                    continue
                if "chartsheet" in rel.Type:
                    self.read_chartsheet(sheet, rel)
                    continue
                rels_path = get_rels_path(rel.target)
                if rels_path in self.valid_files:
                    get_dependents(self.archive, rels_path)  # read as openpyxl does, so a broken one fails alike
                ws = Sheet(self.wb, sheet.name, rel.target, self.shared_strings)
                ws.sheet_state = sheet.state
                self.wb._sheets.append(ws)

    reader = Reader(path, read_only=True, data_only=True)
    reader.read()
    return reader.wb


def _cell(value: Any) -> str | None:
    """A spreadsheet cell as the text a reader sees: whole numbers without `.0`, booleans as TRUE/FALSE."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        return value.isoformat()
    text = str(value)
    return text if text != "" else None


def read_docx(path: Path, spec: TableSpec) -> pa.Table:
    """A .docx read with the standard library: its paragraphs, or one of its tables (header row first)."""
    ns = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    check_office_file(path, "document")
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("word/document.xml")
        with archive.open(info) as member:  # bounded again here: the office check counted the whole file
            xml = inflate(member, inflation_limit(path.stat().st_size), f"{path.name}: word/document.xml")
        root = SafeET.fromstring(xml, forbid_dtd=True)
    body = root.find(f"{ns}body")
    if body is None:
        raise SourceUnavailable(f"{path.name}: no document body")

    def text(node: Any) -> str:
        return "".join(t.text or "" for t in node.iter(f"{ns}t"))

    if spec.docx_table is None:
        # The body's own paragraphs, as Word's paragraph list (and python-docx) has them: not those in table cells.
        elements = body.findall(f"{ns}p")
        rows = [{"paragraph": i, spec.text_column: text(p), "red": _has_red(p, ns)} for i, p in enumerate(elements)]
        return pa.table({
            "paragraph": pa.array([r["paragraph"] for r in rows], pa.int64()),
            spec.text_column: pa.array([r[spec.text_column] for r in rows], pa.string()),
            "red": pa.array([r["red"] for r in rows], pa.bool_()),
        })
    tables = list(body.iter(f"{ns}tbl"))
    if spec.docx_table >= len(tables):
        raise SourceUnavailable(f"{path.name}: no table {spec.docx_table} (the document has {len(tables)})")
    grid = [[text(cell) for cell in row.iter(f"{ns}tc")] for row in tables[spec.docx_table].iter(f"{ns}tr")]
    if not grid:
        return pa.table({})
    header, body_rows = grid[0], grid[1:]
    if "" in header or len(set(header)) != len(header):  # a dict of columns would silently keep only the last
        raise SourceUnavailable(f"{path.name}: the header row of table {spec.docx_table} has an empty or repeated "
                                "column name")
    return pa.table({h: pa.array([r[i] if i < len(r) else None for r in body_rows], pa.string())
                     for i, h in enumerate(header)})


def _has_red(paragraph: Any, ns: str) -> bool:
    """Whether any run of the paragraph is coloured pure red (how some supplements mark a judgement)."""
    return any((c.get(f"{ns}val") or "").upper() == "FF0000" for c in paragraph.iter(f"{ns}color"))
