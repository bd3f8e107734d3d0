"""Shared writer for medhelm main's four synthetic privacy spreadsheets (pp26_adolescent_privacy,
pp26_disclosure_basis, pp26_proxy_access, pp26_proxy_leak), whose scenarios read the file the same way and differ in
their context column, prompt and letters (PacificAI/medhelm src/helm/benchmark/scenarios/pp26_*_scenario.py, read at
commit 536b2b12 through a code index).

What the scenarios do: read the sheet "Test cases" of the workbook passed as `data_path` with pandas.read_excel, and
per row take question, the context column (note, scenario or message) and provided_label, the gold letter itself.
Each row becomes a prompt built from (question, context), stored in a dict keyed by that prompt: a repeated pair is
one instance, at its first row's place, with its last row's label. A label outside the scenario's letters stops the
run (an assert); every other column becomes extra data. Instances: references are the letters themselves, the row's
letter marked correct; split test; sheet order. No real row was seen: the rows are written by hand, with only these
three columns, on a sheet of that name (the workbook's other sheets, if any, are unknown).
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _synt  # noqa: E402  (the same keying as medhelm 0.8.0's synt_* scenarios)


def write(folder: pathlib.Path, name: str, context: str, rows: list[tuple[str, str, str]]) -> dict:
    import openpyxl

    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Test cases"
    sheet.append(["question", context, "provided_label"])
    for row in rows:
        sheet.append(list(row))
    book.save(folder / name)
    return _synt.keyed_by_prompt(rows)
