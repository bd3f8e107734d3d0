"""As-distributed fixture for MedHELM `medalign` (MedAlign release, gated, Stanford)."""
import csv
import pathlib

SHAPE = """\
Where: the gated MedAlign release folder (run entries: data_path=.../medalign_release_fixes/), read by HELM
medalign_scenario_helper.return_dataset_dataframe (facts: medalign.source.files):
  clinician-reviewed-model-responses.tsv  instructions; HELM requires columns instruction_id, question, person_id
      (docstring also names is_selected_ehr; the `is_selected_ehr == 'yes'` filter is commented out, so ALL rows are
      used). The file name says it holds model responses, so several rows per instruction are assumed here
      (columns model_name, model_response: UNVERIFIED); HELM builds a dict keyed by instruction_id, so duplicates
      collapse (last row wins; question/person_id are identical across them).
  clinician-instruction-responses.tsv     gold; HELM uses instruction_id, annotator_num, clinician_response and
      keeps only annotator_num == 'Annotator_1' (other columns unverified; question/person_id added here as assumed).
  medalign_ehr_xml/<person_id>.xml        one EHR per patient. HELM parses the patient id as int(fname.split('.')[0]),
      so files must be named "<digits>.xml"; the helper's docstring and the facts file say "EHR_<patient_id>.xml",
      which would make HELM crash (int("EHR_123")). This fixture follows the code. The XML vocabulary inside is
      UNVERIFIED (HELM treats the file as opaque text); a small event-stream XML is written.
Both TSVs: tab-separated, header row, read with pandas read_csv(sep='\\t') (so '"'-quoting is honoured; multi-line
responses are quoted). IDs are integers.
Instance construction: prompt = "Instruction: Answer the following question based on the EHR:\\n\\nEHR: {ehr}\\n\\n
Question: {question}\\n\\nAnswer:" with the EHR truncated to its LAST (max_length - 256 - template - instruction)
cl100k tokens (max_length=100000 in MedHELM runs; fixture EHRs are far below). Then Annotator_1 gold rows are
inner-joined on instruction_id, in gold-file order: instructions without an Annotator_1 response are dropped, and gold
rows whose instruction is missing from the instructions file are dropped. Gold = clinician_response (free text).
A person_id without an EHR file would raise KeyError (not in fixture). All instances are TEST.
"""

EHR = {
    5000123: [("2019-01-04 09:00", "visit", "Outpatient Visit", "Office visit, internal medicine"),
              ("2019-01-04 09:15", "measurement", "Hemoglobin A1c", "8.1 %"),
              ("2019-01-04 09:30", "drug_exposure", "metformin 500 MG Oral Tablet", "twice daily"),
              ("2021-06-20 14:00", "note", "Progress Note", "A1c improved to 6.9 on metformin 1000 mg twice daily.")],
    5000456: [("2020-03-11 22:40", "visit", "Emergency Room Visit", "Chest pain"),
              ("2020-03-11 23:05", "measurement", "Troponin I", "0.01 ng/mL"),
              ("2020-03-12 08:00", "condition", "Gastroesophageal reflux disease", "")],
    5000789: [("2018-08-01 10:00", "visit", "Inpatient Visit", "Elective knee arthroplasty"),
              ("2018-08-03 12:00", "drug_exposure", "apixaban 2.5 MG Oral Tablet", "twice daily for 12 days")],
}

INSTR = [  # instruction_id, question, person_id
    (101, "What was the most recent hemoglobin A1c value and what medication is the patient on for diabetes?", 5000123),
    (102, "Summarize the workup for chest pain during the ED visit.", 5000456),
    (103, "How long was the patient supposed to take apixaban after surgery?", 5000789),
    (104, "List any allergies documented.", 5000123),
]
GOLD = [  # instruction_id, annotator_num, clinician_response (file order)
    (102, "Annotator_1", "Troponin I was 0.01 ng/mL (normal); chest pain attributed to GERD."),
    (101, "Annotator_1", "Most recent A1c 6.9% (June 2021).\nOn metformin 1000 mg twice daily."),
    (101, "Annotator_2", "A1c 6.9, metformin."),
    (103, "Annotator_2", "12 days."),  # only an Annotator_2 answer -> instruction 103 dropped
    (999, "Annotator_1", "Response to an instruction that is not in the instructions file."),  # dropped (inner join)
]


