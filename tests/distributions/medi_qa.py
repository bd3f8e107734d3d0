"""As-distributed fixture for MedHELM `medi_qa` (MEDIQA 2019 Task 3 QA, GitHub abachaa/MEDIQA2019)."""
import pathlib
import xml.etree.ElementTree as ET

SHAPE = """\
Where: HELM calls load_dataset("bigbio/mediqa_qa", revision 9288641f..., trust_remote_code) (facts: medi_qa.source);
that hub repo is only a loading script which downloads github.com/abachaa/MEDIQA2019 archive master.zip and parses
MEDIQA2019-master/MEDIQA_Task3_QA/*.xml (bigbio mediqa_qa.py _split_generators; the stored copy read may differ
from the pinned revision). So the files HELM reads are the GitHub ones; this fixture writes the GitHub repo root:
  MEDIQA_Task3_QA/MEDIQA2019-Task3-QA-TrainingSet1-LiveQAMed.xml   (hub split train_live_qa_med)
  MEDIQA_Task3_QA/MEDIQA2019-Task3-QA-TrainingSet2-Alexa.xml       (hub split train_alexa)
  MEDIQA_Task3_QA/MEDIQA2019-Task3-QA-ValidationSet.xml            (hub split validation)
  MEDIQA_Task3_QA/MEDIQA2019-Task3-QA-TestSet-wLabels.xml          (hub split test; the only one HELM uses)
(the repo also has -TestSet.xml without labels and -V2 training files, not used by the loader; not written).
Format: UTF-8 XML with declaration, tab indentation; root element named after the file (<MEDIQA2019-Task3-QA-TestSet>,
<MEDIQA2019-Task3-QA-ValidationSet> seen in the real files; the two training root names are assumed by analogy);
children <Question QID="1"> with <QuestionText> and <AnswerList> of <Answer AID="1_Answer1" SystemRank="1"
ReferenceRank="5" ReferenceScore="2"> holding <AnswerURL> and <AnswerText>. Apostrophes/quotes in text are written as
&apos; / &quot; like the real file; AIDs may skip numbers (1_Answer5 absent in the real test file).
Hub features (source schema): QUESTION{QID str, QuestionText str, AnswerList[{Answer{AID str, SystemRank int32,
ReferenceRank int32, ReferenceScore int32, AnswerURL str, AnswerText str}}]}.
HELM (medi_qa_scenario.process_csv): test split only; input = QuestionText; gold = AnswerText of the FIRST answer whose
ReferenceRank == 1 (usually not the first answer in the list: answers are in SystemRank order); instance id = QID.
No row is dropped; a question without a rank-1 answer would get gold "" (not present in the fixture; not seen).
"""

ROOTS = {
    "MEDIQA2019-Task3-QA-TrainingSet1-LiveQAMed.xml": "MEDIQA2019-Task3-QA-TrainingSet1-LiveQAMed",
    "MEDIQA2019-Task3-QA-TrainingSet2-Alexa.xml": "MEDIQA2019-Task3-QA-TrainingSet2-Alexa",
    "MEDIQA2019-Task3-QA-ValidationSet.xml": "MEDIQA2019-Task3-QA-ValidationSet",
    "MEDIQA2019-Task3-QA-TestSet-wLabels.xml": "MEDIQA2019-Task3-QA-TestSet",
}


def _esc(s: str) -> str:
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("'", "&apos;").replace('"', "&quot;"))


def _question(qid, text, answers):
    """answers: list of (aid, system_rank, reference_rank, reference_score, url, text) in SystemRank order."""
    out = [f'\t<Question QID="{qid}">', f"\t\t<QuestionText>{_esc(text)}</QuestionText>", "\t\t<AnswerList>"]
    for aid, sr, rr, rs, url, atext in answers:
        out += [f'\t\t\t<Answer AID="{aid}" SystemRank="{sr}" ReferenceRank="{rr}" ReferenceScore="{rs}">',
                f"\t\t\t\t<AnswerURL>{_esc(url)}</AnswerURL>", f"\t\t\t\t<AnswerText>{_esc(atext)}</AnswerText>",
                "\t\t\t</Answer>"]
    out += ["\t\t</AnswerList>", "\t</Question>"]
    return out


