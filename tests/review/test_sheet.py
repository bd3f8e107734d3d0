"""The review spreadsheet's write (review.sheet): never over an existing file unless asked, and a refusal says why."""

from __future__ import annotations

import pytest

from clinreg.core.paths import embedded_root
from clinreg.core.store import load_registry
from clinreg.review.exchange import export_rows
from clinreg.review.sheet import SheetRefused, write_review_sheet


@pytest.fixture(scope="module")
def rows():
    return export_rows(load_registry(embedded_root()))


def test_a_csv_is_written_and_an_existing_one_refused_unless_forced(tmp_path, rows):
    path = tmp_path / "review.csv"
    write_review_sheet(rows, path, "csv")
    first = path.read_text(encoding="utf-8")
    assert first.count("\n") >= len(rows)
    path.write_text("mine\n", encoding="utf-8")
    with pytest.raises(SheetRefused, match="exists; refusing to overwrite it"):
        write_review_sheet(rows, path, "csv")
    assert path.read_text(encoding="utf-8") == "mine\n"
    write_review_sheet(rows, path, "csv", force=True)
    assert path.read_text(encoding="utf-8") == first


def test_a_folder_that_cannot_hold_the_file_is_a_refusal(tmp_path, rows):
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(SheetRefused, match="cannot write"):
        write_review_sheet(rows, tmp_path / "file" / "review.csv", "csv")


def test_an_existing_xlsx_is_refused_before_it_is_written(tmp_path, rows):
    pytest.importorskip("openpyxl")
    path = tmp_path / "review.xlsx"
    path.write_bytes(b"mine")
    with pytest.raises(SheetRefused, match="exists; refusing to overwrite it"):
        write_review_sheet(rows, path, "xlsx")
    assert path.read_bytes() == b"mine"
