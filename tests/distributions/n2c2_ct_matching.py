"""Synthetic as-distributed fixture for n2c2_ct_matching (n2c2 2018 Track 1, cohort selection)."""
import pathlib
import zipfile

SHAPE = """\
Distribution: gated (n2c2 / Harvard DBMI portal; facts n2c2_ct_matching.source, unverified provider). The
release is two archives, train.zip (202 records) and n2c2-t1_gold_standard_test_data.zip (86 records) (bigbio
n2c2_2018_track1.py loader docstring). HELM does NOT read the zips: it reads an unpacked folder
<data_path>/test/*.xml (data_path=/share/pi/nigam/data/medhelm/n2c2_ct_matching in run_entries_medhelm_gated.conf);
<data_path>/train/ is only created, never read (n2c2_ct_matching_scenario.py get_instances loops train/test but
only handles "test"). write() produces that unpacked layout: train/<id>.xml and test/<id>.xml.
File format: one UTF-8 XML document per patient, root <PatientMatching> with exactly two children
<TEXT> (CDATA, all notes of the patient concatenated, notes separated by a line of 100 '*') and <TAGS> holding one
empty element per criterion, e.g. <ABDOMINAL met="met"/> / <ABDOMINAL met="not met"/>, 13 criteria (bigbio loader
reads root.getchildren() -> text, tags and child.get("met"); labels met / not met). Each note starts with
"Record date: YYYY-MM-DD" (HELM regex r"Record date: (\\d{4}-\\d{2}-\\d{2})"; date format from HELM code).
HELM parsing (XMLDataLoader): files listed with os.listdir, only names ending ".xml", sorted as strings;
TEXT: "\\n\\n\\n" -> "\\n" (single replace pass), split on '*'*100, strip, drop empty parts -> list of notes;
TAGS: {tag: 1 if met == "met" else 0} (anything but exactly "met" counts as not met).
Instance (one per patient, split "test", run parameter subject in {ABDOMINAL, ADVANCED-CAD, CREATININE} in MedHELM
runs): prompt = task text + criterion name + LONG_DEFINITIONS[subject] + notes rendered "## Note #i\\nDate: <date or
''>\\n<note>" joined by "\\n" + '*'*50 + "\\n\\n", + "Assume that the current date is: <last date seen>".
References: "yes"/"no" in that order -> gold letter A (met) / B (not met) (facts mapping met->A).
Dropped: nothing is filtered; non-.xml files in test/ are ignored; train/ is ignored entirely. A patient whose
TAGS lack the subject would crash HELM (KeyError) - not exercised here.
Unverified: exact whitespace around CDATA, XML declaration text and the file naming (<number>.xml) of the real
release; member paths inside the zips (write_archives() puts the XML files at the zip root - a guess).
"""

CRITERIA = ["ABDOMINAL", "ADVANCED-CAD", "ALCOHOL-ABUSE", "ASP-FOR-MI", "CREATININE", "DIETSUPP-2MOS",
            "DRUG-ABUSE", "ENGLISH", "HBA1C", "KETO-1YR", "MAJOR-DIABETES", "MAKES-DECISIONS", "MI-6MOS"]
STAR100 = "*" * 100

# (patient id, notes [(date or None, body)], {criterion: met?})
TEST = [
    ("101", [("2091-03-02", "Mr. Pell is a 61 yo man seen for follow-up of diabetes. S/p appendectomy 2070.\n\n\n"
              "Creatinine 1.9 (high)."),
             ("2092-01-15", "Angina at rest, on metoprolol and isosorbide. Prior MI 2089.")],
     {"ABDOMINAL": True, "ADVANCED-CAD": True, "CREATININE": True}),
    ("102", [("2080-07-09", "Ms. Quill, 54, new patient. No surgical history. Creatinine 0.8.")],
     {"ABDOMINAL": False, "ADVANCED-CAD": False, "CREATININE": False}),
    # second note has no "Record date:" line -> empty Date in the prompt; current date = first note's date
    ("103", [("2075-11-20", "Hx small bowel obstruction, s/p resection 2071. Single CAD drug."),
             (None, "Telephone note: patient doing well, labs pending.")],
     {"ABDOMINAL": True, "ADVANCED-CAD": False, "CREATININE": False}),
]
TRAIN = [
    ("001", [("2066-02-02", "Training record, ignored by HELM (zero-shot).")],
     {"ABDOMINAL": False, "ADVANCED-CAD": True, "CREATININE": True}),
]


