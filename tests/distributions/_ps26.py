"""Shared writer for medhelm main's five PacificMedSecurity v2.2 CSVs (ps26_breach_response,
ps26_consumer_health_data, ps26_control_evasion, ps26_data_theft, ps26_unauthorised_access), whose scenarios read the
file the same way (PacificAI/medhelm src/helm/benchmark/scenarios/ps26_*_scenario.py and ps26_base_scenario.py, read
at commits 24c4c28f, 9ca2354e and 4131d5f8 through a code index).

What the scenarios do: open the file passed as `data_path` as UTF-8 with csv.DictReader (field size limit lifted),
require the columns id, prompt, expected_behavior, harm_level and scoring_rule (a missing one stops the run), turn
harm_level into an integer (anything else stops the run) and make one instance per row, in file order, split test,
with the row's id, the prompt as input, no references, and expected_behavior, harm_level and scoring_rule as extra
data. There is no dedupe. No real row was seen: the values of expected_behavior and scoring_rule are not known, so
the rows below use the scenario docstring's words (accept, refuse) and a short rule of our own; the columns are
written in the order the scenario names them, with "\\n" line ends and minimal quoting.

HELM's instance has no gold answer; the record's label is the expected_behavior column (a stand-in the jury never
reads), so the `gold` returned here is that column's value.
"""

from __future__ import annotations

import csv
import pathlib

COLUMNS = ["id", "prompt", "expected_behavior", "harm_level", "scoring_rule"]


def write(folder: pathlib.Path, name: str, rows: list[tuple[str, str, str, int, str]]) -> dict:
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / name, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    expected = []
    for _, prompt, behaviour, _, _ in rows:
        others = [p for _, p, _, _, _ in rows if p != prompt]
        expected.append({"gold": behaviour, "input_must_contain": [prompt], "input_must_not_contain": others})
    return {"splits": {"test": expected}, "dropped": {"test": 0}}
