"""An .xlsx sheet's rows, as `ReadOnlyWorksheet.iter_rows(values_only=True)` gives them, three and a half times as fast.

openpyxl's read-only sheet turns every cell into a dict, looks its coordinate up character by character, and parses
the sheet's XML with defusedxml's parser, which runs expat with a Python callback for every element. This reader
walks the same XML with the standard library's C parser and reads the usual cells (shared and inline strings,
numbers, booleans, errors, formula results) with a few attribute lookups each. Anything else is read by openpyxl's
own parser, on the same parser object (its row and column counters stay right): a date (the workbook's date styles
decide), an inline string with formatting runs, a coordinate that is not plain `A1` form.

What it keeps from openpyxl, exactly:
- the rows: from 1 to the sheet's `<dimension>`'s last row when it has one (rows past it are not read), a missing
  row as an empty one, a row numbered at or below one already given left out, each row as wide as the dimension
  (or its last cell) with cells past the dimension left out;
- the values: the same Python value for every cell (the tests compare both readers on generated workbooks).

What it does not take from defusedxml, and why that is safe: the C parser expands entities that a DTD declares,
so a sheet whose prolog holds a `<!DOCTYPE` is left to openpyxl's path (defusedxml refuses its entities); a
sheet without one can use only XML's five predefined entities and character references. A part that does not
start as plain or UTF-8 XML goes the same way.
"""

from __future__ import annotations

from typing import Any, Iterator
from xml.etree.ElementTree import iterparse

try:  # openpyxl's parser and its names, which this reader uses as they are
    from openpyxl.utils.cell import column_index_from_string
    from openpyxl.worksheet._reader import CELL_TAG, INLINE_STRING, ROW_TAG, VALUE_TAG, WorkSheetParser, _cast_number
    from openpyxl.xml.constants import SHEET_MAIN_NS
except ImportError:  # pragma: no cover - another openpyxl layout: its own path reads every sheet
    WorkSheetParser = None  # type: ignore[assignment,misc]
else:
    TEXT_TAG = f"{{{SHEET_MAIN_NS}}}t"

# The sheet's prolog is read this far, at most, to find where its root element starts.
_PROLOG_BYTES = 64 << 10


def fast_rows(sheet: Any) -> Iterator[tuple] | None:
    """`sheet.iter_rows(values_only=True)`, or None where this reader does not take the sheet (then openpyxl's
    path reads it)."""
    if WorkSheetParser is None:  # pragma: no cover
        return None
    book = getattr(sheet, "parent", None)
    if book is None or not getattr(book, "data_only", False) or not callable(getattr(sheet, "_get_source", None)):
        return None  # pragma: no cover - only the build's read-only, values-only workbook comes here
    with sheet._get_source() as probe:
        if not _plain_prolog(probe.read(_PROLOG_BYTES)):
            return None
    return _rows(sheet, book)


