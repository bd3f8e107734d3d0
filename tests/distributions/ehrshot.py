"""As-distributed fixture for MedHELM `ehrshot` (EHRSHOT release in MEDS format, gated, Stanford)."""
import datetime as dt
import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq

SHAPE = """\
Where: the EHRSHOT MEDS release (gated; Redivis per the ehrshot-benchmark README). HELM data_path = the MEDS root
(run entries: .../ehrshot/meds/). HELM reads data/data.parquet, metadata/subject_splits.parquet and
labels/<task>/labels.parquet (facts: ehrshot.source.files; HELM ehrshot_scenario.create_benchmark). Layout and schemas
follow som-shahlab/ehrshot-benchmark ehrshot/scripts/convert_to_meds.py + MEDS 0.3.x schemas (meds/schema.py):
  data/data.parquet: subject_id int64, time timestamp[us], code string, numeric_value float32, + text_value string,
    unit string, omop_table string. One file; a subject's rows contiguous and time-sorted. Codes are femr/OMOP
    strings ("SNOMED/...", "LOINC/...", "Visit/IP", "ICD10CM/...").
  metadata/subject_splits.parquet: subject_id int64, split string in {train, tuning, held_out}.
  metadata/codes.parquet: code string, description string (''), parent_codes list<string>.
  metadata/dataset.json: dataset_name EHRSHOT, dataset_version, etl_name, etl_version, meds_version 0.3.3, created_at.
  labels/<task>/labels.parquet: subject_id int64, prediction_time timestamp[us], boolean_value bool,
    integer_value int64, float_value float64, categorical_value string (unused ones null; chexpert uses integer_value).
HELM: tasks = sorted(listdir(labels)); EVERY task folder must hold labels.parquet (checked before the subject filter).
Only labels/<subject>/ is used (MedHELM runs: guo_readmission, new_hypertension, lab_anemia; max_length=100000).
Timeline of a label = codes of that subject with time <= prediction_time (inclusive), in (subject_id, time) order,
rendered "- <code>" one per line (codes only, no times/values). HELM computes timelines on the labels sorted by
(subject_id, prediction_time) but assigns them to the labels in FILE order: correct only if labels.parquet is already
sorted (it is in this fixture; unverified for the real files). A subject with no events still yields an instance with
an empty EHR. lab_* tasks are first sub-sampled with df.sample(n=10000, random_state=1), which raises on <10000 rows,
so a tiny lab_anemia fixture cannot run in HELM (not used for expectations here). The `split` column HELM derives maps
subject_id through the splits frame's RangeIndex (so it is effectively NaN) and is ignored: every label, whatever
its subject split, becomes a TEST instance. Prompts longer than max_length tiktoken gpt-4 tokens are skipped.
Gold: boolean_value True -> "yes" (option A), False -> "no" (option B); references are ["yes", "no"].
Expectations below are for subject=guo_readmission, max_length=2000 (subject 1003, ~3000 events, is dropped; with the
MedHELM value 100000 it would be kept). Unverified: real row order of label files, real value columns' fill.
"""

T = dt.datetime


def _events():
    ev = []
    # subject 1001: a few events, one after the 2nd prediction time, one exactly at the 1st prediction time
    ev += [(1001, T(1958, 4, 2), "SNOMED/3950001", None, None, None, "person"),
           (1001, T(1958, 4, 2), "Gender/F", None, None, None, "person"),
           (1001, T(2019, 2, 27, 8, 0), "Visit/IP", None, None, None, "visit_occurrence"),
           (1001, T(2019, 2, 27, 9, 30), "ICD10CM/I50.9", None, None, None, "condition_occurrence"),
           (1001, T(2019, 2, 28, 6, 0), "LOINC/2160-0", 1.9, None, "mg/dL", "measurement"),
           (1001, T(2019, 3, 1, 23, 59), "RxNorm/4603", None, None, None, "drug_exposure"),
           (1001, T(2020, 6, 9, 12, 0), "ICD10CM/N18.4", None, None, None, "condition_occurrence"),
           (1001, T(2020, 7, 1, 0, 0), "CPT4/99213", None, None, None, "procedure_occurrence")]
    # subject 1002
    ev += [(1002, T(1970, 1, 15), "SNOMED/3950001", None, None, None, "person"),
           (1002, T(2018, 1, 3, 10, 0), "Visit/ER", None, None, None, "visit_occurrence"),
           (1002, T(2018, 1, 4, 11, 0), "LOINC/718-7", 13.2, None, "g/dL", "measurement"),
           (1002, T(2018, 1, 5, 9, 0), "Race/5", None, "White", None, "person")]
    # subject 1003: long history (3000 lab events) -> prompt far above 2000 tokens
    ev.append((1003, T(1949, 7, 7), "SNOMED/3950001", None, None, None, "person"))
    base = T(2015, 1, 1)
    for i in range(3000):
        ev.append((1003, base + dt.timedelta(hours=6 * i), "LOINC/718-7", 10.0 + (i % 30) / 10, None, "g/dL",
                   "measurement"))
    # subject 1004: no events at all (label still produces an instance)
    return ev