def _ehr_xml(pid):
    out = ['<?xml version="1.0" encoding="UTF-8"?>', f'<eventstream person_id="{pid}">']
    for when, kind, name, value in EHR[pid]:
        out.append(f'  <event time="{when}" type="{kind}" name="{name}">{value}</event>')
    out.append("</eventstream>")
    return "\n".join(out) + "\n"


def _tsv(path, header, rows):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def write(folder: pathlib.Path) -> dict:
    root = pathlib.Path(folder)
    (root / "medalign_ehr_xml").mkdir(parents=True, exist_ok=True)
    for pid in EHR:
        (root / "medalign_ehr_xml" / f"{pid}.xml").write_text(_ehr_xml(pid), encoding="utf-8")
    rows = []
    for iid, q, pid in INSTR:
        for model in ["gpt-4", "vicuna-13b"]:  # several reviewed model responses per instruction (assumed)
            rows.append([iid, q, pid, "yes", model, f"[{model} answer to instruction {iid}]"])
    _tsv(root / "clinician-reviewed-model-responses.tsv",
         ["instruction_id", "question", "person_id", "is_selected_ehr", "model_name", "model_response"], rows)
    qmap = {i: (q, p) for i, q, p in INSTR}
    _tsv(root / "clinician-instruction-responses.tsv",
         ["instruction_id", "question", "person_id", "annotator_num", "clinician_response"],
         [[i, qmap.get(i, ("(unknown)", 0))[0], qmap.get(i, ("", 0))[1], a, r] for i, a, r in GOLD])
    expected = []
    for iid, ann, resp in GOLD:
        if ann != "Annotator_1" or iid not in qmap:
            continue
        q, pid = qmap[iid]
        other = [e[2] for p, e in ((p, e) for p in EHR if p != pid for e in EHR[p])]
        expected.append({"instruction_id": iid, "gold": resp,
                         "input_must_contain": ["Answer the following question based on the EHR", q,
                                                EHR[pid][-1][2]],
                         "input_must_not_contain": [resp] + other[:1]})
    return {"params": {"max_length": 100000}, "splits": {"test": expected}, "dropped": {"test": 3},
            "notes": "dropped, in gold-file rows: the two Annotator_2 rows (instructions 101 and 103) and row 999 (no "
                     "instruction); instruction 104 has no gold row at all and never becomes an instance"}


if __name__ == "__main__":
    import tempfile
    import xml.etree.ElementTree as ET

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        exp = write(root)
        for f in (root / "medalign_ehr_xml").iterdir():
            int(f.name.split(".")[0])
            ET.parse(f)
        with open(root / "clinician-reviewed-model-responses.tsv", encoding="utf-8", newline="") as f:
            instr = {int(r["instruction_id"]): r for r in csv.DictReader(f, delimiter="\t")}
        with open(root / "clinician-instruction-responses.tsv", encoding="utf-8", newline="") as f:
            gold = [r for r in csv.DictReader(f, delimiter="\t") if r["annotator_num"] == "Annotator_1"]
        got = []
        for g in gold:
            iid = int(g["instruction_id"])
            if iid in instr:
                pid = int(instr[iid]["person_id"])
                ehr = (root / "medalign_ehr_xml" / f"{pid}.xml").read_text(encoding="utf-8")
                prompt = ("Instruction: Answer the following question based on the EHR:\n\nEHR: " + ehr +
                          "\n\nQuestion: " + instr[iid]["question"] + "\n\nAnswer:")
                got.append((prompt, g["clinician_response"]))
        inst = exp["splits"]["test"]
        assert len(got) == len(inst) == 2
        for (p, g), e in zip(got, inst):
            assert g == e["gold"] and all(s in p for s in e["input_must_contain"])
            assert not any(s in p for s in e["input_must_not_contain"])
        assert "\n" in inst[1]["gold"]
    print("medalign fixture OK")