def _xml(notes, labels):
    parts = []
    for date, body in notes:
        head = f"Record date: {date}\n" if date else ""
        parts.append(f"\n\n{head}{body}\n\n")
    text = STAR100.join(parts)
    tags = "\n".join(
        f'<{c} met="{"met" if labels.get(c, False) else "not met"}" />' for c in CRITERIA)
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n<PatientMatching>\n'
            f"<TEXT><![CDATA[{text}]]></TEXT>\n<TAGS>\n{tags}\n</TAGS>\n</PatientMatching>\n")


def _expected(subject):
    out = []
    for pid, notes, labels in TEST:  # already in sorted file-name order
        first_body_line = notes[0][1].split("\n")[0]
        must = [f'"{subject}"', first_body_line[:40], "## Note #1", f"Below is a set of {len(notes)} clinical notes"]
        dates = [d for d, _ in notes if d]
        must.append(f"Assume that the current date is: {dates[-1]}")
        if len(notes) > 1:
            must.append("## Note #2")
        if notes[-1][0] is None:
            must.append(f"## Note #{len(notes)}\nDate: \n")
        out.append({"id": pid, "gold": "A" if labels[subject] else "B",
                    "input_must_contain": must,
                    "input_must_not_contain": [STAR100, 'met="', "<TAGS>", "Training record"]})
    return out


def write(folder: pathlib.Path) -> dict:
    folder = pathlib.Path(folder)
    for sub, rows in (("test", TEST), ("train", TRAIN)):
        d = folder / sub
        d.mkdir(parents=True, exist_ok=True)
        for pid, notes, labels in rows:
            (d / f"{pid}.xml").write_text(_xml(notes, labels), encoding="utf-8")
    # a stray non-XML file: HELM lists the folder and keeps only *.xml
    (folder / "test" / "README.txt").write_text("not a record\n", encoding="utf-8")
    configs = {s: {"test": _expected(s)} for s in ("ABDOMINAL", "ADVANCED-CAD", "CREATININE")}
    return {"splits": configs["ABDOMINAL"], "configs": configs, "run_parameter": "subject",
            "dropped": {"test": 0}, "ignored_files": ["test/README.txt", "train/001.xml"]}


def write_archives(folder: pathlib.Path) -> dict:
    """The zips as released (names from the bigbio loader; member layout inside them is a guess)."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in (("n2c2-t1_gold_standard_test_data.zip", TEST), ("train.zip", TRAIN)):
        with zipfile.ZipFile(folder / name, "w", zipfile.ZIP_DEFLATED) as zf:
            for pid, notes, labels in rows:
                zf.writestr(f"{pid}.xml", _xml(notes, labels))
    return {"splits": {"test": _expected("ABDOMINAL")}, "dropped": {"test": 0}}


if __name__ == "__main__":
    import re
    import tempfile
    import xml.etree.ElementTree as ET

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        exp = write(root)
        files = sorted(p.name for p in (root / "test").iterdir() if p.name.endswith(".xml"))
        assert files == ["101.xml", "102.xml", "103.xml"], files
        for subject, e in exp["configs"].items():
            got = []
            for f in files:
                r = ET.parse(root / "test" / f).getroot()
                assert [c.tag for c in r] == ["TEXT", "TAGS"]
                notes = [x.strip() for x in r.find("TEXT").text.replace("\n\n\n", "\n").split(STAR100) if x.strip()]
                met = {t.tag: t.get("met") for t in r.find("TAGS")}
                assert len(met) == 13 and set(met.values()) <= {"met", "not met"}
                got.append("A" if met[subject] == "met" else "B")
                assert all(n for n in notes)
            assert got == [x["gold"] for x in e["test"]], (subject, got)
        notes3 = ET.parse(root / "test" / "103.xml").getroot().find("TEXT").text.split(STAR100)
        assert re.search(r"Record date: \d{4}-\d{2}-\d{2}", notes3[0]) and "Record date" not in notes3[1]
        write_archives(root / "zips")
        with zipfile.ZipFile(root / "zips" / "n2c2-t1_gold_standard_test_data.zip") as zf:
            assert sorted(zf.namelist()) == files
    print("n2c2_ct_matching fixture OK")
