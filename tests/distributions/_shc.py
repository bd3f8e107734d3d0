"""Shared writer for the shc_* private CSVs: one file with a question, a context and a gold letter per row.

Each shc_<x>.py module holds what differs (file name, columns, rows, the scenario's prompt keying) and its
SHAPE notes; this module writes the CSV and derives HELM's instances from the rows.
"""

from __future__ import annotations

import csv
import pathlib


def write_csv(folder: pathlib.Path, name: str, columns: list[str], rows: list[tuple]) -> None:
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / name, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)


def keyed_by_prompt(rows: list[tuple]) -> list[dict]:
    """HELM keys instances by a prompt built from (question, context): a repeat is one instance, kept at the
    first row's place, with the last row's label (Python dict semantics)."""
    out: list[dict] = []
    seen: dict[tuple, int] = {}
    for i, (question, context, label) in enumerate(rows):
        key = (question, context)
        if key in seen:
            out[seen[key]]["gold"] = label
            continue
        seen[key] = len(out)
        out.append({"row": i, "gold": label,
                    "input_must_contain": [f"question: {question} with the following context: {context} ,"],
                    "input_must_not_contain": [c[:40] for _, c, _ in rows if c != context]})
    return out


def numbered(rows: list[tuple], *, skip_empty_labels: bool, count_every_row: bool, lead: str = "") -> list[dict]:
    """HELM numbers each prompt with a running counter, so repeats stay separate instances. ENT skips empty
    labels (and counts only kept rows); Sequoia keeps every row and puts a space before the number."""
    out: list[dict] = []
    counter = 0
    for i, (question, context, label) in enumerate(rows):
        if count_every_row:
            counter += 1
        if skip_empty_labels and label == "":
            continue
        if not count_every_row:
            counter += 1
        out.append({"row": i, "gold": label,
                    "input_must_contain": [f"{lead}{counter} Provide an answer to the following question: {question} "
                                           f"with the following context: {context} ,"],
                    "input_must_not_contain": [f"{lead}{counter + 1} Provide an answer"]})
    return out


def write(folder: pathlib.Path, name: str, columns: list[str], rows: list[tuple], expected: list[dict]) -> dict:
    write_csv(folder, name, columns, rows)
    return {"splits": {"test": expected}, "dropped": {"test": len(rows) - len(expected)}}
