"""Synthetic as-distributed fixture for starr_patient_instructions (private STARR-OMOP CSV)."""
import csv
import pathlib

SHAPE = """\
Private file (Stanford STARR-OMOP): dataset_cases_qc.csv, passed to HELM as data_path
(run_entries_medhelm_private_stanford.conf: .../starr-omop-personalized-care-instr/dataset_cases_qc.csv;
facts starr_patient_instructions.source). write() puts folder/dataset_cases_qc.csv.
Format: UTF-8 CSV with a header row, read by csv.DictReader (so multi-line quoted note text is fine). Columns
HELM reads (starr_patient_instructions_scenario.py): QC, Diagnosis, ActualProcedure, HistoryPhysicalNoteText,
OperativeNoteText, DischargeInstructionNoteText. Any other columns and the real column order are unknown (written
here: the five text columns in docstring order, then QC; no BOM - a BOM before a first column "QC" would make
HELM drop every row).
Filters (in order): QC.strip().upper() != "TRUE" -> skipped (so "True"/" true" pass; FALSE/empty dropped); then
any of the five text fields empty after strip -> skipped (facts filters). No dedup.
Instance: input = "Diagnosis: {d}\\nProcedure: {p}\\nHistory & Physical: {hp}\\nOperative Report: {op}\\n\\n"
(all stripped); single reference = DischargeInstructionNoteText stripped (gold), split "test", file order.
Unverified: real QC spelling (TRUE vs True), line terminator (csv module default \\r\\n used here), extra columns.
"""

COLUMNS = ["Diagnosis", "ActualProcedure", "HistoryPhysicalNoteText", "OperativeNoteText",
           "DischargeInstructionNoteText", "QC"]
ROWS = [
    ["Symptomatic cholelithiasis", "Laparoscopic cholecystectomy",
     "52F with RUQ pain after meals, \"biliary colic\", US shows gallstones.",
     "Four ports placed; gallbladder removed intact.\nEBL minimal.",
     "  Keep incisions dry for 48 hours.\nNo lifting over 10 lb for 2 weeks.  ", "TRUE"],
    ["Right inguinal hernia", "Open inguinal hernia repair with mesh",
     "67M with reducible bulge, no obstruction.", "Mesh repair, Lichtenstein technique.",
     "Walk daily, avoid straining, call for fever > 101F.", " True"],          # case/space tolerated
    ["Carpal tunnel syndrome", "Carpal tunnel release", "Numbness in fingers 1-3.", "Transverse ligament released.",
     "Elevate the hand, keep dressing on 3 days.", "FALSE"],                   # QC fails -> dropped
    ["Cataract, left eye", "Phacoemulsification with IOL", "Blurred vision for a year.", "   ",
     "Use eye drops four times daily.", "TRUE"],                                # empty OperativeNoteText -> dropped
    ["Colon polyp", "Colonoscopy with polypectomy", "Screening, family history of colon cancer.",
     "Cold snare polypectomy of a 6 mm polyp, sigmoid.",
     "Resume normal diet today; small blood in stool is expected, call if heavy bleeding.", "true"],
]


def write(folder: pathlib.Path) -> dict:
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "dataset_cases_qc.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(ROWS)
    out = []
    for r in ROWS:
        d = dict(zip(COLUMNS, (v.strip() for v in r)))
        if d["QC"].upper() != "TRUE" or not all(d[c] for c in COLUMNS[:5]):
            continue
        out.append({"gold": d["DischargeInstructionNoteText"],
                    "input_must_contain": [f"Diagnosis: {d['Diagnosis']}\nProcedure: {d['ActualProcedure']}\n",
                                           f"Operative Report: {d['OperativeNoteText']}\n\n"],
                    "input_must_not_contain": [d["DischargeInstructionNoteText"][:25], "QC"]})
    return {"splits": {"test": out}, "dropped": {"test": 2}}


if __name__ == "__main__":
    import tempfile
    import pyarrow.csv as pacsv

    with tempfile.TemporaryDirectory() as tmp:
        exp = write(pathlib.Path(tmp))
        path = pathlib.Path(tmp) / "dataset_cases_qc.csv"
        t = pacsv.read_csv(path)
        assert t.column_names == COLUMNS and t.num_rows == 5
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        kept = [r["DischargeInstructionNoteText"].strip() for r in rows
                if r["QC"].strip().upper() == "TRUE" and all(r[c].strip() for c in COLUMNS[:5])]
        assert kept == [e["gold"] for e in exp["splits"]["test"]] and len(kept) == 3
    print("starr_patient_instructions fixture OK")
