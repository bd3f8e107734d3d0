"""An OpenDocument spreadsheet (.ods, what LibreOffice saves by default) read as the cells the review import
checks: each cell's value with the type the spreadsheet gave it, its formula flag and its reference (tasks!K2).

The file is a zip; its cells are in content.xml, parsed with defusedxml (no entity expansion, no external
entities). The cells are given the shape the xlsx reader's cells have (`value`, `data_type`, `coordinate`), so
that one set of rules reads both: typed notes as typed, formulas refused, numbers and dates never turned into
text. No other library is needed: odfpy (what pandas reads .ods with) would be a new dependency for a file whose
few structures (repeated rows and columns, paragraphs, spaces) are read here in a page of code."""

from __future__ import annotations

import datetime as dt
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from clinreg.errors import ClinregError

MIMETYPE = "application/vnd.oasis.opendocument.spreadsheet"
MAX_COLUMNS = 256  # the export has 20 columns; a row's trailing blank cells repeated to the sheet's edge are not read
_NS = {
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
}


def _q(prefix: str, name: str) -> str:
    return f"{{{_NS[prefix]}}}{name}"


TABLE, ROW, CELL = _q("table", "table"), _q("table", "table-row"), _q("table", "table-cell")
COVERED = _q("table", "covered-table-cell")
P, H, SPACE, TAB, BREAK = _q("text", "p"), _q("text", "h"), _q("text", "s"), _q("text", "tab"), _q("text", "line-break")
# comments, not the cell's text
SKIPPED = {_q("office", "annotation"), _q("office", "annotation-end"), _q("text", "note")}


class OdsError(ClinregError, ValueError):
    """The file is not a spreadsheet that can be read: one sentence for the clinician."""

    default_code = "CLR804"


@dataclass(frozen=True)
class Cell:
    value: Any  # str, float, int, bool, dt.date, dt.datetime, dt.time or None
    data_type: str  # "s" text, "n" number, "b" true/false, "d" date or time, "f" formula, "e" empty
    coordinate: str  # A1-style, as the spreadsheet app shows it


def column_letter(index: int) -> str:
    """1 -> A, 27 -> AA."""
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _repeat(element: Any, attribute: str) -> int:
    try:
        return max(1, int(element.get(_q("table", attribute), "1")))
    except ValueError:
        return 1


def _text(element: Any) -> str:
    """The text of a paragraph as the app shows it: text:s is that many spaces, text:tab a tab, text:line-break a
    line break; spans and links are read through; comments are not the cell's text. Spaces are kept as written:
    LibreOffice (7.4) writes two typed spaces as two spaces, not as text:s, and shows them again on opening; a
    line break or tab character in the XML is a space."""
    parts = [_plain(element.text)]
    for child in element:
        if child.tag == SPACE:
            try:
                parts.append(" " * max(1, int(child.get(_q("text", "c"), "1"))))
            except ValueError:
                parts.append(" ")
        elif child.tag == TAB:
            parts.append("\t")
        elif child.tag == BREAK:
            parts.append("\n")
        elif child.tag not in SKIPPED:
            parts.append(_text(child))
        parts.append(_plain(child.tail))
    return "".join(parts)


def _plain(text: str | None) -> str:
    return re.sub(r"[\t\r\n]", " ", text or "")


def _number(text: str | None) -> float | int | None:
    try:
        number = float(text or "")
    except ValueError:
        return None
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def _time(text: str) -> dt.time | None:
    found = re.fullmatch(r"-?PT?(\d+)H(\d+)M(\d+(?:\.\d+)?)S", text or "")
    if not found:
        return None
    hours, minutes, seconds = int(found.group(1)), int(found.group(2)), float(found.group(3))
    return dt.time(hours % 24, minutes % 60, int(seconds) % 60)


