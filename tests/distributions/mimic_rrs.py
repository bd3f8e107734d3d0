"""As-distributed fixture for MedHELM `mimic_rrs` (MIMIC-RRS, MIMIC-III radiology report summarization;
PhysioNet-gated)."""
import pathlib

SHAPE = """\
Where: a local folder of line-aligned token files built from MIMIC-III radiology reports (Chen et al. 2023, MIMIC-III
part; facts: mimic_rrs.source.files). HELM data_path is that folder (run entries: .../rrs-mimiciii/all, i.e. the
"all modalities" folder; per modality-anatomy sibling folders are assumed, not verified) and HELM reads only
test.findings.tok and test.impression.tok from it (HELM mimic_rrs_scenario: splits {"test": TEST}; "train" and
"validate" are commented out, which tells the other file names). Fixture writes the flat folder with all six files:
{train,validate,test}.{findings,impression}.tok.
Format: plain text, one report per line, line i of *.findings.tok pairs with line i of *.impression.tok (HELM asserts
equal line counts). HELM opens with the platform default encoding and strips each line. Text style (".tok" =
tokenized: lower-cased, spaces around punctuation) is UNVERIFIED; the fixture uses that style.
HELM: input = findings line; gold = impression line; pairs where either stripped line is empty are skipped
(fixture: test line 3 has an empty impression -> dropped). Single split used: test.
"""

TEST = [
    ("the lungs are clear . there is no pleural effusion or pneumothorax . heart size is normal .",
     "no acute cardiopulmonary process ."),
    ("  there is a 6 mm hypodense lesion in the right hepatic lobe , too small to characterize .  ",
     "subcentimeter hepatic hypodensity , too small to characterize ."),
    ("status post right frontal craniotomy . no new hemorrhage .", ""),  # empty impression -> skipped
    ("mild degenerative disc disease at l4 - l5 without canal stenosis .",
     "mild l4 - l5 degenerative change ."),
]
TRAIN = [("no intracranial hemorrhage or mass effect .", "no acute intracranial abnormality .")]
VALIDATE = [("small left pleural effusion with adjacent atelectasis .", "small left effusion .")]


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    for split, rows in [("train", TRAIN), ("validate", VALIDATE), ("test", TEST)]:
        (d / f"{split}.findings.tok").write_text("".join(f + "\n" for f, _ in rows), encoding="utf-8")
        (d / f"{split}.impression.tok").write_text("".join(i + "\n" for _, i in rows), encoding="utf-8")
    exp = [{"gold": i.strip(), "input_must_contain": [f.strip()], "input_must_not_contain": [i.strip()]}
           for f, i in TEST if f.strip() and i.strip()]
    return {"splits": {"test": exp}, "dropped": {"test": 1}}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        exp = write(pathlib.Path(tmp))
        d = pathlib.Path(tmp)
        f = [x.strip() for x in (d / "test.findings.tok").read_text(encoding="utf-8").splitlines()]
        i = [x.strip() for x in (d / "test.impression.tok").read_text(encoding="utf-8").splitlines()]
        assert len(f) == len(i) == 4
        got = [(a, b) for a, b in zip(f, i) if a and b]
        inst = exp["splits"]["test"]
        assert len(got) == len(inst) == 3
        for (a, b), e in zip(got, inst):
            assert b == e["gold"] and all(s in a for s in e["input_must_contain"])
        assert sorted(p.name for p in d.iterdir()) == sorted(
            f"{s}.{k}.tok" for s in ["train", "validate", "test"] for k in ["findings", "impression"])
    print("mimic_rrs fixture OK")
