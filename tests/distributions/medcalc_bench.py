"""As-distributed fixture for MedHELM `medcalc_bench` (hub repo ncbi/MedCalc-Bench-v1.0, parquet)."""
import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq

SHAPE = """\
Where: HELM calls load_dataset("ncbi/MedCalc-Bench" + ("-" + version if version)) and uses split "test" only
(facts: medcalc_bench.source; HELM medcalc_bench_scenario). Fixture = hub repo root of ncbi/MedCalc-Bench-v1.0:
data/test-00000-of-00001.parquet (+ data/train-00000-of-00001.parquet, README.md with a configs block). Upstream
GitHub ncbi-nlp/MedCalc-Bench keeps the same rows as dataset/test_data.csv (v1.0: 1047 test rows; later commits hold
v1.1/v1.2 with edited answers) - HELM reads the hub parquet, not the CSV.
Format (checked against the real sample): one parquet file per split, snappy, schema metadata key "huggingface" with
the features. Columns: Row Number int64, Calculator ID int64, Calculator Name, Category, Output Type, Note ID,
Note Type, Patient Note, Question, Relevant Entities, Ground Truth Answer, Lower Limit, Upper Limit,
Ground Truth Explanation - all string. Category values in the real data: lab, risk, physical, severity, diagnosis,
date, dosage. Output Type: decimal / integer / date. Note Type: Extracted / Template. Relevant Entities is a Python
dict repr. Dates are MM/DD/YYYY; gestational age answers are the string "('X weeks', 'Y days')"; limits are strings
(for decimals +-5%, for integers/dates equal to the answer). Rows are grouped by calculator
(Calculator IDs not ascending: 2, 4, 5, 15, 33, 13, ...) and Row Number increases in file order.
Train parquet columns assumed identical (UNVERIFIED).
HELM: every test row -> one instance, id = Row Number; input = "Patient note: " + note + question;
gold = Ground Truth Answer (string); extra_data category / lower_limit / upper_limit. No rows dropped.
Scoring disagreement: HELM's metric does exact match for risk/severity/diagnosis and range checks only for
"physical", "dosage conversion" and "date"; real categories "lab" and "dosage" fall to "Category not supported" and
always score 0 (facts file states the same rule but names "dosage conversion", which does not occur in the data).
"""

COLS = ["Row Number", "Calculator ID", "Calculator Name", "Category", "Output Type", "Note ID", "Note Type",
        "Patient Note", "Question", "Relevant Entities", "Ground Truth Answer", "Lower Limit", "Upper Limit",
        "Ground Truth Explanation"]

TEST = [
    [1, 2, "Creatinine Clearance (Cockcroft-Gault Equation)", "lab", "decimal", "pmc-0000001-1", "Extracted",
     "An 80-year-old man weighing 50 kg presented with confusion. Serum creatinine was 1.6 mg/dL.",
     "What is the patient's Creatinine Clearance using the Cockroft-Gault Equation in terms of mL/min?",
     "{'sex': 'Male', 'age': [80, 'years'], 'weight': [50.0, 'kg'], 'creatinine': [1.6, 'mg/dL']}",
     "26.042", "24.7399", "27.3441", "CrCl = (140 - age) x weight / (72 x Cr) = 26.042 mL/min."],
    [41, 4, "CHA2DS2-VASc Score for Atrial Fibrillation Stroke Risk", "risk", "integer", "pmc-0000002-1",
     "Extracted", "A 72-year-old woman with hypertension and atrial fibrillation.",
     "What is the patient's CHA2DS2-VASc Score?",
     "{'sex': 'Female', 'age': [72, 'years'], 'Hypertension history': True}", "4", "4", "4",
     "Age 65-74 (1) + female (1) + hypertension (1) + ... = 4."],
    [61, 5, "Mean Arterial Pressure (MAP)", "physical", "decimal", "usmle-0001", "Extracted",
     "Blood pressure is 120/60 mm Hg.", "What is patient's mean arterial pressure in mm Hg?",
     "{'Systolic Blood Pressure': [120.0, 'mm hg'], 'Diastolic Blood Pressure': [60.0, 'mm hg']}",
     "80", "76", "84", "MAP = 2/3 x 60 + 1/3 x 120 = 80 mm Hg."],
    [200, 15, "Child-Pugh Score for Cirrhosis Mortality", "severity", "integer", "2", "Extracted",
     "Cirrhotic patient with INR 2.1, no ascites, bilirubin 2.5 mg/dL, albumin 3.0 g/dL.",
     "What is the patient's Child-Pugh Score?",
     "{'international normalized ratio': 2.1, 'Ascites': 'absent'}", "8", "8", "8", "Sum of points = 8."],
    [447, 33, "FeverPAIN Score for Strep Pharyngitis", "diagnosis", "integer", "usmle-0002", "Extracted",
     "Sore throat for 2 days with purulent tonsils and fever.", "What is the patient's FeverPAIN score?",
     "{'Purulent tonsils': True, 'Symptom onset ≤3 days': True, 'Fever in past 24 hours': True}", "3", "3", "3",
     "Fever, purulence and rapid onset give 3."],
    [928, 13, "Estimated Due Date", "date", "date", "1", "Template",
     "The patient's last menstrual period was on 12/11/2013. Her cycle length is 22 days.",
     "Using Naegele's Rule for estimated due date based on the last menstrual period and cycle length, what is the "
     "the patient's estimated due date? Your response should be in the format of (MM/DD/YYY)",
     "{'cycle length': 22, 'Last menstrual date': '12/11/2013'}", "09/10/2014", "09/10/2014", "09/10/2014",
     "LMP + 280 days + (22 - 28) days."],
    [948, 24, "Steroid Conversion Calculator", "dosage", "decimal", "4", "Template",
     "Patient has taken 10 mg of PredniSONE PO.",
     "Based on the patient's dose of PredniSONE PO, what is the equivalent dosage in mg of Dexamethasone IV?",
     "{'input steroid': ['PredniSONE PO', 10.0, 'mg'], 'target steroid': 'Dexamethasone IV'}",
     "1.5", "1.425", "1.575", "10 mg prednisone = 1.5 mg dexamethasone."],
    [1028, 69, "Estimated Gestational Age", "date", "integer", "3", "Template",
     "The patient's last menstrual period was 02/09/2021. Today's date is 03/11/2021.",
     "Based on the patient's last menstrual period, what is the patient's estimated gestational age?",
     "{'Current Date': '03/11/2021', 'Last menstrual date': '02/09/2021'}", "('4 weeks', '2 days')",
     "('4 weeks', '2 days')", "('4 weeks', '2 days')", "30 days = 4 weeks 2 days."],
]
TRAIN = [[1, 2, "Creatinine Clearance (Cockcroft-Gault Equation)", "lab", "decimal", "pmc-0000009-1", "Extracted",
          "A 60-year-old woman weighing 70 kg; creatinine 1.0 mg/dL.", "What is the patient's Creatinine Clearance?",
          "{'sex': 'Female', 'age': [60, 'years']}", "66.111", "62.80545", "69.41655", "Cockcroft-Gault."]]


