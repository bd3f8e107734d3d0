"""Shared writer for medhelm 0.8.0's three synthetic privacy CSVs (synt_family_disclosure, synt_right_of_access,
synt_written_consent), whose scenarios read the file the same way and differ only in their prompt and letters.

What the scenarios do (helm/benchmark/scenarios/synt_*_scenario.py in the medhelm 0.8.0 wheel): open the file
passed as `data_path` (platform default encoding; UTF-8 is assumed here) with csv.DictReader, lift the field size
limit, and read three columns per row: prompt (the question), context and label (the gold letter itself). Each row
becomes a prompt built from (prompt, context) and is stored in a dict keyed by that prompt: a repeated
(prompt, context) pair is one instance, at its first row's place, with its last row's label. A label outside the
scenario's letters stops the whole run (an assert). Instances: references are the letters themselves, the row's
letter marked correct; split test; file order. Other columns of the real files, their order and quoting are
unknown: only these three are written, in this order, with "\\n" line ends and minimal quoting.
"""

from __future__ import annotations

import csv
import pathlib

COLUMNS = ["prompt", "context", "label"]


def write(folder: pathlib.Path, name: str, rows: list[tuple[str, str, str]]) -> dict:
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / name, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    return keyed_by_prompt(rows)


def keyed_by_prompt(rows: list[tuple[str, str, str]]) -> dict:
    """The instances of a scenario that keys them by the prompt built from (question, context): a repeated pair is
    one instance, at its first row's place, with its last row's label."""
    expected: list[dict] = []
    seen: dict[tuple[str, str], int] = {}
    for question, context, label in rows:
        key = (question, context)
        if key in seen:
            expected[seen[key]]["gold"] = label
            continue
        seen[key] = len(expected)
        others = [c for _, c, _ in rows if c != context]
        expected.append({"gold": label, "input_must_contain": [question, context], "input_must_not_contain": others})
    return {"splits": {"test": expected}, "dropped": {"test": len(rows) - len(expected)}}