def _cell(element: Any, coordinate: str) -> Cell:
    """One cell: a formula is flagged whatever its result; otherwise the value with the type the app gave it."""
    if element.get(_q("table", "formula")) is not None:
        return Cell(element.get(_q("table", "formula")), "f", coordinate)
    kind = element.get(_q("office", "value-type"))
    paragraphs = [_text(p) for p in element if p.tag in (P, H)]
    if kind in ("float", "percentage", "currency"):
        return Cell(_number(element.get(_q("office", "value"))), "n", coordinate)
    if kind == "boolean":
        return Cell(element.get(_q("office", "boolean-value"), "").lower() == "true", "b", coordinate)
    if kind == "date":
        raw = element.get(_q("office", "date-value"), "")
        try:
            value: Any = dt.datetime.fromisoformat(raw) if "T" in raw else dt.date.fromisoformat(raw)
        except ValueError:
            value = dt.date.min  # a date the app wrote oddly is still a date, never read as text
        return Cell(value, "d", coordinate)
    if kind == "time":
        return Cell(_time(element.get(_q("office", "time-value"), "")) or dt.time(), "d", coordinate)
    text = element.get(_q("office", "string-value"))
    if text is None and paragraphs:
        text = "\n".join(paragraphs)
    if kind is None and not text:
        return Cell(None, "e", coordinate)
    return Cell(text or "", "s", coordinate)


class Sheet:
    def __init__(self, element: Any, max_rows: int):
        self._element = element
        self._max_rows = max_rows

    def iter_rows(self) -> Iterator[tuple[Cell, ...]]:
        """Each row's cells, row repeats expanded (a blank repeated row is skipped, its numbers kept) and column
        repeats expanded up to MAX_COLUMNS; blank trailing cells are not yielded."""
        row_number, yielded = 0, 0
        for row in self._element.iter(ROW):
            times = _repeat(row, "number-rows-repeated")
            first = row_number + 1
            row_number += times
            cells: list[Cell] = []
            for element in row:
                if element.tag not in (CELL, COVERED):
                    continue
                span = _repeat(element, "number-columns-repeated")
                for _ in range(min(span, MAX_COLUMNS - len(cells))):
                    cells.append(_cell(element, f"{column_letter(len(cells) + 1)}{first}"))
                if len(cells) >= MAX_COLUMNS:
                    break
            while cells and cells[-1].data_type == "e":
                cells.pop()
            if not cells:
                continue
            for offset in range(min(times, self._max_rows + 2 - yielded)):
                number = first + offset
                yield tuple(Cell(c.value, c.data_type, re.sub(r"\d+$", str(number), c.coordinate)) for c in cells)
                yielded += 1
            if yielded > self._max_rows + 1:
                return


class Workbook:
    """The sheets of an .ods file by name, in the order the app shows them."""

    def __init__(self, tables: list[Any], max_rows: int):
        self._sheets = {t.get(_q("table", "name"), f"Sheet{i + 1}"): Sheet(t, max_rows) for i, t in enumerate(tables)}
        self.sheetnames = list(self._sheets)

    def __getitem__(self, name: str) -> Sheet:
        return self._sheets[name]

    def close(self) -> None:
        pass


def load_ods(path: Path, *, max_bytes: int, max_rows: int) -> Workbook:
    """The workbook in `path`; OdsError when it is not an unencrypted OpenDocument spreadsheet within `max_bytes`
    expanded."""
    from defusedxml import ElementTree
    from defusedxml.common import DefusedXmlException

    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if sum(i.file_size for i in zf.infolist()) > max_bytes:  # a zip bomb is never expanded
                raise OdsError(f"the spreadsheet expands to more than {max_bytes} bytes")
            if "mimetype" in names and zf.read("mimetype").decode("ascii", "replace").strip() != MIMETYPE:
                raise OdsError("an OpenDocument file, but not a spreadsheet")
            if "META-INF/manifest.xml" in names and b"encryption-data" in zf.read("META-INF/manifest.xml"):
                raise OdsError("saved with a password; save it again without one")
            if "content.xml" not in names:
                raise OdsError("not an OpenDocument spreadsheet (it has no content.xml)")
            content = zf.read("content.xml")
    except OdsError:
        raise
    except (zipfile.BadZipFile, OSError, KeyError, RuntimeError, NotImplementedError, EOFError, zlib.error) as exc:
        raise OdsError(f"not a readable .ods spreadsheet ({type(exc).__name__})") from None
    try:
        root = ElementTree.fromstring(content, forbid_dtd=True)
    except DefusedXmlException:
        raise OdsError("its content.xml declares entities or a DTD, which no spreadsheet app writes") from None
    except ElementTree.ParseError as exc:
        raise OdsError(f"its content.xml is not well-formed XML ({exc})") from None
    return Workbook(list(root.iter(TABLE)), max_rows)


__all__ = ["Cell", "OdsError", "Workbook", "column_letter", "load_ods"]