def _table(rows):
    schema = pa.schema([(c, pa.int64() if c in ("Row Number", "Calculator ID") else pa.string()) for c in COLS])
    feats = {c: {"dtype": "int64" if c in ("Row Number", "Calculator ID") else "string", "_type": "Value"}
             for c in COLS}
    schema = schema.with_metadata({"huggingface": json.dumps({"info": {"features": feats}})})
    return pa.Table.from_pylist([dict(zip(COLS, r)) for r in rows], schema=schema)


README = """---
license: cc-by-sa-4.0
configs:
- config_name: default
  data_files:
  - split: train
    path: data/train-*
  - split: test
    path: data/test-*
---
"""


def write(folder: pathlib.Path) -> dict:
    root = pathlib.Path(folder)
    (root / "data").mkdir(parents=True, exist_ok=True)
    pq.write_table(_table(TEST), root / "data" / "test-00000-of-00001.parquet", compression="snappy")
    pq.write_table(_table(TRAIN), root / "data" / "train-00000-of-00001.parquet", compression="snappy")
    (root / "README.md").write_text(README, encoding="utf-8")
    scored = {"risk", "severity", "diagnosis", "physical", "date", "dosage conversion"}
    exp = [{"id": r[0], "gold": r[10], "category": r[3], "lower_limit": r[11], "upper_limit": r[12],
            "helm_metric_can_score": r[3] in scored,
            "input_must_contain": ["Patient note: ", r[7], r[8]], "input_must_not_contain": [r[13]]} for r in TEST]
    return {"splits": {"test": exp}, "dropped": {"test": 0}}


def _realdata(sub):
    """Folder of the real sample (shared/realdata/<sub>) if present, else None (self-check only)."""
    here = pathlib.Path(__file__).resolve()
    for base in [pathlib.Path("/work/shared/realdata"), here.parents[3] / "shared" / "realdata",
                 pathlib.Path.cwd() / ".." / "shared" / "realdata"]:
        if (base / sub).is_dir():
            return base / sub
    return None


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        e = write(pathlib.Path(tmp))
        f = pq.ParquetFile(pathlib.Path(tmp) / "data" / "test-00000-of-00001.parquet")
        assert f.schema_arrow.names == COLS and b"huggingface" in f.schema_arrow.metadata
        assert f.schema_arrow.field("Row Number").type == pa.int64()
        assert f.schema_arrow.field("Lower Limit").type == pa.string()
        rows = f.read().to_pylist()
        inst = e["splits"]["test"]
        assert len(rows) == len(inst) == 8
        for r, x in zip(rows, inst):
            assert r["Ground Truth Answer"] == x["gold"] and r["Row Number"] == x["id"]
            assert r["Patient Note"] in x["input_must_contain"]
        assert {r["Category"] for r in rows} == {"lab", "risk", "physical", "severity", "diagnosis", "date", "dosage"}
        assert sum(not x["helm_metric_can_score"] for x in inst) == 2
        real = _realdata("ncbi__MedCalc-Bench-v1.0")
        if real is not None:
            rs = pq.ParquetFile(real / "data" / "test-00000-of-00001.parquet").schema_arrow
            assert [(f.name, f.type) for f in rs] == [(f.name, f.type) for f in f.schema_arrow]
            cats = {r["Category"] for r in pq.read_table(real / "data" / "test-00000-of-00001.parquet").to_pylist()}
            assert cats == {r["Category"] for r in rows}
            print("  matches real sample schema and category set")
    print("medcalc_bench fixture OK")
