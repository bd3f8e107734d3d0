"""As-distributed fixture for MedHELM `dischargeme` (Discharge Me!, BioNLP ACL'24, PhysioNet discharge-me 1.3)."""
import csv
import gzip
import io
import pathlib

SHAPE = """\
Where: PhysioNet credentialed download `wget -r ... https://physionet.org/files/discharge-me/1.3/`. HELM's data_path is
the folder that CONTAINS `files/` (run entries use `.../physionet.org`), and it reads only
`files/discharge-me/1.3/test_phase_1/{diagnosis,discharge,discharge_target,radiology,edstays,triage}.csv.gz`
(facts: dischargeme.source.files; HELM dischargeme_scenario.file_preprocessing). The release also has train/, valid/,
test_phase_2/ with the same six files (not read by HELM; not written here).
Format: gzip-compressed CSV, comma, header row, minimal quoting, LF line ends (note text is quoted and holds newlines).
HELM reads every file with pandas keep_default_na=False (empty cells stay ''), so blank vitals do not become NaN.
Columns (MIMIC-IV-Note / MIMIC-IV-ED names; third-party code listing the six files agrees; types not in the facts file):
  discharge / radiology: note_id, subject_id, hadm_id, note_type (DS / RR), note_seq, charttime, storetime, text
  discharge_target: note_id, hadm_id, discharge_instructions, brief_hospital_course,
                    discharge_instructions_word_count, brief_hospital_course_word_count
  edstays: subject_id, hadm_id, stay_id, intime, outtime, gender, race, arrival_transport, disposition
  triage: subject_id, stay_id, temperature, heartrate, resprate, o2sat, sbp, dbp, pain, acuity, chiefcomplaint
  diagnosis: subject_id, stay_id, seq_num, icd_code, icd_version, icd_title  (several rows per ED stay)
HELM join (file_preprocessing): diagnosis x triage ON subject_id -> x discharge ON subject_id -> x radiology ON hadm_id
(radiology text becomes `text_df_radiology`) -> x edstays ON hadm_id, all INNER; then drop_duplicates(hadm_id) keeps the
FIRST row, so only the first radiology report (file order) of an admission is used; then inner join with
discharge_target ON hadm_id. An admission missing from any of the joined files is silently dropped (fixture: hadm
20000004 has no radiology row -> dropped; synthetic case, the real release may not contain one).
Per kept admission HELM emits 2 test instances, in this order: "Brief Hospital Course" then "Discharge Instructions".
Input = fixed instruction + discharge `text` with ONLY that task's target string removed by exact str.replace +
first radiology text. So the BHC prompt still contains the discharge-instructions text and vice versa (quirk).
Gold = discharge_target.brief_hospital_course / .discharge_instructions verbatim.
Unverified: exact dtypes/number formats of vitals and word counts, and whether every target occurs verbatim in `text`
in the real release (if not, str.replace leaves it in the prompt).
"""

BASE = "files/discharge-me/1.3/test_phase_1"

_BHC = {
    20000001: "Mr. ___ was admitted with community acquired pneumonia and treated with ceftriaxone and azithromycin. "
    "Oxygen was weaned to room air by hospital day 3.",
    20000002: "Ms. ___ presented with a right ankle fracture. She underwent open reduction and internal fixation "
    "without complication.\nPain was controlled with oral medications.",
    20000003: "Patient admitted for alcohol withdrawal, managed with a CIWA protocol. No seizures occurred.",
    20000004: "Brief course for the admission without a radiology report.",
}
_DI = {
    20000001: "Dear Mr. ___,\nYou were admitted for pneumonia. Please finish your antibiotics and see your doctor in "
    "one week.",
    20000002: "Dear Ms. ___,\nKeep your right leg elevated and do not bear weight until your follow-up visit.",
    20000003: "You were treated for alcohol withdrawal. Please avoid alcohol and attend your counseling appointment.",
    20000004: "Instructions for the admission without a radiology report.",
}
_CC = {20000001: "Dyspnea", 20000002: "R Ankle pain", 20000003: "Tremors", 20000004: "Fall"}
_RAD = [  # (note_id, subject_id, hadm_id, seq, text) in file order; hadm 20000001 has two reports
    ("10000001-RR-11", 10000001, 20000001, 11, "EXAMINATION: CHEST (PA AND LAT)\nFINDINGS: Right lower lobe "
     "opacity.\nIMPRESSION: Right lower lobe pneumonia."),
    ("10000001-RR-12", 10000001, 20000001, 12, "EXAMINATION: CHEST (PORTABLE AP)\nIMPRESSION: Interval improvement "
     "of the right lower lobe opacity. SECONDREPORTMARKER"),
    ("10000002-RR-7", 10000002, 20000002, 7, "EXAMINATION: ANKLE (AP, MORTISE AND LAT) RIGHT\nIMPRESSION: Displaced "
     "bimalleolar fracture."),
    ("10000003-RR-3", 10000003, 20000003, 3, "EXAMINATION: CT HEAD W/O CONTRAST\nIMPRESSION: No acute intracranial "
     "process."),
]


