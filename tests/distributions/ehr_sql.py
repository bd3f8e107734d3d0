"""Synthetic as-distributed fixture for ehr_sql (EHRSQL, eICU part; GitHub glee4810/EHRSQL layout)."""
import json
import pathlib

SHAPE = """\
HELM source: GitHub glee4810/EHRSQL @ e172ec8e61391ecae2d872c8d0ba02a622222f54, raw files
dataset/ehrsql/eicu/{train,valid,test}.json and dataset/ehrsql/eicu/eicu.sql (ehr_sql_scenario.py BASE_URL,
SQL_SCHEMA_URL; facts ehr_sql.source). eicu.sqlite comes from another repo (raulista1997/benchmarkdata) and is only
used for execution scoring - not written. write() = repo root with those paths (realdata glee4810__EHRSQL keeps the
same layout for valid/test).
JSON: one array per file, json.dumps default style (", "/": " separators, ASCII escapes, no indent, no trailing
newline) (realdata sample bytes). Answerable rows: db_id, question, template, query (SQL), value (object, keys vary:
patient_id, drug_name, lab_name, ...), q_tag, t_tag (5 strings), o_tag (9 strings), tag, department (a STRING like
"['nursing']"), importance, para_type, is_impossible false, split, id (24 hex chars). Unanswerable rows: only db_id,
question, template, query "null", department (a real LIST), para_type, is_impossible true, split, id; in the real
files they all come after the answerable rows (SOURCES.md; realdata).
eicu.sql: per table "DROP TABLE IF EXISTS t;" then "CREATE TABLE t" / "(" / indented column lines / ") ;"
(stored copy of dataset/ehrsql/eicu/eicu.sql, glee4810/EHRSQL@9eb39b5; the pinned commit not seen). HELM keeps
only CREATE TABLE blocks: lines stripped, from a line starting "CREATE TABLE" to the first line ending ";",
blocks joined by blank lines (extract_schema). The fixture schema is a shortened 3-table version.
Instances: file -> HELM split train->"train", valid->"test", test->"test" (so valid AND test rows are both
"test", in that order). Every entry having both "question" and "query" keys becomes an instance (all real rows
do; unanswerable ones included with gold "null"). Input = "-- Database Schema:\\n{schema}\\n\\n-- <spaces>Question:
\\n{question}\\n\\n"; reference/gold = query text; extra_data value = entry.get("value", {}), is_impossible.
Dropped: none (no real row lacks question/query; none invented).
"""

BASE = "dataset/ehrsql/eicu"

SCHEMA_SQL = """DROP TABLE IF EXISTS patient;
CREATE TABLE patient
(
    uniquepid VARCHAR(10) NOT NULL,
    patienthealthsystemstayid INT NOT NULL,
    patientunitstayid INT NOT NULL PRIMARY KEY,
    gender VARCHAR(25) NOT NULL,
    age VARCHAR(10) NOT NULL,
    hospitaladmittime TIMESTAMP(0) NOT NULL,
    hospitaldischargetime TIMESTAMP(0)
) ;

DROP TABLE IF EXISTS lab;
CREATE TABLE lab
(
    labid INT NOT NULL PRIMARY KEY,
    patientunitstayid INT NOT NULL,
    labname VARCHAR(256) NOT NULL,
    labresult NUMERIC(11,4) NOT NULL,
    labresulttime TIMESTAMP(0) NOT NULL,
    FOREIGN KEY(patientunitstayid) REFERENCES patient(patientunitstayid)
) ;

DROP TABLE IF EXISTS medication;
CREATE TABLE medication
(
    medicationid INT NOT NULL PRIMARY KEY,
    patientunitstayid INT NOT NULL,
    drugname VARCHAR(220) NOT NULL,
    routeadmin VARCHAR(120) NOT NULL,
    drugstarttime TIMESTAMP(0),
    FOREIGN KEY(patientunitstayid) REFERENCES patient(patientunitstayid)
) ;"""


def _ans(split, i, question, template, query, value, q_tag, dept, importance, para, t_tag=None):
    return {"db_id": "eicu", "question": question, "template": template, "query": query, "value": value,
            "q_tag": q_tag, "t_tag": t_tag or ["", "", "", "", ""], "o_tag": [""] * 9, "tag": q_tag,
            "department": dept, "importance": importance, "para_type": para, "is_impossible": False,
            "split": split, "id": f"{split[:2]}{i:022x}"}


def _imp(split, i, question, template, dept):
    return {"db_id": "eicu", "question": question, "template": template, "query": "null", "department": dept,
            "para_type": "human", "is_impossible": True, "split": split, "id": f"{split[:2]}{i:022x}"}


