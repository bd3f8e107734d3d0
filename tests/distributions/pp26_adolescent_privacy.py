"""As-distributed fixture for `pp26_adolescent_privacy` (a synthetic spreadsheet medhelm's main branch reads from a
local path).

SHAPE: one workbook, passed to the scenario as `data_path`
(src/helm/benchmark/scenarios/pp26_adolescent_privacy_scenario.py on medhelm's main branch), read from its sheet
"Test cases"; no source names the file, so the name pp26_adolescent_privacy.xlsx is the record's. Columns read:
question, note and provided_label (the gold letter). How the scenario reads the sheet, dedupes it and builds
instances: see _pp26.py. Rows are written by hand (no real row was seen); the last repeats the first with another
label (HELM keeps one instance, at the first row's place, with the later label).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _pp26  # noqa: E402

FILLED_IN = True
ROWS = [
    (
        "Category: substance use.",
        "15-year-old seen for a sports physical. Reports drinking alcohol most weekends; counselled.",
        "A",
    ),
    (
        "Category: mental health.",
        "14-year-old with asthma. Routine depression screen negative; no concerns.",
        "B",
    ),
    (
        "Category: substance use.",
        "15-year-old seen for a sports physical. Reports drinking alcohol most weekends; counselled.",
        "B",
    ),
]


def write(folder: pathlib.Path) -> dict:
    return _pp26.write(folder, "pp26_adolescent_privacy.xlsx", "note", ROWS)
