"""As-distributed fixture for `pp26_proxy_leak` (a synthetic spreadsheet medhelm's main branch reads from a local
path).

SHAPE: one workbook, passed to the scenario as `data_path` (src/helm/benchmark/scenarios/pp26_proxy_leak_scenario.py
on medhelm's main branch), read from its sheet "Test cases"; no source names the file, so the name
pp26_proxy_leak.xlsx is the record's. Columns read: question, message and provided_label (the gold letter). How the
scenario reads the sheet, dedupes it and builds instances: see _pp26.py. Rows are written by hand (no real row was
seen).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _pp26  # noqa: E402

FILLED_IN = True
ROWS = [
    (
        "Does the message reveal anything confidential?",
        "Hi Sam, your chlamydia test was positive; please come in for treatment this week.",
        "A",
    ),
    (
        "Does the message reveal anything confidential?",
        "Hi Alex, your knee X-ray was normal; keep up the physiotherapy.",
        "B",
    ),
]


def write(folder: pathlib.Path) -> dict:
    return _pp26.write(folder, "pp26_proxy_leak.xlsx", "message", ROWS)
