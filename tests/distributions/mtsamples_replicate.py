"""As-distributed fixture for MedHELM `mtsamples_replicate` (GitHub raulista1997/benchmarkdata,
mtsamples_processed/)."""
import pathlib

SHAPE = """\
Where: github.com/raulista1997/benchmarkdata at commit ebc104a4f96c5b7602242f301e081e9934a23344, folder
mtsamples_processed/ (facts: mtsamples_replicate.source; HELM mtsamples_replicate_scenario GIT_HASH/API_BASE_URL).
HELM lists the folder with the GitHub contents API (?ref=<hash>), keeps names ending ".txt", downloads each raw file
and processes them in API listing order (GitHub returns entries sorted by name; fixture names avoid case/prefix
ambiguity). Fixture = repo root with mtsamples_processed/*.txt.
Format: one plain-text UTF-8 note per file, named after the mtsamples.com sample title (spaces, '&', ' - N' allowed,
e.g. "Otitis Media - H&P.txt"). Layout seen in the repo: "Medical Specialty:<spec>\\nSample Name: <title>\\n
Description: <one line>\\n(Medical Transcription Sample Report)\\n<body>\\nKeywords: <comma list>,\\n"; section headings
are UPPERCASE with a colon and are often glued to the previous sentence ("...bilateral.PLAN: Patient ...").
HELM (extract_sections/remove_plan_section): text = file.read().strip(). Presence tests use text.upper(), extraction
uses the exact-case text: ref = first line after the first "PLAN:" (else "SUMMARY:", else "FINDINGS:"), stripped;
"ASSESSMENT AND PLAN:" counts as PLAN:. Input = text before the first exact "PLAN:" (stripped); if there is no exact
"PLAN:" the input is the WHOLE note, so a SUMMARY/FINDINGS reference stays inside the input (quirk).
Dropped: notes with no usable section (empty reference), notes where "PLAN:" is directly followed by a newline and no
SUMMARY/FINDINGS exists (empty plan line), and notes where any marker appears only in mixed case ("Plan:"): the
upper-case test passes but text.split("PLAN:")[1] raises IndexError, which HELM catches and skips the file.
Gold = the reference line (free text). Single split: test. Content here is synthetic (repo has no license).
"""

FOLDER = "mtsamples_processed"


def _note(spec, title, desc, body, keywords):
    return (f"Medical Specialty:{spec}\nSample Name: {title}\nDescription: {desc}\n(Medical Transcription Sample "
            f"Report)\n{body}\nKeywords: {keywords},\n")


NOTES = [  # (file name, text, expected gold or None if dropped)
    ("Asthma Follow-up - 1.txt", _note(
        "Pulmonology", "Asthma Follow-up - 1", "Follow-up of moderate persistent asthma.",
        "SUBJECTIVE: The patient reports nighttime cough twice a week.OBJECTIVE: Lungs with mild expiratory wheeze."
        "\nIMPRESSION: Moderate persistent asthma, not well controlled.PLAN: Start inhaled budesonide-formoterol two "
        "puffs twice daily. Recheck in 4 weeks.\nThe patient verbalized understanding.",
        "pulmonology, asthma, wheeze, inhaler"),
     "Start inhaled budesonide-formoterol two puffs twice daily. Recheck in 4 weeks."),
    ("Chest Pain - ER Visit.txt", _note(
        "Emergency Room Reports", "Chest Pain - ER Visit", "Atypical chest pain, troponin negative.",
        "HISTORY OF PRESENT ILLNESS: A 45-year-old man with 2 hours of burning chest pain.LABS: Troponin negative x2."
        "\nASSESSMENT AND PLAN: Likely gastroesophageal reflux. Trial of omeprazole 20 mg daily and outpatient stress "
        "test.", "emergency, chest pain, troponin, reflux"),
     "Likely gastroesophageal reflux. Trial of omeprazole 20 mg daily and outpatient stress test."),
    ("Dermatology Consult.txt", _note(
        "Dermatology", "Dermatology Consult", "Contact dermatitis of both hands.",
        "HISTORY: Itchy rash on both hands after starting a new job.EXAM: Erythematous scaly plaques.\nPlan: Avoid "
        "latex gloves and apply triamcinolone cream.", "dermatology, dermatitis, rash"),
     None),  # mixed-case "Plan:" -> IndexError in HELM -> skipped
    ("Discharge Summary - Pneumonia.txt", _note(
        "Discharge Summary", "Discharge Summary - Pneumonia", "Community acquired pneumonia.",
        "ADMISSION DIAGNOSIS: Pneumonia.\nHOSPITAL COURSE SUMMARY: Treated with IV ceftriaxone and azithromycin, "
        "switched to oral cefpodoxime on day 3.\nDISCHARGE CONDITION: Stable.", "discharge summary, pneumonia"),
     "Treated with IV ceftriaxone and azithromycin, switched to oral cefpodoxime on day 3."),
    ("Knee MRI.txt", _note(
        "Radiology", "Knee MRI", "MRI of the left knee.",
        "EXAM: MRI left knee without contrast.\nFINDINGS: Complex tear of the posterior horn of the medial meniscus. "
        "Small joint effusion.\nIMPRESSION: Medial meniscal tear.", "radiology, knee, mri, meniscus"),
     "Complex tear of the posterior horn of the medial meniscus. Small joint effusion."),
    ("Ortho Office Visit.txt", _note(
        "Orthopedic", "Ortho Office Visit", "Low back pain follow-up.",
        "SUBJECTIVE: Low back pain improved with therapy.\nIMPRESSION: Lumbar strain, improving.\nPLAN:\nContinue "
        "home exercise program.", "orthopedic, low back pain"),
     None),  # "PLAN:" then newline -> empty reference, no SUMMARY/FINDINGS -> skipped
    ("Physical Therapy Letter.txt", _note(
        "Letters", "Physical Therapy Letter", "Letter to referring physician.",
        "Dear Dr. Smith,\nThank you for referring Ms. Jones for physical therapy. She completed 8 sessions.\n"
        "Sincerely,", "letters, physical therapy"),
     None),  # no marker at all -> skipped
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
        # HELM keeps a SUMMARY:/FINDINGS: reference inside its input (it cuts only at PLAN:). clinreg departs
        # from that on purpose: the input ends where the reference's heading starts, so no gold is in a prompt.
        marker = next(m for m in ("PLAN:", "SUMMARY:", "FINDINGS:") if m in text)
        pre = text.split(marker)[0].strip()
        expected.append({"file": name, "gold": gold,
                         "input_must_contain": [pre.splitlines()[-1][:40], "Medical Specialty:"],
                         "input_must_not_contain": [gold, "Keywords:"]})
    return {"splits": {"test": expected}, "dropped": {"test": dropped}}

# No self-check here: the expectations above depart from HELM's literal behaviour where the comments say so,
# so a re-derivation of HELM's output would not match them. tests/instances/test_as_distributed.py checks them.