def _discharge_text(hadm: int) -> str:
    return (
        " \nName:  ___                     Unit No:   ___\n \nAdmission Date:  ___              Discharge Date:   ___\n"
        " \nDate of Birth:  ___             Sex:   M\n \nService: MEDICINE\n \n"
        f"Chief Complaint:\n{_CC[hadm]}\n \nHistory of Present Illness:\nPresented to the ED with "
        f"{_CC[hadm].lower()}.\n"
        " \nBrief Hospital Course:\n" + _BHC[hadm] + "\n \nDischarge Disposition:\nHome\n \n"
        "Discharge Diagnosis:\nSee above\n \nDischarge Instructions:\n" + _DI[hadm] + "\n \nFollowup "
                                                                                      "Instructions:\n___\n"
    )


def _write_csv_gz(path: pathlib.Path, header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(r)
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wb") as f:
        f.write(buf.getvalue().encode("utf-8"))


def write(folder: pathlib.Path) -> dict:
    folder = pathlib.Path(folder)
    d = folder / BASE
    hadms = [20000001, 20000002, 20000003, 20000004]
    subj = {h: h - 10000000 for h in hadms}
    stay = {h: h + 10000000 for h in hadms}
    _write_csv_gz(
        d / "discharge.csv.gz",
        ["note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime", "storetime", "text"],
        [[f"{subj[h]}-DS-{i + 5}", subj[h], h, "DS", i + 5, f"2180-0{i + 1}-10 00:00:00", f"2180-0{i + 1}-10 15:22:00",
          _discharge_text(h)] for i, h in enumerate(hadms)],
    )
    _write_csv_gz(
        d / "discharge_target.csv.gz",
        ["note_id", "hadm_id", "discharge_instructions", "brief_hospital_course", "discharge_instructions_word_count",
         "brief_hospital_course_word_count"],
        [[f"{subj[h]}-DS-{i + 5}", h, _DI[h], _BHC[h], len(_DI[h].split()), len(_BHC[h].split())]
         for i, h in enumerate(hadms)],
    )
    _write_csv_gz(
        d / "radiology.csv.gz",
        ["note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime", "storetime", "text"],
        [[nid, s, h, "RR", q, "2180-01-08 10:00:00", "2180-01-08 11:30:00", t] for nid, s, h, q, t in _RAD],
    )
    _write_csv_gz(
        d / "edstays.csv.gz",
        ["subject_id", "hadm_id", "stay_id", "intime", "outtime", "gender", "race", "arrival_transport", "disposition"],
        [[subj[h], h, stay[h], "2180-01-07 18:00:00", "2180-01-08 02:00:00", g, "WHITE", "AMBULANCE", "ADMITTED"]
         for h, g in zip(hadms, ["M", "F", "M", "F"])],
    )
    _write_csv_gz(
        d / "triage.csv.gz",
        ["subject_id", "stay_id", "temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp", "pain", "acuity",
         "chiefcomplaint"],
        [[subj[20000001], stay[20000001], "100.4", "104.0", "24.0", "91.0", "128.0", "76.0", "3", "2.0", _CC[20000001]],
         [subj[20000002], stay[20000002], "98.1", "88.0", "16.0", "99.0", "141.0", "82.0", "8", "3.0", _CC[20000002]],
         # blank vitals: kept as '' because HELM reads with keep_default_na=False
         [subj[20000003], stay[20000003], "", "", "", "", "", "", "", "2.0", _CC[20000003]],
         [subj[20000004], stay[20000004], "97.9", "72.0", "14.0", "98.0", "120.0", "70.0", "0", "4.0", _CC[20000004]]],
    )
    _write_csv_gz(
        d / "diagnosis.csv.gz",
        ["subject_id", "stay_id", "seq_num", "icd_code", "icd_version", "icd_title"],
        [[subj[20000001], stay[20000001], 1, "J189", 10, "PNEUMONIA, UNSPECIFIED ORGANISM"],
         [subj[20000001], stay[20000001], 2, "R0602", 10, "SHORTNESS OF BREATH"],
         [subj[20000002], stay[20000002], 1, "S82851A", 10, "DISPLACED TRIMALLEOLAR FRACTURE OF RIGHT LOWER LEG"],
         [subj[20000003], stay[20000003], 1, "F10239", 10, "ALCOHOL DEPENDENCE WITH WITHDRAWAL, UNSPECIFIED"],
         [subj[20000004], stay[20000004], 1, "W19XXXA", 10, "UNSPECIFIED FALL, INITIAL ENCOUNTER"]],
    )
    first_rad = {20000001: _RAD[0][4], 20000002: _RAD[2][4], 20000003: _RAD[3][4]}
    expected = []
    for h in [20000001, 20000002, 20000003]:
        must_not_common = ["SECONDREPORTMARKER"] if h == 20000001 else []
        expected.append({
            "hadm_id": h, "task": "Brief Hospital Course", "gold": _BHC[h],
            # HELM leaves the other target in each prompt; clinreg removes both (its record says so).
            "input_must_contain": ["Generate the Brief Hospital Course", first_rad[h], "Chief Complaint:"],
            "input_must_not_contain": [_BHC[h], _DI[h]] + must_not_common,
        })
        expected.append({
            "hadm_id": h, "task": "Discharge Instructions", "gold": _DI[h],
            "input_must_contain": ["Generate the Discharge Instructions", first_rad[h]],
            "input_must_not_contain": [_BHC[h], _DI[h]] + must_not_common,
        })
    return {"splits": {"test": expected}, "dropped": {"test": 2},
            "notes": "dropped counts instances: hadm 20000004 (no radiology row) would have given 2"}

# No self-check here: the expectations above depart from HELM's literal behaviour where the comments say so,
# so a re-derivation of HELM's output would not match them. tests/instances/test_as_distributed.py checks them.
