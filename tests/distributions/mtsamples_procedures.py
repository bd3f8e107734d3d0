"""As-distributed fixture for MedHELM `mtsamples_procedures` (GitHub raulista1997/benchmarkdata,
mtsample_procedure/)."""
import pathlib

SHAPE = """\
Where: github.com/raulista1997/benchmarkdata, folder mtsample_procedure/ (singular "sample"); files downloaded at
commit c4c252443fa9c52afb6960f53e51be278639bea2, but the file LIST comes from the GitHub contents API WITHOUT a ref,
i.e. the default branch at run time (facts: mtsamples_procedures.source.quirk; HELM mtsamples_procedures_scenario
fetch_file_list/RAW_BASE_URL). A file listed on the default branch but absent at the pinned commit makes the download
raise, which HELM catches and skips. Fixture = repo root with mtsample_procedure/*.txt, processed in name order.
Format: one plain-text UTF-8 operative/procedure note per file named after the mtsamples.com title (e.g.
"Tonsillectomy.txt", "Phacoemulsification & Cataract Extraction - 1.txt"); same layout as mtsamples_processed:
"Medical Specialty:<spec>\\nSample Name: ...\\nDescription: ...\\n(Medical Transcription Sample Report)\\n<body>\\n
Keywords: ...,\\n" with UPPERCASE headings often glued to the previous sentence. Many procedure notes have none of
the three markers (e.g. the repo's Tonsillectomy.txt) and are skipped.
HELM: text = read().strip(); ref = first line after the first exact "PLAN:" (else "SUMMARY:", else "FINDINGS:"),
presence tested on text.upper(). Input = text cut before "PLAN:", then before "SUMMARY:", then before "FINDINGS:"
(all three sections and everything after them removed, unlike mtsamples_replicate). Dropped: no marker; empty
reference line; any marker present only in mixed case ("Summary:", "Findings:") -> IndexError caught -> file skipped,
even when a valid "PLAN:" exists. Gold = reference line. Single split: test. Content synthetic (repo has no license).
"""

FOLDER = "mtsample_procedure"


def _note(spec, title, desc, body, keywords):
    return (f"Medical Specialty:{spec}\nSample Name: {title}\nDescription: {desc}\n(Medical Transcription Sample "
            f"Report)\n{body}\nKeywords: {keywords},\n")


NOTES = [  # (file name, text, expected gold or None if dropped)
    ("Carpal Tunnel Release.txt", _note(
        "Orthopedic", "Carpal Tunnel Release", "Right carpal tunnel release.",
        "PREOPERATIVE DIAGNOSIS: Right carpal tunnel syndrome.PROCEDURE: Open carpal tunnel release.DESCRIPTION OF "
        "PROCEDURE: The transverse carpal ligament was divided under direct vision.\nFINDINGS: Marked compression "
        "of the median nerve.\nPLAN: Splint for 1 week, then begin range-of-motion exercises.",
        "orthopedic, carpal tunnel, median nerve"),
     "Splint for 1 week, then begin range-of-motion exercises."),
    ("Colonoscopy - 2.txt", _note(
        "Gastroenterology", "Colonoscopy - 2", "Screening colonoscopy with polypectomy.",
        "PROCEDURE: Colonoscopy with cold snare polypectomy.DESCRIPTION: The scope was advanced to the cecum.\n"
        "FINDINGS: A 6 mm sessile polyp in the sigmoid colon, removed with cold snare.\nIMPRESSION: Sigmoid polyp.",
        "gastroenterology, colonoscopy, polyp"),
     "A 6 mm sessile polyp in the sigmoid colon, removed with cold snare."),
    ("Echocardiogram.txt", _note(
        "Cardiovascular / Pulmonary", "Echocardiogram", "Transthoracic echocardiogram.",
        "INDICATION: Dyspnea.\nSUMMARY: Normal left ventricular size and function, ejection fraction 60%.\n"
        "Findings: No pericardial effusion.", "cardiology, echocardiogram"),
     None),  # mixed-case "Findings:" -> IndexError -> skipped although SUMMARY: exists
    ("Inguinal Hernia Repair.txt", _note(
        "Surgery", "Inguinal Hernia Repair", "Left inguinal hernia repair with mesh.",
        "PREOPERATIVE DIAGNOSIS: Left inguinal hernia.OPERATION: Lichtenstein repair with mesh.\nSUMMARY: "
        "Uncomplicated repair of an indirect hernia; the patient went to recovery in stable condition.",
        "surgery, hernia, mesh"),
     "Uncomplicated repair of an indirect hernia; the patient went to recovery in stable condition."),
    ("Thyroid Lobectomy.txt", _note(
        "ENT - Otolaryngology", "Thyroid Lobectomy", "Right thyroid lobectomy.",
        "PREOPERATIVE DIAGNOSIS: Right thyroid nodule.PROCEDURE: Right thyroid lobectomy.ANESTHESIA: General.\n"
        "The recurrent laryngeal nerve was identified and preserved. The patient tolerated the procedure well.",
        "ent - otolaryngology, thyroid, lobectomy"),
     None),  # no marker -> skipped
]


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder) / FOLDER
    d.mkdir(parents=True, exist_ok=True)
    for name, text, _ in NOTES:
        (d / name).write_text(text, encoding="utf-8")
    expected, dropped = [], 0
    for name, text, gold in sorted(NOTES, key=lambda n: n[0]):
        if gold is None:
            dropped += 1
            continue
        pre = text.strip()
        for m in ["PLAN:", "SUMMARY:", "FINDINGS:"]:
            if m in pre:
                pre = pre.split(m)[0].strip()
        expected.append({"file": name, "gold": gold,
                         "input_must_contain": [pre.splitlines()[-1][:40], "Medical Specialty:"],
                         "input_must_not_contain": [gold, "Keywords:", "PLAN:", "SUMMARY:", "FINDINGS:"]})
    return {"splits": {"test": expected}, "dropped": {"test": dropped}}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        exp = write(pathlib.Path(tmp))
        d = pathlib.Path(tmp) / FOLDER
        got = []
        for p in sorted(d.iterdir(), key=lambda p: p.name):
            assert p.suffix == ".txt"
            text = p.read_text(encoding="utf-8").strip()
            up = text.upper()
            refs = []
            try:
                for m in ["PLAN:", "SUMMARY:", "FINDINGS:"]:
                    refs.append(text.split(m)[1].split("\n", 1)[0].strip() if m in up else None)
            except IndexError:
                continue
            ref = refs[0] or refs[1] or refs[2]
            if not ref:
                continue
            inp = text
            for m in ["PLAN:", "SUMMARY:", "FINDINGS:"]:
                if m in inp:
                    inp = inp.split(m)[0].strip()
            got.append((p.name, inp, ref))
        inst = exp["splits"]["test"]
        assert len(got) == len(inst) == 3 and exp["dropped"]["test"] == 2
        for (name, inp, ref), e in zip(got, inst):
            assert name == e["file"] and ref == e["gold"], (name, ref)
            assert all(s in inp for s in e["input_must_contain"]), name
            assert not any(s in inp for s in e["input_must_not_contain"]), name
    print("mtsamples_procedures fixture OK")