LABELS = {
    "guo_readmission": [(1001, T(2019, 3, 1, 23, 59), True), (1001, T(2020, 6, 10, 23, 59), False),
                        (1002, T(2018, 1, 5, 23, 59), False), (1003, T(2017, 3, 3, 23, 59), True),
                        (1004, T(2021, 2, 2, 23, 59), True)],
    "new_hypertension": [(1001, T(2019, 3, 1, 23, 59), False), (1002, T(2018, 1, 5, 23, 59), True)],
    "lab_anemia": [(1002, T(2018, 1, 4, 10, 59), False)],
}


def write(folder: pathlib.Path) -> dict:
    root = pathlib.Path(folder)
    for sub in ["data", "metadata"]:
        (root / sub).mkdir(parents=True, exist_ok=True)
    ev = _events()
    data_schema = pa.schema([("subject_id", pa.int64()), ("time", pa.timestamp("us")), ("code", pa.string()),
                             ("numeric_value", pa.float32()), ("text_value", pa.string()), ("unit", pa.string()),
                             ("omop_table", pa.string())])
    cols = list(zip(*ev))
    pq.write_table(pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, data_schema)],
                                        schema=data_schema), root / "data" / "data.parquet")
    split_schema = pa.schema([("subject_id", pa.int64()), ("split", pa.string())])
    pq.write_table(pa.Table.from_pylist([{"subject_id": 1001, "split": "train"},
                                         {"subject_id": 1002, "split": "tuning"},
                                         {"subject_id": 1003, "split": "held_out"},
                                         {"subject_id": 1004, "split": "held_out"}], schema=split_schema),
                   root / "metadata" / "subject_splits.parquet")
    codes = sorted({e[2] for e in ev})
    code_schema = pa.schema([("code", pa.string()), ("description", pa.string()),
                             ("parent_codes", pa.list_(pa.string()))])
    pq.write_table(pa.Table.from_pylist([{"code": c, "description": "", "parent_codes": None} for c in codes],
                                        schema=code_schema), root / "metadata" / "codes.parquet")
    (root / "metadata" / "dataset.json").write_text(json.dumps({
        "dataset_name": "EHRSHOT", "dataset_version": "1.0", "etl_name": "EHRSHOT => MEDS ETL", "etl_version": "1.0",
        "meds_version": "0.3.3", "created_at": "2024-08-01 12:00:00.000000"}))
    label_schema = pa.schema([("subject_id", pa.int64()), ("prediction_time", pa.timestamp("us")),
                              ("boolean_value", pa.bool_()), ("integer_value", pa.int64()),
                              ("float_value", pa.float64()), ("categorical_value", pa.string())])
    all_labels = dict(LABELS)
    for task, rows in all_labels.items():
        (root / "labels" / task).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(
            [{"subject_id": s, "prediction_time": t, "boolean_value": b, "integer_value": None, "float_value": None,
              "categorical_value": None} for s, t, b in rows], schema=label_schema),
            root / "labels" / task / "labels.parquet")
    # chexpert is categorical: integer_value filled, boolean_value null
    (root / "labels" / "chexpert").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(
        [{"subject_id": 1002, "prediction_time": T(2018, 1, 4, 12, 0), "boolean_value": None, "integer_value": 8192,
          "float_value": None, "categorical_value": None}], schema=label_schema),
        root / "labels" / "chexpert" / "labels.parquet")

    def expect(subject, when, label, include, exclude):
        return {"subject_id": subject, "gold": "A" if label else "B", "gold_text": "yes" if label else "no",
                "input_must_contain": ["expert", "30-day readmission", "Patient EHR:", "readmitted to the hospital"]
                + [f"- {c}" for c in include],
                "input_must_not_contain": [f"- {c}" for c in exclude]}

    exp = [
        expect(1001, LABELS["guo_readmission"][0][1], True,
               ["SNOMED/3950001", "ICD10CM/I50.9", "LOINC/2160-0", "RxNorm/4603"],
               ["ICD10CM/N18.4", "CPT4/99213", "LOINC/718-7"]),
        expect(1001, LABELS["guo_readmission"][1][1], False, ["RxNorm/4603", "ICD10CM/N18.4"], ["CPT4/99213"]),
        expect(1002, LABELS["guo_readmission"][2][1], False, ["Visit/ER", "LOINC/718-7", "Race/5"],
               ["ICD10CM/I50.9"]),
        expect(1003, LABELS["guo_readmission"][3][1], LABELS["guo_readmission"][3][2], ["LOINC/718-7"], []),
        expect(1004, LABELS["guo_readmission"][4][1], True, [], ["SNOMED/3950001", "LOINC/718-7"]),
    ]
    # MedHELM's runs use max_length 100000, at which subject 1003's long timeline is kept.
    return {"params": {"subject": "guo_readmission", "max_length": 100000}, "splits": {"test": exp},
            "dropped": {"test": 0},
            "notes": "subject 1003's label would be dropped only by a max_length as small as 2000"}

# No self-check here: the expectations above depart from HELM's literal behaviour where the comments say so,
# so a re-derivation of HELM's output would not match them. tests/instances/test_as_distributed.py checks them.
