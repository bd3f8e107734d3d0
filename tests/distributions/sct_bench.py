"""As-distributed fixture for `sct_bench` (GitHub SCT-Bench/sctpublic, the public subset of SCT-Bench).

SHAPE: data/sct_cleaned_full.csv, a UTF-8 CSV with a header row. The columns the PacificAI MedHELM fork's
scenario reads (src/helm/benchmark/scenarios/sct_bench_scenario.py at fork commit 1becdd64, which downloads
this file from the repository at commit c2843137): question_id, sct_stem (the clinical scenario), question
(the hypothesis), additional_info (the new finding) and one column per rating, named -2, -1, 0, 1 and 2,
holding the expert panel's weight for that rating (read as floats). Other columns of the real file, and whether
the weights are counts or proportions, were not checked; only these are written. The fork skips rows whose
scenario, hypothesis or new finding is empty, and takes the panel's most chosen rating (the first of -2..+2 on
a tie) as the reference. Rows are written by hand, none copied from the real file.
"""
import csv
import pathlib

FILLED_IN = True
COLUMNS = ["question_id", "sct_stem", "question", "additional_info", "-2", "-1", "0", "1", "2"]
ROWS = [
    ("q1", "A 58-year-old smoker presents with two weeks of haemoptysis.", "If you were thinking of lung cancer",
     "and the chest radiograph shows a spiculated mass", "0", "0", "0", "3", "9"),
    ("q2", "A 24-year-old has fever and a stiff neck.", "If you were considering a lumbar puncture",
     "and the platelet count is 12,000 per microlitre", "6", "4", "1", "0", "0"),
    # A tie between -1 and 0: the first in -2..+2 order (-1) is the reference.
    ("q3", "A 70-year-old reports new ankle swelling.", "If you were thinking of heart failure",
     "and the patient started amlodipine last month", "0", "5", "5", "2", "0"),
    ("q4", "", "If you were thinking of appendicitis", "and the pain moved to the right iliac fossa",
     "0", "0", "1", "4", "6"),
]
LETTER = {-2: "A", -1: "B", 0: "C", 1: "D", 2: "E"}


def write(folder: pathlib.Path) -> dict:
    path = folder / "data" / "sct_cleaned_full.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([COLUMNS, *ROWS])
    instances = []
    for _, stem, question, info, *panel in ROWS:
        if not (stem and question and info):
            continue
        weights = [float(w) for w in panel]
        modal = weights.index(max(weights)) - 2
        instances.append({"gold": LETTER[modal], "input_must_contain": [stem, question, info]})
    return {"splits": {"test": instances}, "dropped": {"test": len(ROWS) - len(instances)}}
