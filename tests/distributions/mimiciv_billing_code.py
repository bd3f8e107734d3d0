"""As-distributed fixture for MedHELM `mimiciv_billing_code` (MIMIC-IV discharge notes + ICD-10 codes, feather)."""
import pathlib

import pyarrow as pa
import pyarrow.feather as feather

SHAPE = """\
Where: a locally built file `mimiciv_icd10.feather`; HELM's data_path IS the file (run entries:
.../mimiciv_billing_codes/mimiciv_icd10.feather; facts: mimiciv_billing_code.source.file). The name and layout match
the output of JoakimEdin/medical-coding-reproducibility prepare_data/prepare_mimiciv.py (MIMIC-IV 2.2 hosp/*_icd +
MIMIC-IV-Note discharge.csv.gz); that MedHELM used exactly this script is UNVERIFIED (HELM only needs text, target).
Format: Feather v2 (Arrow IPC, written by pandas.to_feather), one row per discharge note. Columns (that script):
note_id str, subject_id int64, _id int64 (= hadm_id), note_type str ("DS"), note_seq int64, charttime str,
storetime str (nullable), text str, icd10_proc list<str>, icd10_diag list<str>, target list<str>,
num_words int64, num_targets int64.
Quirks of that preparation: text is lower-cased, every run of non-alphanumerics becomes one space, standalone number
tokens are removed, whitespace collapsed (so no punctuation, no newlines); ICD-10 diagnosis codes get a dot after the
3rd character (3-character codes end with a bare dot, e.g. "i10." is "I10."), procedure (PCS) codes have no dot;
each list is sorted; target = icd10_proc + icd10_diag (procedures first); codes seen < 10 times corpus-wide are
removed and notes left with an empty target are dropped before saving (so no empty target in the file).
HELM (mimiciv_billing_code_scenario): every row -> one TEST instance; input = text; target (numpy array) -> list ->
gold = ",".join(codes) in stored order. No filter (rows failing with an exception are skipped; none here).
"""

ROWS = [
    {"note_id": "10000032-DS-21", "subject_id": 10000032, "_id": 22595853, "note_seq": 21,
     "charttime": "2180-05-07 00:00:00", "storetime": "2180-05-09 15:26:00",
     "text": "name unit no admission date discharge date date of birth sex f service medicine allergies no known "
             "allergies adverse drug reactions chief complaint worsening abd distension and pain history of present "
             "illness hcv cirrhosis c b ascites hiv on art presents with abdominal distension brief hospital course "
             "diagnostic paracentesis negative for sbp",
     "icd10_proc": ["0W9G3ZZ"], "icd10_diag": ["B20.", "K70.31", "K74.60"]},
    {"note_id": "10000084-DS-17", "subject_id": 10000084, "_id": 23052089, "note_seq": 17,
     "charttime": "2160-11-25 00:00:00", "storetime": None,
     "text": "name unit no admission date discharge date service neurology chief complaint visual hallucinations "
             "history of present illness year old man with parkinsonism presents with confusion and visual "
             "hallucinations discharge diagnosis lewy body dementia",
     "icd10_proc": [], "icd10_diag": ["G31.83", "I10.", "R44.1"]},
    {"note_id": "10000117-DS-22", "subject_id": 10000117, "_id": 27988844, "note_seq": 22,
     "charttime": "2183-09-21 00:00:00", "storetime": "2183-09-21 16:11:00",
     "text": "name unit no service orthopaedics chief complaint left hip pain after fall major surgical or invasive "
             "procedure left hip hemiarthroplasty brief hospital course the patient was admitted after a fall",
     "icd10_proc": ["0SRB02Z", "0SRB0J9"], "icd10_diag": ["S72.002A", "W01.XXXA"]},
]


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    recs = []
    for r in ROWS:
        rec = dict(r)
        rec["note_type"] = "DS"
        rec["target"] = r["icd10_proc"] + r["icd10_diag"]
        rec["num_words"] = r["text"].count(" ") + 1
        rec["num_targets"] = len(rec["target"])
        recs.append(rec)
    schema = pa.schema([("note_id", pa.string()), ("subject_id", pa.int64()), ("_id", pa.int64()),
                        ("note_type", pa.string()), ("note_seq", pa.int64()), ("charttime", pa.string()),
                        ("storetime", pa.string()), ("text", pa.string()), ("icd10_proc", pa.list_(pa.string())),
                        ("icd10_diag", pa.list_(pa.string())), ("target", pa.list_(pa.string())),
                        ("num_words", pa.int64()), ("num_targets", pa.int64())])
    feather.write_feather(pa.Table.from_pylist(recs, schema=schema), str(d / "mimiciv_icd10.feather"))
    exp = [{"gold": ",".join(r["target"]), "input_must_contain": [r["text"][:60]],
            "input_must_not_contain": [r["target"][0]]} for r in recs]
    return {"params": {"data_path": "mimiciv_icd10.feather"}, "splits": {"test": exp}, "dropped": {"test": 0}}


if __name__ == "__main__":
    import re
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        exp = write(pathlib.Path(tmp))
        t = feather.read_table(str(pathlib.Path(tmp) / "mimiciv_icd10.feather"))
        assert t.schema.field("target").type == pa.list_(pa.string())
        rows = t.to_pylist()
        inst = exp["splits"]["test"]
        assert len(rows) == len(inst) == 3
        for r, e in zip(rows, inst):
            assert ",".join(r["target"]) == e["gold"] and r["text"].startswith(e["input_must_contain"][0])
            assert r["target"] == r["icd10_proc"] + r["icd10_diag"] and r["num_targets"] == len(r["target"])
            assert re.fullmatch(r"[a-z ]+", r["text"]), "prepared text: lower-case letters and spaces only"
            assert all(c[3] == "." for c in r["icd10_diag"]) and all("." not in c for c in r["icd10_proc"])
    print("mimiciv_billing_code fixture OK")
