"""Synthetic as-distributed fixture for shc_sequoia_med (private Stanford CSV medhelm-sequoia-dataset_filtered.csv)."""
import csv
import pathlib

SHAPE = """\
Private file medhelm-sequoia-dataset_filtered.csv (Stanford Health Care; facts shc_sequoia_med.source), passed to HELM as data_path
(run_entries_medhelm_private_stanford.conf: /dbfs/mnt/azure_adbfs/Files/medhelm/medhelm-sequoia-dataset_filtered.csv). write() puts
folder/medhelm-sequoia-dataset_filtered.csv.
Task: Sequoia clinic referral notes: yes/no referral questions (A yes, B no).
Format: CSV with a header row, read by csv.DictReader(open(path, "r")) (platform default encoding, UTF-8 assumed).
Columns HELM reads: question, context, label (shc_sequoia_scenario.py (SHCSequoiaMedScenario); facts shc_sequoia_med (fields_read question, context, label - the only shc_* CSV with 'question')). Other columns / column order of the real file
are unknown - only these three are written, in this order, "\\n" line ends, QUOTE_MINIMAL (unverified).
label holds the answer LETTER itself (no mapping); HELM asserts label in ['A', 'B'] (no strip: " A" would crash).
A running counter (1, 2, ... over ALL rows) is prefixed to every prompt, so duplicate (question, context) rows do NOT collapse - contradicts the facts file's blanket shc_csv_dedup note. No row filter.
Instance: input = " {counter} Provide an answer to the following question: {question} with the following context: {context} , Answer the question with a 'A' for yes or 'B' for no. ..." (note the leading space); references = ['A', 'B'] with the CSV letter tagged correct (gold = that letter);
split "test", CSV order (dict insertion order).
Fixture: 4 rows; row 3 repeats row 1 and is KEPT as its own instance (counter 3). dropped = 0."""

FILE = "medhelm-sequoia-dataset_filtered.csv"
COLUMNS = ["question", "context", "label"]
CHOICES = ['A', 'B']
# (question, context, label) in file order
ROWS = [
    ('Has the patient had prior imaging of the liver?', 'Referral: elevated ALT x2. Abdominal ultrasound 03/2023 showed hepatic steatosis.', 'A'),
    ('Is the referral marked urgent?', 'Referral: routine follow-up of fatty liver, no red flags.', 'B'),
    ('Has the patient had prior imaging of the liver?', 'Referral: elevated ALT x2. Abdominal ultrasound 03/2023 showed hepatic steatosis.', 'A'),
    ('Is the patient on anticoagulation?', 'Meds: apixaban 5 mg BID, metformin 500 mg; referred for GI bleed work-up.', 'A'),
]


def _expected():
    out, seen = [], {}
    counter = 0
    for i, (q, ctx, lab) in enumerate(ROWS):
        counter += 1  # advanced for every row; makes each prompt unique -> duplicates NOT collapsed
        out.append({"row": i, "gold": lab,
                    "input_must_contain": [f" {counter} Provide an answer to the following question: {q} "
                                           f"with the following context: {ctx} ,"],
                    "input_must_not_contain": [f" {counter + 1} Provide an answer"]})
    return out


def write(folder: pathlib.Path) -> dict:
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / FILE, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        w.writerows(ROWS)
    out = _expected()
    return {"splits": {"test": out}, "dropped": {"test": len(ROWS) - len(out)}}


if __name__ == "__main__":
    import tempfile
    import pyarrow.csv as pacsv

    with tempfile.TemporaryDirectory() as tmp:
        exp = write(pathlib.Path(tmp))
        path = pathlib.Path(tmp) / FILE
        t = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(strings_can_be_null=False))
        assert t.column_names == COLUMNS and t.num_rows == len(ROWS)
        with open(path, "r", encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        assert [(r["question"], r["context"], r["label"]) for r in rows] == [tuple(x) for x in ROWS]
        golds = [e["gold"] for e in exp["splits"]["test"]]
        assert golds == ['A', 'B', 'A', 'A'], golds
        assert exp["dropped"]["test"] == 0
        assert all(g in CHOICES for g in golds)
    print("shc_sequoia_med fixture OK")
