"""As-distributed fixture for MedHELM `med_mcqa` (MedMCQA original JSON-lines files from the Google Drive zip)."""
import json
import pathlib

SHAPE = """\
Where: HELM downloads a Google Drive zip (id 15VkJdq5eyWIkfb_aoD3oS8i4tScbHYky) and unzips it into <output>/data/,
then reads data/train.json and data/dev.json (facts: med_mcqa.source; HELM med_mcqa_scenario). The zip also has
test.json (not read by HELM). Fixture = that unzipped folder: train.json, dev.json, test.json.
The hub copy openlifescienceai/medmcqa (data/{train,validation,test}-*.parquet, 182822/4183/6150 rows; its old
loading script reads the same three files) is NOT what HELM reads: there `cop` is a 0-based ClassLabel [a,b,c,d]
(raw cop - 1) and the unlabeled test split has cop = -1.
Format: despite ".json", JSON Lines (one object per line, UTF-8). Keys (hub loader features): id str (hex uuid),
question str, opa, opb, opc, opd str, cop int 1-4 (1 = opa ... 4 = opd; ABSENT in test.json), choice_type
("single"/"multi"), exp str or null (explanation; may be missing), subject_name str, topic_name str (may be null).
Whether cop is stored as a JSON number (assumed) or string is UNVERIFIED; HELM compares it with ints 1-4, so a string
cop would leave every instance without a correct reference.
HELM: splits train (train.json) and valid (dev.json) - MedHELM's main split is valid (facts: all_helm_splits);
input = question; references = [opa, opb, opc, opd] in that order, correct where index == cop; gold letter = \
"ABCD"[cop-1].
No rows are skipped; multi-choice_type rows still have a single cop.
"""

TRAIN = [
    {"question": "Long-standing bladder outlet obstruction from an enlarged prostate causes which change in the "
                 "renal parenchyma", "exp": "Back pressure causes hydronephrosis with parenchymal loss.",
     "cop": 3, "opa": "Hyperplasia", "opb": "Hypertrophy", "opc": "Atrophy", "opd": "Dysplasia",
     "subject_name": "Anatomy", "topic_name": "Urinary tract", "id": "e9ad821a-c438-4965-9f77-760819dfa155",
     "choice_type": "single"},
    {"question": "All of the following are branches of the external carotid artery except:", "exp": None,
     "cop": 4, "opa": "Superior thyroid artery", "opb": "Lingual artery", "opc": "Facial artery",
     "opd": "Ophthalmic artery", "subject_name": "Anatomy", "topic_name": None,
     "id": "0f9a6a57-1e0b-4b8e-9a35-3c1b9a2f6f10", "choice_type": "multi"},
]
DEV = [
    {"question": "Which statement about myelinated axons is false:",
     "exp": "Conduction is faster in myelinated axons (saltatory conduction).", "cop": 1,
     "opa": "They conduct more slowly than unmyelinated axons",
     "opb": "Action potentials arise at the nodes of Ranvier",
     "opc": "Conduction is saltatory", "opd": "Myelin lowers membrane capacitance",
     "subject_name": "Physiology", "topic_name": "Nerve conduction", "id": "45258d3d-b974-44dd-a161-c3fccbdadd88",
     "choice_type": "multi"},
    {"question": "Drug of choice for absence seizures in a 6-year-old child is", "exp": "Ethosuximide is preferred.",
     "cop": 2, "opa": "Phenytoin", "opb": "Ethosuximide", "opc": "Carbamazepine", "opd": "Phenobarbitone",
     "subject_name": "Pharmacology", "topic_name": "Antiepileptics", "id": "b7c1d3e4-5f60-4a71-8b92-a3b4c5d6e7f8",
     "choice_type": "single"},
    {"question": "Koplik spots are seen in", "exp": "", "cop": 4, "opa": "Rubella", "opb": "Mumps",
     "opc": "Chickenpox", "opd": "Measles", "subject_name": "Pediatrics", "topic_name": "Exanthems",
     "id": "c8d2e4f5-6a71-4b82-9ca3-b4c5d6e7f809", "choice_type": "single"},
]
TEST = [  # no cop in the released test file
    {"question": "Most common site of carcinoid tumor in the gastrointestinal tract is", "exp": None,
     "opa": "Appendix", "opb": "Ileum", "opc": "Rectum", "opd": "Stomach", "subject_name": "Surgery",
     "topic_name": None, "id": "d9e3f5a6-7b82-4c93-adb4-c5d6e7f8091a", "choice_type": "single"},
]


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    for name, rows in [("train.json", TRAIN), ("dev.json", DEV), ("test.json", TEST)]:
        (d / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")

    def exp(rows):
        return [{"id": r["id"], "gold": "ABCD"[r["cop"] - 1], "gold_text": r["op" + "abcd"[r["cop"] - 1]],
                 "input_must_contain": [r["question"]], "input_must_not_contain": [r["exp"]] if r["exp"] else []}
                for r in rows]

    return {"splits": {"train": exp(TRAIN), "valid": exp(DEV)}, "dropped": {"train": 0, "valid": 0}}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        e = write(pathlib.Path(tmp))
        for fname, split in [("train.json", "train"), ("dev.json", "valid")]:
            rows = [json.loads(line) for line in (pathlib.Path(tmp) / fname).read_text(encoding="utf-8").splitlines()]
            inst = e["splits"][split]
            assert len(rows) == len(inst)
            for r, x in zip(rows, inst):
                opts = {1: "opa", 2: "opb", 3: "opc", 4: "opd"}
                correct = [i for i, k in opts.items() if i == r["cop"]]
                assert (len(correct) == 1 and "ABCD"[correct[0] - 1] == x["gold"]
                        and r["question"] in x["input_must_contain"])
        test = [json.loads(line) for line in (pathlib.Path(tmp) / "test.json").read_text(encoding="utf-8").splitlines()]
        assert all("cop" not in r for r in test)
    print("med_mcqa fixture OK")