DATA = {
    "train": [
        _ans("train", 1, "what is the gender of patient 002-1000?", "what is the gender of patient 002-1000?",
             "select distinct patient.gender from patient where patient.uniquepid = '002-1000'",
             {"patient_id": "002-1000"}, "what is the gender of patient {patient_id}?", "['physician']", "low",
             "machine"),
    ],
    "valid": [
        _ans("valid", 1, "what is warfarin 2.5 mg tab's way of ingesting it?",
             "what is the intake method of warfarin 2.5 mg tab?",
             "select distinct medication.routeadmin from medication where medication.drugname = 'warfarin 2.5 mg tab'",
             {"drug_name": "warfarin 2.5 mg tab"}, "what is the intake method of {drug_name}?", "['nursing']",
             "medium", "machine"),
        _ans("valid", 2, "what was the last potassium value of patient 016-1459?",
             "what was the last potassium value of patient 016-1459?",
             "select lab.labresult from lab where lab.patientunitstayid in (select patient.patientunitstayid from "
             "patient where patient.uniquepid = '016-1459') and lab.labname = 'potassium' order by "
             "lab.labresulttime desc limit 1",
             {"lab_name": "potassium", "patient_id": "016-1459"},
             "what was the [time_filter_exact1] {lab_name} value of patient {patient_id}?",
             "['physician', 'nursing']", "high", "human", t_tag=["", "", "", "exact-last", ""]),
        _ans("valid", 3, "how many days did patient 030-52327 stay in the hospital last time?",
             "what was the last length of hospital stay of patient 030-52327?",
             "select strftime('%j',patient.hospitaldischargetime) - strftime('%j',patient.hospitaladmittime) from "
             "patient where patient.uniquepid = '030-52327' and patient.hospitaladmittime is not null order by "
             "patient.hospitaladmittime desc limit 1",
             {"patient_id": "030-52327"}, "what was the [time_filter_exact1] length of hospital stay of patient "
             "{patient_id}?", "['-']", "high", "human", t_tag=["", "", "", "exact-last", ""]),
        _imp("valid", 4, "what are the results of patient 025-50213's ct scan?", "test results",
             ["health records"]),
    ],
    "test": [
        _ans("test", 1, "tell me the method of dextrose 5% in water (d5w) iv : 1000 ml bag intake?",
             "what is the intake method of dextrose 5% in water (d5w) iv : 1000 ml bag?",
             "select distinct medication.routeadmin from medication where medication.drugname = "
             "'dextrose 5% in water (d5w) iv : 1000 ml bag'",
             {"drug_name": "dextrose 5% in water (d5w) iv : 1000 ml bag"},
             "what is the intake method of {drug_name}?", "['nursing']", "medium", "machine"),
        _ans("test", 2, "what is the age of patient 006-1629 in their first hospital visit?",
             "what is the age of patient 006-1629 on the first hospital visit?",
             "select patient.age from patient where patient.uniquepid = '006-1629' and "
             "patient.hospitaldischargetime is not null order by patient.hospitaladmittime asc limit 1",
             {"patient_id": "006-1629"}, "what is the age of patient {patient_id} on the [time_filter_exact1] "
             "hospital visit?", "['physician']", "low", "human", t_tag=["", "", "", "exact-first", ""]),
        _imp("test", 3, "from what age is clonidine permitted to be used?", "prescription age", ["physician"]),
    ],
}


def write(folder: pathlib.Path) -> dict:
    folder = pathlib.Path(folder)
    d = folder / BASE
    d.mkdir(parents=True, exist_ok=True)
    for name, rows in DATA.items():
        (d / f"{name}.json").write_text(json.dumps(rows), encoding="utf-8")
    (d / "eicu.sql").write_text(SCHEMA_SQL + "\n", encoding="utf-8")

    def exp(r):
        return {"id": r["id"], "gold": r["query"], "is_impossible": r["is_impossible"],
                "value": r.get("value", {}),
                "input_must_contain": ["-- Database Schema:\nCREATE TABLE patient\n(\nuniquepid VARCHAR(10) NOT NULL,",
                                       ") ;\n\nCREATE TABLE lab", f"Question:\n{r['question']}\n\n"],
                "input_must_not_contain": ["DROP TABLE", r["query"] if r["query"] != "null" else "select "]}

    return {"splits": {"train": [exp(r) for r in DATA["train"]],
                       "test": [exp(r) for r in DATA["valid"] + DATA["test"]]},
            "dropped": {"train": 0, "test": 0},
            "helm_split_of_file": {"train": "train", "valid": "test", "test": "test"}}


if __name__ == "__main__":
    import tempfile
    import pyarrow.json as pajson

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        exp = write(root)
        golds = []
        for name in ("valid", "test"):
            raw = (root / BASE / f"{name}.json").read_text(encoding="utf-8")
            assert raw.startswith('[{"db_id": "eicu", "question": ') and raw.endswith("}]")
            rows = json.loads(raw)
            imp = [r["is_impossible"] for r in rows]
            assert imp == sorted(imp)  # unanswerable rows last
            for r in rows:
                if r["is_impossible"]:
                    assert "value" not in r and isinstance(r["department"], list) and r["query"] == "null"
                else:
                    assert isinstance(r["department"], str) and len(r["t_tag"]) == 5 and len(r["o_tag"]) == 9
            golds += [r["query"] for r in rows if "question" in r and "query" in r]
        assert golds == [e["gold"] for e in exp["splits"]["test"]]
        # JSON-lines reader must refuse the array file (it is NOT jsonl) - proves the container format
        try:
            pajson.read_json(root / BASE / "test.json")
            raise AssertionError("array file parsed as JSON lines")
        except Exception as e:  # noqa: BLE001
            assert not isinstance(e, AssertionError)
        blocks, cur, inside = [], [], False
        for line in (root / BASE / "eicu.sql").read_text().splitlines():
            line = line.strip()
            if line.startswith("CREATE TABLE"):
                inside, cur = True, [line]
            elif inside:
                cur.append(line)
                if line.endswith(";"):
                    inside = False
                    blocks.append("\n".join(cur))
        assert len(blocks) == 3 and "DROP" not in "\n\n".join(blocks)
    print("ehr_sql fixture OK")
