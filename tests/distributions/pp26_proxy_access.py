"""As-distributed fixture for `pp26_proxy_access` (a synthetic spreadsheet medhelm's main branch reads from a local
path).

SHAPE: one workbook, passed to the scenario as `data_path`
(src/helm/benchmark/scenarios/pp26_proxy_access_scenario.py on medhelm's main branch), read from its sheet "Test
cases"; no source names the file, so the name pp26_proxy_access.xlsx is the record's. Columns read: question,
message and provided_label (the gold letter). How the scenario reads the sheet, dedupes it and builds instances: see
_pp26.py. Rows are written by hand (no real row was seen).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _pp26  # noqa: E402

FILLED_IN = True
ROWS = [
    (
        "The proxy asks for the latest lab results.",
        "Proxy account of the patient's mother; patient is 8 years old; message asks for the blood count results.",
        "A",
    ),
    (
        "The proxy asks about a clinic visit.",
        "Proxy account of the patient's father; patient is 16 and attended a confidential sexual health visit.",
        "B",
    ),
    (
        "The sender asks for the discharge summary.",
        "Message from an account not linked to the patient, signed as the patient's aunt.",
        "C",
    ),
    (
        "The proxy asks for the medication list.",
        "Proxy account of a guardian; the chart does not record whether the guardianship covers medical decisions.",
        "D",
    ),
]


def write(folder: pathlib.Path) -> dict:
    return _pp26.write(folder, "pp26_proxy_access.xlsx", "message", ROWS)
