"""As-distributed fixture for MedHELM `medbullets` (GitHub HanjieChen/ChallengeClinicalQA, medbullets/*.csv)."""
import csv
import io
import pathlib

SHAPE = """\
Where: github.com/HanjieChen/ChallengeClinicalQA, branch main (not pinned), file medbullets/medbullets_op5.csv (308
questions, 5 options); HELM downloads only _op5 (the _op4 entry is commented out) (facts: medbullets.source; HELM
medbullets_scenario). The repo also has medbullets_op4.csv (no `ope` column) and .json copies. Fixture = repo root
with medbullets/medbullets_op5.csv and medbullets/medbullets_op4.csv.
Format (seen in the real file): UTF-8, comma, LF line ends, minimal quoting (question/explanation quoted, inner quotes
doubled), no BOM, NO newline after the last record. Header: link,question,opa,opb,opc,opd,ope,answer_idx,answer,
explanation. Every data record carries 5 extra empty fields (",,,,," at the end of each record, i.e. 15 fields vs a
10-name header; csv.DictReader files them under the None key). link = medbullets URL or bit.ly short link;
question holds curly quotes, degree signs and embedded blank lines (lab tables); answer_idx = letter A-E; answer =
text of that option; explanation = long multi-paragraph text ("Incorrect Answers:", "Bullet Summary:").
HELM: csv.DictReader; a row is skipped if question, answer_idx or opa is empty (the real file seems to have none;
fixture row 4 has an empty answer_idx and is SYNTHETIC); input = question; references = options A-E in order
(missing option -> "Not applicable"); correct = answer_idx; gold letter = answer_idx. Single split: test.
"""

HEADER5 = ["link", "question", "opa", "opb", "opc", "opd", "ope", "answer_idx", "answer", "explanation"]
ROWS = [
    ["https://step2.medbullets.com/testview?qid=100001",
     "A 58-year-old man presents with sudden painful vision loss in his right eye and a headache. His temperature "
     "is 98.6°F (37°C). The right pupil is mid-dilated and the globe feels firm. Which of the following is the most "
     "appropriate long-term prophylaxis for this patient’s condition?",
     "Acetazolamide", "Amitriptyline", "Clopidogrel", "Epinephrine", "Verapamil", "A", "Acetazolamide",
     "This patient has acute angle-closure glaucoma.\n\nIncorrect Answers:\nAnswer 2: Amitriptyline is used for "
     "migraine prophylaxis.\n\nBullet Summary:\nCarbonic anhydrase inhibitors lower intraocular pressure."],
    ["https://bit.ly/3xAmPl1",
     "A 24-year-old woman has a headache for 1 month that is worse when lying down. A lumbar puncture shows:\n\n"
     "Cerebrospinal fluid:\nOpening pressure: 220 mmH2O\nIndia ink stain: Positive\n\nWhich of the following "
     "treatments most directly addresses the underlying cause?",
     "Acyclovir", "Amphotericin B and 5-flucytosine", "Dexamethasone", "Fluconazole", "Vancomycin and ceftriaxone",
     "B", "Amphotericin B and 5-flucytosine",
     "Cryptococcal meningitis is treated with \"induction\" therapy.\n\nBullet Summary:\nInduction uses amphotericin "
     "B."],
    ["https://step2.medbullets.com/testview?qid=100003",
     "A 70-year-old woman with atrial fibrillation reports yellow-tinted vision and nausea. Her pulse is 42/min. "
     "Which medication is the most likely cause?",
     "Amiodarone", "Diltiazem", "Procainamide", "Propranolol", "Digoxin", "E", "Digoxin",
     "Digoxin toxicity causes visual changes and bradycardia.\n\nBullet Summary:\nThink digoxin with xanthopsia."],
    ["https://step2.medbullets.com/testview?qid=100004",
     "A 30-year-old man asks about travel vaccines. Which vaccine is live attenuated?",
     "Yellow fever", "Hepatitis A", "Rabies", "Tetanus", "Typhoid polysaccharide", "", "",
     "SYNTHETIC row without answer_idx (skipped by HELM)."],
]


def _csv(rows, header, n_extra):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(list(r) + [""] * n_extra)
    return buf.getvalue().rstrip("\n")  # the real file has no newline after the last record


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder) / "medbullets"
    d.mkdir(parents=True, exist_ok=True)
    (d / "medbullets_op5.csv").write_text(_csv(ROWS, HEADER5, 5), encoding="utf-8", newline="")
    rows4 = []
    for r in ROWS[:2]:
        rows4.append(r[:6] + r[7:])  # op4 variant: no `ope` column (same answers happen to be A/B)
    (d / "medbullets_op4.csv").write_text(_csv(rows4, HEADER5[:6] + HEADER5[7:], 5), encoding="utf-8", newline="")
    exp = [{"gold": r[7], "gold_text": r[2 + "ABCDE".index(r[7])], "input_must_contain": [r[1][:80]],
            "input_must_not_contain": ["Bullet Summary"]} for r in ROWS if r[1] and r[7] and r[2]]
    return {"splits": {"test": exp}, "dropped": {"test": len(ROWS) - len(exp)}}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        e = write(pathlib.Path(tmp))
        raw = (pathlib.Path(tmp) / "medbullets" / "medbullets_op5.csv").read_bytes()
        assert not raw.endswith(b"\n") and raw.count(b",,,,,\n") == len(ROWS) - 1
        with open(pathlib.Path(tmp) / "medbullets" / "medbullets_op5.csv", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        assert all(len(r[None]) == 5 for r in rows)
        got = [(r["question"], r["answer_idx"]) for r in rows if r["question"] and r["answer_idx"] and r["opa"]]
        inst = e["splits"]["test"]
        assert len(got) == len(inst) == 3 and e["dropped"]["test"] == 1
        for (q, a), x in zip(got, inst):
            assert a == x["gold"] and q.startswith(x["input_must_contain"][0])
        with open(pathlib.Path(tmp) / "medbullets" / "medbullets_op4.csv", encoding="utf-8") as f:
            assert "ope" not in csv.DictReader(f).fieldnames
    print("medbullets fixture OK")