TEST = [
    ("1", "gout diet hi, what foods should i avoid if i have gout? my doctor said purines but i don't know what that "
     "means",
     [("1_Answer1", 1, 3, 2, "https://medlineplus.gov/gout.html",
       "Gout: Gout is a common, painful form of arthritis."),
      ("1_Answer2", 2, 1, 4, "https://www.niams.nih.gov/health-topics/gout",
       "Gout (Diet): Limit red meat, organ meats, shellfish and beer; these are high in \"purines\"."),
      ("1_Answer4", 3, 2, 3, "https://rarediseases.info.nih.gov/diseases/gout",
       "Gout (Treatment): People with gout can lower uric acid with medicines such as allopurinol.")]),
    ("2", "shingles vaccine. Can I get the shingles shot if I already had chickenpox as a kid?",
     [("2_Answer1", 1, 1, 4, "https://www.cdc.gov/shingles/vaccination.html",
       "Shingles Vaccination: Adults 50 years and older should get two doses of the recombinant zoster vaccine, "
       "whether or not they remember having chickenpox."),
      ("2_Answer2", 2, 2, 1, "https://medlineplus.gov/chickenpox.html",
       "Chickenpox: Chickenpox is an infection caused by the varicella-zoster virus.")]),
    ("3", "metformin and kidneys is it true metformin damages the kidneys? i’m worried",
     [("3_Answer1", 1, 2, 2, "https://medlineplus.gov/druginfo/meds/a696005.html",
       "Metformin: Metformin is used to treat type 2 diabetes."),
      ("3_Answer2", 2, 3, 1, "https://www.niddk.nih.gov/health-information/kidney-disease",
       "Kidney Disease: Your kidneys filter extra water and wastes out of your blood."),
      ("3_Answer3", 3, 1, 3, "https://www.fda.gov/drugs/drug-safety",
       "Metformin (Warnings): Metformin does not damage the kidneys, but it is not used when kidney function is "
       "severely reduced because the drug can build up.")]),
]
OTHER = {
    "MEDIQA2019-Task3-QA-TrainingSet1-LiveQAMed.xml": [
        ("11", "cold sores. how do I get rid of cold sores fast?",
         [("11_Answer1", 1, 1, 3, "https://medlineplus.gov/coldsores.html",
           "Cold Sores: Cold sores usually heal in 7 to 10 days without treatment.")])],
    "MEDIQA2019-Task3-QA-TrainingSet2-Alexa.xml": [
        ("21", "what is a normal blood pressure",
         [("21_Answer1", 1, 1, 4, "https://www.nhlbi.nih.gov/health/high-blood-pressure",
           "High Blood Pressure: A normal reading is below 120/80 mm Hg.")])],
    "MEDIQA2019-Task3-QA-ValidationSet.xml": [
        ("2", "about uveitis. IS THE UVEITIS, AN AUTOIMMUNE DISEASE?",
         [("2_Answer1", 1, 2, 4, "https://nei.nih.gov/health/uveitis", "Uveitis: Uveitis is eye inflammation."),
          ("2_Answer2", 2, 1, 3, "https://medlineplus.gov/autoimmunediseases.html",
           "Autoimmune Diseases: Some forms of uveitis are linked to autoimmune disease.")])],
}


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder) / "MEDIQA_Task3_QA"
    d.mkdir(parents=True, exist_ok=True)
    content = dict(OTHER)
    content["MEDIQA2019-Task3-QA-TestSet-wLabels.xml"] = TEST
    for fname, qs in content.items():
        lines = ['<?xml version="1.0" encoding="UTF-8"?>', f"<{ROOTS[fname]}>"]
        for q in qs:
            lines += _question(*q)
        lines.append(f"</{ROOTS[fname]}>")
        (d / fname).write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = []
    for qid, qtext, answers in TEST:
        gold = next(a[5] for a in answers if a[2] == 1)
        wrong = [a[5] for a in answers if a[2] != 1]
        expected.append({"id": qid, "gold": gold, "input_must_contain": [qtext],
                         "input_must_not_contain": [gold] + wrong})
    return {"splits": {"test": expected}, "dropped": {"test": 0}}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        exp = write(pathlib.Path(tmp))
        d = pathlib.Path(tmp) / "MEDIQA_Task3_QA"
        assert len(list(d.iterdir())) == 4
        root = ET.parse(d / "MEDIQA2019-Task3-QA-TestSet-wLabels.xml").getroot()
        assert root.tag == "MEDIQA2019-Task3-QA-TestSet"
        got = []
        for q in root.iterfind("Question"):
            best = ""
            for a in q.find("AnswerList").findall("Answer"):
                int(a.attrib["SystemRank"]), int(a.attrib["ReferenceScore"])
                if int(a.attrib["ReferenceRank"]) == 1:
                    best = a.find("AnswerText").text
                    break
            got.append((q.attrib["QID"], q.find("QuestionText").text, best))
        inst = exp["splits"]["test"]
        assert len(got) == len(inst) == 3
        for (qid, qtext, gold), e in zip(got, inst):
            assert qid == e["id"] and gold == e["gold"] and all(s in qtext for s in e["input_must_contain"])
        raw = (d / "MEDIQA2019-Task3-QA-TestSet-wLabels.xml").read_text(encoding="utf-8")
        assert "&quot;purines&quot;" in raw and "don&apos;t" in raw and "\t\t\t<Answer AID" in raw
        for f in d.iterdir():
            ET.parse(f)
    print("medi_qa fixture OK")
