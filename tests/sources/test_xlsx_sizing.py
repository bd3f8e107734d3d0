"""The xlsx reader opens a sheet without reading it through just to size it, and reads what openpyxl reads."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest

from clinreg.core.model import TableSpec
from clinreg.sources.formats.office import _open_workbook, read_xlsx

ROWS = [["id", "text"]] + [[i, f"row {i} " + "x" * 40] for i in range(3000)]


def _write_only(path: Path) -> None:
    book = openpyxl.Workbook(write_only=True)  # writes no <dimension> element
    sheet = book.create_sheet("S")
    for row in ROWS:
        sheet.append(row)
    book.save(path)


def _with_dimension(path: Path, ref: str | None = None) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row in ROWS:
        sheet.append(row)
    book.save(path)
    if ref is not None:  # a dimension that says less than the sheet holds: openpyxl reads only that far
        with zipfile.ZipFile(path) as archive:
            parts = {info.filename: archive.read(info) for info in archive.infolist()}
        xml = parts["xl/worksheets/sheet1.xml"].decode()
        parts["xl/worksheets/sheet1.xml"] = re.sub(r'<dimension ref="[^"]*"', f'<dimension ref="{ref}"', xml).encode()
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in parts.items():
                archive.writestr(name, data)


def _openpyxl_rows(path: Path) -> list[tuple]:
    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        return list(book.worksheets[0].iter_rows(values_only=True))
    finally:
        book.close()


@pytest.mark.parametrize("make", [_write_only, _with_dimension, lambda p: _with_dimension(p, "A1:B10")],
                         ids=["no-dimension", "dimension", "short-dimension"])
def test_rows_are_openpyxl_rows(tmp_path, make):
    path = tmp_path / "b.xlsx"
    make(path)
    book = _open_workbook(path)
    try:
        assert list(book.worksheets[0].iter_rows(values_only=True)) == _openpyxl_rows(path)
    finally:
        book.close()
    table = read_xlsx(path, TableSpec(files="b.xlsx"))
    expected = _openpyxl_rows(path)[1:]
    assert table.column("id").to_pylist() == [str(r[0]) for r in expected]


def test_opening_a_sheet_without_dimension_does_not_read_it_through(tmp_path, monkeypatch):
    path = tmp_path / "b.xlsx"
    _write_only(path)
    with zipfile.ZipFile(path) as archive:
        size = archive.getinfo("xl/worksheets/sheet1.xml").file_size
    assert size > 200_000
    read = {"bytes": 0}
    original = zipfile.ZipExtFile.read

    def counting(self, n=-1):
        data = original(self, n)
        if self.name == "xl/worksheets/sheet1.xml":
            read["bytes"] += len(data)
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counting)
    _open_workbook(path).close()
    assert read["bytes"] < size / 4