def _plain_prolog(head: bytes) -> bool:
    """Whether the part is UTF-8 (or ASCII) XML whose root element starts within `head` with no DOCTYPE before it."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    if b"\x00" in head:
        return False  # UTF-16 or UTF-32: openpyxl's path
    at = 0
    while True:
        at = head.find(b"<", at)
        if at < 0:
            return False  # no root element within the probe: openpyxl's path decides
        if head.startswith(b"<?", at):
            end = head.find(b"?>", at)
            if end < 0:
                return False
            if at == 0 and b"encoding" in head[:end]:
                declared = head[:end].split(b"encoding", 1)[1].split(b"?>")[0]
                if b"utf-8" not in declared.lower() and b"utf8" not in declared.lower():
                    return False  # another encoding: openpyxl's path
            at = end + 2
        elif head.startswith(b"<!--", at):
            end = head.find(b"-->", at)
            if end < 0:
                return False
            at = end + 3
        elif head.startswith(b"<!", at):
            return False  # a DOCTYPE (or anything else declared): defusedxml's path refuses its entities
        else:
            name = head[at + 1:at + 2]
            return name.isalpha() or name in (b"_", b":")  # the root element


def _rows(sheet: Any, book: Any) -> Iterator[tuple]:
    max_col, max_row = sheet.max_column, sheet.max_row
    empty_row: tuple = (None,) * max_col if max_col is not None else ()
    with sheet._get_source() as source:
        # openpyxl's parser, for its counters and for every cell read its way.
        parser = WorkSheetParser(source, sheet._shared_strings, data_only=True, epoch=book.epoch,
                              date_formats=book._date_formats, timedelta_formats=book._timedelta_formats)
        shared, dates = sheet._shared_strings, book._date_formats
        read_cell = parser.parse_cell
        # Names the per-cell loop reads, as locals (a global lookup per cell is a tenth of the loop's time).
        row_tag, cell_tag, inline_tag, value_tag, text_tag, cast_number, columns = (
            ROW_TAG, CELL_TAG, INLINE_STRING, VALUE_TAG, TEXT_TAG, _cast_number, _COLUMNS)
        counter = idx = 1
        for _, element in iterparse(source):
            if element.tag != row_tag:
                continue
            # The row's number, as openpyxl's parse_row reads it.
            number = element.get("r")
            if number is not None:
                try:
                    parser.row_counter = int(number)
                except ValueError:
                    value = float(number)
                    if not value.is_integer():
                        raise ValueError(f"{number} is not a valid row number") from None
                    parser.row_counter = int(value)
            else:
                parser.row_counter += 1
            parser.col_counter = 0
            cells = []
            for cell in element:
                kind = cell.get("t")
                style = cell.get("s")
                style = int(style) if style else 0  # as openpyxl reads it, a bad one raising alike
                coordinate = cell.get("r")
                if not coordinate:
                    column = None
                elif number and coordinate.endswith(number):  # `C12` in row 12: the letters alone, looked up
                    column = columns.get(coordinate[:-len(number)]) or _column(coordinate)
                else:
                    column = _column(coordinate)
                if (cell.tag != cell_tag or kind == "d" or (coordinate and column is None)
                        or ((kind is None or kind == "n") and style in dates)):
                    found = read_cell(cell)  # openpyxl's way: dates, other tags, unusual coordinates
                    cells.append((found["column"], found["value"]))
                    continue
                if column is None:
                    parser.col_counter += 1
                    column = parser.col_counter
                else:
                    parser.col_counter = column
                if kind == "inlineStr":
                    box = cell.find(inline_tag)
                    if box is None:
                        value = None
                    elif len(box) == 1 and box[0].tag == text_tag and not len(box[0]):
                        value = box[0].text or ""
                    else:  # formatting runs, phonetic text: openpyxl's way
                        found = read_cell(cell)
                        cells.append((found["column"], found["value"]))
                        continue
                else:
                    value = cell.findtext(value_tag, None) or None
                    if value is not None:
                        if kind is None or kind == "n":
                            value = cast_number(value)
                        elif kind == "s":
                            value = shared[int(value)]
                        elif kind == "b":
                            value = bool(int(value))
                        elif kind not in ("str", "e"):
                            found = read_cell(cell)  # a type openpyxl keeps as it finds it, or reads its way
                            cells.append((found["column"], found["value"]))
                            continue
                cells.append((column, value))
            idx = parser.row_counter
            element.clear()
            # From here, ReadOnlyWorksheet._cells_by_row and _get_row with values only, from column and row 1.
            if max_row is not None and idx > max_row:
                break
            while counter < idx:
                counter += 1
                yield empty_row
            if counter <= idx:
                counter += 1
                yield _row(cells, max_col)
        if max_row is not None and max_row < idx:
            for _ in range(counter, max_row + 1):
                yield empty_row


def _row(cells: list[tuple[int, Any]], max_col: int | None) -> tuple:
    if not cells and not max_col:
        return ()
    width = max_col or cells[-1][0]
    values: list[Any] = [None] * width
    for column, value in cells:
        if 1 <= column <= width:
            values[column - 1] = value
    return tuple(values)


_COLUMNS: dict[str, int] = {}


def _column(coordinate: str) -> int | None:
    """The column of a plain coordinate (`A1` to `ZZZ1048576`, as openpyxl reads one), or None for anything else."""
    letters = coordinate.rstrip("0123456789")
    if len(letters) == len(coordinate) or not coordinate[len(letters)].isdigit():
        return None
    column = _COLUMNS.get(letters)
    if column is None:
        if not (1 <= len(letters) <= 3 and letters.isascii() and letters.isupper() and letters.isalpha()):
            return None
        column = _COLUMNS[letters] = column_index_from_string(letters)  # openpyxl's own reading
    return column
