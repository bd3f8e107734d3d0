"""As-distributed fixture for MedHELM `med_qa` (MedQA USMLE 4-option, jind11/MedQA data_clean zip layout)."""
import json
import pathlib

SHAPE = """\
Where: HELM downloads the MedQA Google Drive zip (id 1ImYUSLk9JbgHXOemfvyiDiirluZHPeQw; upstream jind11/MedQA) and
reads data_clean/questions/US/4_options/phrases_no_exclude_{train,dev,test}.jsonl (facts: med_qa.source.path_in_zip;
HELM med_qa_scenario). Fixture = the unzipped root holding data_clean/... (only the three files HELM reads; the zip
also has 5-option US files, Mainland/Taiwan and textbooks, not written). The hub copy GBaker/MedQA-USMLE-4-options keeps
the same JSON-lines files at its repo root (train 10178 / test 1273 rows, no dev file) and is not what HELM reads.
Format (checked against a byte-identical real sample): JSON Lines, UTF-8 with raw non-ASCII (°F, not \\u escapes),
json.dumps default separators (", " / ": "), LF, newline after the last line. Key order: question str, answer str
(text of the correct option), options {A, B, C, D} str, meta_info str ("step1" or "step2&3"), answer_idx str
(letter), metamap_phrases list of str. Quirk: some option texts (and then `answer`) end with a stray newline and
double quote, e.g. "Benzodiazepine intoxication\\n\\"" (jind11/MedQA issue 5).
HELM: splits train (train file), valid (dev file), test (test file); asserts exactly 4 options; input = question;
references = options in A-D order with text.rstrip('"').rstrip(); correct where key == answer_idx; gold letter =
answer_idx. No rows dropped. (HELM's own test expects 12723 instances over the three files.)
"""

BASE = "data_clean/questions/US/4_options"


def _row(q, opts, idx, meta, phrases):
    return {"question": q, "answer": opts[idx], "options": opts, "meta_info": meta, "answer_idx": idx,
            "metamap_phrases": phrases}


SPLITS = {
    "train": [
        _row("A 23-year-old pregnant woman at 22 weeks gestation has burning on urination for 1 day. Her temperature "
             "is 97.7°F (36.5°C). Which of the following is the best treatment for this patient?",
             {"A": "Ampicillin", "B": "Ceftriaxone", "C": "Doxycycline", "D": "Nitrofurantoin"}, "D", "step2&3",
             ["23 year old pregnant woman", "weeks gestation", "burning", "urination", "best treatment"]),
        _row("A 3-month-old infant is brought in with poor feeding and a weak cry. Which toxin is most likely "
             "responsible?", {"A": "Botulinum toxin", "B": "Tetanospasmin", "C": "Cholera toxin",
                               "D": "Shiga toxin"}, "A", "step1", ["3 month old infant", "poor feeding", "toxin"]),
    ],
    "dev": [
        _row("A 45-year-old man has crushing chest pain. ECG shows ST elevations in II, III and aVF. Which artery is "
             "most likely occluded?", {"A": "Left anterior descending artery", "B": "Left circumflex artery",
                                        "C": "Right coronary artery", "D": "Left main coronary artery"}, "C",
             "step1", ["year old man", "crushing chest pain", "ST elevations", "artery"]),
    ],
    "test": [
        _row("A 32-year-old woman is found confused with slurred speech and respiratory rate 8/min after taking "
             "pills from her mother's cabinet. Which is the most likely diagnosis?",
             {"A": "Opioid overdose", "B": "Ethanol intoxication", "C": "Serotonin syndrome",
              "D": "Benzodiazepine intoxication\n\""}, "D", "step2&3",
             ["year old woman", "confused", "slurred speech", "most likely diagnosis"]),
        _row("A 60-year-old smoker has claudication of the left calf after 1 block. Which vessel is most likely "
             "stenotic?", {"A": "Femoropopliteal artery", "B": "Aortoiliac artery\n\"", "C": "Renal artery",
                            "D": "Subclavian artery"}, "A", "step2&3", ["60 year old smoker", "claudication"]),
        _row("Which of the following is the strongest risk factor for completed suicide?",
             {"A": "Previous suicide attempt", "B": "Female sex", "C": "Age\n\"", "D": "Married status"}, "A",
             "step2&3", ["strongest risk factor", "completed suicide"]),
    ],
}


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder) / BASE
    d.mkdir(parents=True, exist_ok=True)
    for split, rows in SPLITS.items():
        (d / f"phrases_no_exclude_{split}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = {}
    for split, helm in [("train", "train"), ("dev", "valid"), ("test", "test")]:
        out[helm] = [{"gold": r["answer_idx"], "gold_text": r["options"][r["answer_idx"]].rstrip('"').rstrip(),
                      "option_texts": [v.rstrip('"').rstrip() for v in r["options"].values()],
                      "input_must_contain": [r["question"]], "input_must_not_contain": ["metamap"]}
                     for r in SPLITS[split]]
    return {"splits": out, "dropped": {"train": 0, "valid": 0, "test": 0}}



def write_hub(folder: pathlib.Path) -> dict:
    """The hub copy GBaker/MedQA-USMLE-4-options: the same JSON-lines files at the repo root (train and test only)."""
    import shutil
    import tempfile

    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        expected = write(pathlib.Path(tmp))
        source = pathlib.Path(tmp) / "data_clean" / "questions" / "US" / "4_options"
        for split in ("train", "test"):
            shutil.copy(source / f"phrases_no_exclude_{split}.jsonl", folder / f"phrases_no_exclude_{split}.jsonl")
    return {"splits": {k: v for k, v in expected["splits"].items() if k != "valid"},
            "dropped": {k: v for k, v in expected.get("dropped", {}).items() if k != "valid"}}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        e = write(pathlib.Path(tmp))
        for split, helm in [("train", "train"), ("dev", "valid"), ("test", "test")]:
            raw = (pathlib.Path(tmp) / BASE / f"phrases_no_exclude_{split}.jsonl").read_bytes()
            assert raw.endswith(b"\n") and b"\\u00" not in raw
            rows = [json.loads(line) for line in raw.decode("utf-8").splitlines()]
            inst = e["splits"][helm]
            assert len(rows) == len(inst)
            for r, x in zip(rows, inst):
                assert list(r) == ["question", "answer", "options", "meta_info", "answer_idx", "metamap_phrases"]
                assert len(r["options"]) == 4 and r["answer"] == r["options"][r["answer_idx"]]
                assert r["answer_idx"] == x["gold"] and r["question"] == x["input_must_contain"][0]
                assert all(not t.endswith('"') for t in x["option_texts"])
        assert b'intoxication\\n\\""' in (pathlib.Path(tmp) / BASE / "phrases_no_exclude_test.jsonl").read_bytes()
    print("med_qa fixture OK")
