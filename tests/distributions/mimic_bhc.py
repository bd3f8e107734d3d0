"""As-distributed fixture for MedHELM `mimic_bhc` (MIMIC-IV-Ext-BHC, PhysioNet-gated; JSON-lines file HELM reads)."""
import json
import pathlib

SHAPE = """\
Where: PhysioNet "MIMIC-IV-Ext-BHC: Labeled Clinical Notes Dataset for Hospital Course Summarization" (credentialed;
versions 1.0.0-1.2.0; 270,033 notes). PhysioNet ships it as a CSV, mimic-iv-bhc.csv, with columns note_id, input,
target, input_tokens, target_tokens (third-party data spec; not in the facts file). HELM does NOT read that CSV: its
data_path is a JSON-lines file (run entries: .../bhc-mimiciv/mimic_iv_bhc.json; facts: mimic_bhc.source.file), one
object per line with at least "input" and "target" (HELM mimic_bhc_scenario). Fixture writes that file,
mimic_iv_bhc.json, with the CSV's five fields per line (the extra keys are an assumption; HELM ignores them).
Content style: `input` is the discharge note with the BHC removed, flattened with section tags such as
"<SEX> M <SERVICE> SURGERY <ALLERGIES> No Known Allergies / Adverse Drug Reactions ..." (HELM docstring; other tag
names assumed), de-identified spans as "___"; `target` = the Brief Hospital Course text.
HELM: reads ALL lines (no train/validate/test split inside the file; everything becomes TEST); input = input;
gold = target; lines where input or target is empty/falsy are skipped (fixture line 3 has an empty target:
SYNTHETIC, not known to occur in the release).
"""

ROWS = [
    {"note_id": "10000032-DS-21",
     "input": "<SEX> F <SERVICE> MEDICINE <ALLERGIES> No Known Allergies / Adverse Drug Reactions <ATTENDING> ___ "
              "<CHIEF COMPLAINT> worsening abd distension and pain <MAJOR SURGICAL OR INVASIVE PROCEDURE> Paracentesis "
              "<HISTORY OF PRESENT ILLNESS> ___ with HCV cirrhosis c/b ascites presents with abdominal distension. "
              "<DISCHARGE INSTRUCTIONS> You were admitted for abdominal swelling.",
     "target": "Ms. ___ is a ___ with HCV cirrhosis complicated by ascites who presented with abdominal distension. "
               "A diagnostic paracentesis was negative for SBP and 3 L were removed."},
    {"note_id": "10000084-DS-17",
     "input": "<SEX> M <SERVICE> NEUROLOGY <ALLERGIES> Patient recorded as having No Known Allergies to Drugs "
              "<CHIEF COMPLAINT> visual hallucinations <HISTORY OF PRESENT ILLNESS> ___ year old man with "
              "parkinsonism presenting with confusion.",
     "target": "Mr. ___ was admitted for evaluation of visual hallucinations. MRI showed no acute process; symptoms "
               "were attributed to Lewy body dementia."},
    {"note_id": "10000117-DS-22",
     "input": "<SEX> F <SERVICE> ORTHOPAEDICS <ALLERGIES> Penicillins <CHIEF COMPLAINT> left hip pain",
     "target": ""},
    {"note_id": "10000560-DS-3",
     "input": "<SEX> F <SERVICE> SURGERY <ALLERGIES> No Known Allergies / Adverse Drug Reactions <CHIEF COMPLAINT> "
              "right upper quadrant pain <MAJOR SURGICAL OR INVASIVE PROCEDURE> Laparoscopic cholecystectomy",
     "target": "Ms. ___ underwent laparoscopic cholecystectomy for acute cholecystitis without complication and was "
               "discharged home on postoperative day 1."},
]


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    with open(d / "mimic_iv_bhc.json", "w", encoding="utf-8") as f:
        for r in ROWS:
            rec = {"note_id": r["note_id"], "input": r["input"], "target": r["target"],
                   "input_tokens": len(r["input"].split()), "target_tokens": len(r["target"].split())}
            f.write(json.dumps(rec) + "\n")
    exp = [{"note_id": r["note_id"], "gold": r["target"], "input_must_contain": [r["input"]],
            "input_must_not_contain": [r["target"]]} for r in ROWS if r["input"] and r["target"]]
    return {"params": {"data_path": "mimic_iv_bhc.json"}, "splits": {"test": exp}, "dropped": {"test": 1}}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        e = write(pathlib.Path(tmp))
        lines = (pathlib.Path(tmp) / "mimic_iv_bhc.json").read_text(encoding="utf-8").splitlines()
        data = [json.loads(line) for line in lines]
        got = [(x["input"], x["target"]) for x in data if x["input"] and x["target"]]
        inst = e["splits"]["test"]
        assert len(data) == 4 and len(got) == len(inst) == 3
        for (i, t), x in zip(got, inst):
            assert t == x["gold"] and i == x["input_must_contain"][0]
        import pyarrow.json as pajson
        t = pajson.read_json(pathlib.Path(tmp) / "mimic_iv_bhc.json")
        assert t.num_rows == 4 and {"input", "target"} <= set(t.column_names)
    print("mimic_bhc fixture OK")
