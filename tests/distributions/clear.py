"""As-distributed fixture for MedHELM `clear` (CLEAR human-labeled notes, private, one .xlsx per condition)."""
import pathlib

import openpyxl

SHAPE = """\
Where: private Stanford folder (run entries: data_path=.../CLEAR/human_labeled/) holding one Excel workbook per
condition, "<condition>.xlsx", for the 13 conditions alcohol_dependence, attention_deficit_hyperactivity_disorder,
bipolar_disorder, chronic_pain, homelessness, liver_disease, major_depression, personality_disorder,
post_traumatic_stress_disorder, substance_use_disorder, suicidal_behavior, tobacco_dependence, unemployment
(facts: clear.conditions; HELM clear_scenario.CONDITIONS / get_instances). Run parameter `condition`;
max_eval_instances=100 per condition in MedHELM runs (run entries; applied by HELM after loading, not here).
Format: .xlsx read by pandas.read_excel(path) -> first sheet, header in row 1. HELM reads only columns `text`
(clinical note) and `result_human` (label 1 = has a history, 0 = does not, 2 = uncertain). Other columns, sheet name
and whether labels are stored as numbers or strings are UNVERIFIED; this fixture stores integer cells on "Sheet1".
HELM per row: text = str(text).strip(), label = str(result_human).strip(); the row is skipped only if either is the
empty string (a whitespace-only string cell). An EMPTY cell is read as NaN -> "nan", which is NOT skipped. If any
result_human cell is empty, pandas makes the column float, so labels become "1.0"/"0.0"/"nan", none matches the
{"1","0","2"} mapping, and no reference of any row in that file is marked correct (shown in variant homelessness).
Input: fixed instruction naming the condition (CONDITION_PROMPTS, e.g. "alcohol dependence", "attention deficit
hyperactivity disorder (ADHD)") + "Original Clinical Note:\\n<text>" + options "A. Has a history of <c>", "B. Does
not have a history of <c>", "C. Uncertain". Gold letter: 1 -> A, 0 -> B, 2 -> C. Single split: test.
"""

NOTES = [  # text, result_human
    ("Pt reports drinking 12 beers daily for 10 years; prior admission for alcohol withdrawal seizures.", 1),
    ("Social history: drinks one glass of wine on holidays. Denies drug use.", 0),
    ("Family member concerned about pt's drinking; pt declined to discuss alcohol use today.", 2),
    ("   ", 1),  # whitespace-only text string -> skipped by HELM
    ("History of alcohol use disorder, in sustained remission, attends AA weekly.", 1),
]
VARIANT = [
    ("Currently living in a shelter after eviction last month.", 1),
    ("Lives with spouse in an apartment.", None),  # empty label cell -> whole column becomes float
    ("Stable housing; owns home.", 0),
]


def _xlsx(path, rows):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append(["text", "result_human"])
    for t, lab in rows:
        ws.append([t, lab])
    wb.save(path)


def write(folder: pathlib.Path) -> dict:
    root = pathlib.Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    _xlsx(root / "alcohol_dependence.xlsx", NOTES)
    _xlsx(root / "homelessness.xlsx", VARIANT)
    letter = {1: "A", 0: "B", 2: "C"}
    exp = []
    for t, lab in NOTES:
        if not t.strip():
            continue
        exp.append({"gold": letter[lab],
                    "input_must_contain": [t, "history of alcohol dependence", "A. Has a history of alcohol dependence",
                                           "C. Uncertain"],
                    "input_must_not_contain": ["result_human"]})
    # clinreg departs from HELM here on purpose: HELM reads the whole homelessness column as floats once
    # one cell is empty, so none of that file's rows has a correct answer; clinreg reads each cell as the
    # text it shows and drops the row without a human label (counted), so the other rows keep their gold.
    variant = [{"gold": letter[lab], "input_must_contain": [t], "input_must_not_contain": []}
               for t, lab in VARIANT if lab is not None]
    # Both workbooks are read in one build (alcohol_dependence, then homelessness, in file-name order).
    return {"params": {"condition": "alcohol_dependence"}, "splits": {"test": exp + variant}, "dropped": {"test": 2},
            "variants": [{"params": {"condition": "homelessness"}, "splits": {"test": variant},
                          "dropped": {"test": 1},
                          "notes": "HELM tags no reference correct in this file (labels read as 1.0/nan/0.0); clinreg "
                                   "keeps the labelled rows"}]}

# No self-check here: the expectations above depart from HELM's literal behaviour where the comments say so,
# so a re-derivation of HELM's output would not match them. tests/instances/test_as_distributed.py checks them.
