"""As-distributed fixture for `pp26_disclosure_basis` (a synthetic spreadsheet medhelm's main branch reads from a local
path).

SHAPE: one workbook, passed to the scenario as `data_path`
(src/helm/benchmark/scenarios/pp26_disclosure_basis_scenario.py on medhelm's main branch), read from its sheet "Test
cases"; no source names the file, so the name pp26_disclosure_basis.xlsx is the record's. Columns read: question,
scenario and provided_label (the gold letter). How the scenario reads the sheet, dedupes it and builds instances:
see _pp26.py. Rows are written by hand (no real row was seen).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _pp26  # noqa: E402

FILLED_IN = True
ROWS = [
    (
        "May the hospital give the records to the police?",
        "Police ask the emergency department for a patient's blood alcohol result without a warrant or court order.",
        "B",
    ),
    (
        "May the clinic send the records to the new provider?",
        "A patient's new cardiologist asks for last year's echocardiogram for ongoing treatment.",
        "A",
    ),
    (
        "May the programme share the treatment records with the employer?",
        "An employer asks a methadone programme whether an employee attends; the file does not say "
        "whether the patient signed a consent form.",
        "C",
    ),
]


def write(folder: pathlib.Path) -> dict:
    return _pp26.write(folder, "pp26_disclosure_basis.xlsx", "scenario", ROWS)
