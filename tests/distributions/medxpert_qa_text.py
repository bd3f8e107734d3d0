"""As-distributed fixture for `medxpert_qa_text` (hub dataset TsinghuaC3I/MedXpertQA, config Text).

SHAPE: the hub card at revision f4e6fe7e (read as a stored page) gives the Text config two JSON-lines files,
Text/dev.jsonl (split dev) and Text/test.jsonl (split test); the MM config has MM/dev.jsonl and MM/test.jsonl, and
images.zip serves MM only. medhelm 0.8.0's scenario (helm/benchmark/scenarios/medxpert_qa_text_scenario.py) loads
config Text and reads the test split only. One JSON object per line, with the fields the scenario reads: id
("Text-<n>"), question (the stem, ending with the options formatted as "Answer Choices: (A) ... (J) ...", per the
card), options (an object A..J of option texts; ten for Text), label (the gold letter), medical_task, body_system
and question_type. HELM's instance: the question unchanged as input, the ten options as references in key order,
the one whose key equals label marked correct; no row is skipped. The rows below are written by hand, none copied
from the real file.
"""
import json
import pathlib

FILLED_IN = True
LETTERS = "ABCDEFGHIJ"


def _row(n: int, stem: str, options: list[str], label: str, task: str, system: str, kind: str) -> dict:
    choices = " ".join(f"({k}) {v}" for k, v in zip(LETTERS, options))
    return {"id": f"Text-{n}", "question": f"{stem}\nAnswer Choices: {choices}",
            "options": dict(zip(LETTERS, options)), "label": label,
            "medical_task": task, "body_system": system, "question_type": kind}


TEST = [
    _row(0, "A 61-year-old man has progressive dysphagia to solids and a 9 kg weight loss over three months. "
            "Endoscopy shows an ulcerated mass at 35 cm. What is the most appropriate next step in staging?",
         ["Barium swallow", "Endoscopic ultrasound with CT of the chest and abdomen", "Serum CEA", "Upper GI series",
          "Bronchoscopy alone", "Laparoscopy first", "Bone scan", "Colonoscopy", "MRI of the brain", "No staging"],
         "B", "Diagnosis", "Digestive", "Reasoning"),
    _row(1, "Which enzyme deficiency causes accumulation of homogentisic acid, darkening urine on standing?",
         ["Phenylalanine hydroxylase", "Tyrosinase", "Fumarylacetoacetate hydrolase", "Cystathionine synthase",
          "Branched-chain ketoacid dehydrogenase", "Homogentisate 1,2-dioxygenase", "Ornithine transcarbamylase",
          "Galactokinase", "Hexosaminidase A", "Glucocerebrosidase"],
         "F", "Basic Science", "Other / NA", "Understanding"),
    _row(2, "A 7-year-old has a limp and painless hip stiffness for two weeks; radiographs show a flattened, "
            "sclerotic femoral head. Which finding best predicts the outcome?",
         ["Serum ESR", "Age at onset", "Leg length", "Family history", "Body weight", "Sex",
          "Duration of limp", "Side affected", "Pain score", "Height"],
         "B", "Treatment", "Skeletal", "Reasoning"),
]
DEV = [_row(900, "Which vitamin deficiency causes scurvy?",
            ["A", "B1", "B12", "C", "D", "E", "K", "Folate", "Niacin", "Biotin"], "D", "Basic Science", "Other / NA",
            "Understanding")]


def write(folder: pathlib.Path) -> dict:
    text = folder / "Text"
    text.mkdir(parents=True, exist_ok=True)
    for name, rows in (("test.jsonl", TEST), ("dev.jsonl", DEV)):
        (text / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    expected = [{"gold": r["label"], "input_must_contain": [r["question"].split("\n")[0]],
                 "input_must_not_contain": [d["question"].split("\n")[0] for d in DEV]} for r in TEST]
    return {"splits": {"test": expected}, "dropped": {"test": 0}}
