"""As-distributed fixture for MedHELM `medec` (MEDEC-MS CSVs, GitHub abachaa/MEDEC @ 49c59dcb)."""
import csv
import io
import pathlib

SHAPE = """\
Where: github.com/abachaa/MEDEC at commit 49c59dcba43a7af8717590a405b11a57f42b04df; HELM downloads only
MEDEC-MS/MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv (the training file
MEDEC-MS/MEDEC-Full-TrainingSet-with-ErrorType.csv is defined but commented out) (facts: medec.source; HELM
medec_scenario). The repo also has MEDEC-MS/MEDEC-MS-ValidationSet-with-GroundTruth-and-ErrorType.csv. Fixture =
repo root with those three CSVs. (A cleaned hub copy mkieffer/MEDEC exists; HELM does not read it.)
Format (checked against real samples): UTF-8, no BOM, comma, minimal quoting (Text/Sentences/Corrected Text quoted).
Header: Text ID,Text,Sentences,Error Flag,Error Type,Error Sentence ID,Error Sentence,Corrected Sentence,Corrected Text.
Text ID like "ms-test-0"; records come in pairs over the same narrative (one with an injected error, one clean).
Sentences = one numbered sentence per line ("0 A 29-year-old ...", "1 ..."). Error Flag "0"/"1"; Error Type e.g.
diagnosis / causalOrganism / management / pharmacotherapy / treatment, "NA" when flag 0; Error Sentence ID = sentence
number or "-1"; Error Sentence / Corrected Sentence / Corrected Text = literal "NA" when flag 0.
Line-end quirks: the TEST file uses CRLF everywhere, also inside quoted fields, and each Sentences field ends with a
CRLF; it ends with 328 all-empty records ",,,,,,,," (3 here). The VALIDATION file uses CRLF between records but LF
inside fields. The training file's line-end style is UNVERIFIED (validation style assumed).
HELM: opens the CSV with open(..., "r", encoding="utf-8") (universal newlines) + csv.DictReader; skips rows with empty
Sentences (the trailing empty records); input = Sentences.strip(); gold = "<Error Sentence ID> <Corrected Sentence>"
when Error Flag == 1 and Corrected Sentence != "NA" and ID != "-1", else "CORRECT". Single split: test.
"""

HEADER = ["Text ID", "Text", "Sentences", "Error Flag", "Error Type", "Error Sentence ID", "Error Sentence",
          "Corrected Sentence", "Corrected Text"]


def _rec(tid, sents, err=None):
    """sents: list of sentences; err: (type, idx, corrected sentence) or None."""
    text = " ".join(sents)
    if err is None:
        return [tid, text, sents, "0", "NA", "-1", "NA", "NA", "NA"]
    etype, idx, corrected = err
    wrong = sents[idx]
    fixed = " ".join(corrected if i == idx else s for i, s in enumerate(sents))
    return [tid, text, sents, "1", etype, str(idx), wrong, corrected, fixed]


S1 = ["A 29-year-old man returns from a mission trip to Brazil with fever, diarrhea and a pruritic rash.",
      "He swam in a freshwater lake.", "Eosinophil count is elevated.",
      "His symptoms are suspected to be due to hepatitis A.", "The rest of the examination is normal."]
S2 = ["A 61-year-old woman has crushing substernal chest pain for 1 hour.", "ECG shows ST elevation in leads II, III "
      "and aVF.", "She is diagnosed with an inferior myocardial infarction.", "Aspirin is given."]
TEST = [
    _rec("ms-test-0", S1, ("causalOrganism", 3, "His symptoms are suspected to be due to Schistosoma mansoni.")),
    _rec("ms-test-1", [s if i != 3 else "His symptoms are suspected to be due to Schistosoma mansoni."
                       for i, s in enumerate(S1)]),
    _rec("ms-test-2", S2, ("diagnosis", 2, "She is diagnosed with an inferior ST-elevation myocardial infarction "
                                           "due to right coronary artery occlusion.")),
    _rec("ms-test-3", [s if i != 2 else "She is diagnosed with an inferior ST-elevation myocardial infarction due to "
                       "right coronary artery occlusion." for i, s in enumerate(S2)]),
]
VALID = [
    _rec("ms-val-0", ["A 24-year-old woman has vaginal discharge and dysuria.", "Wet mount shows motile flagellates.",
                      "Culture tests indicate Neisseria gonorrhoeae."],
         ("causalOrganism", 2, "Culture tests indicate Trichomonas vaginalis.")),
    _rec("ms-val-1", ["A 24-year-old woman has vaginal discharge and dysuria.", "Wet mount shows motile flagellates.",
                      "Culture tests indicate Trichomonas vaginalis."]),
]
TRAIN = [
    _rec("ms-train-0", ["A 50-year-old man has polyuria.", "Fasting glucose is 160 mg/dL.",
                        "He is started on glipizide as first-line therapy."],
         ("pharmacotherapy", 2, "He is started on metformin as first-line therapy.")),
]


def _csv(rows, inner_nl, empty_tail):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(HEADER)
    for r in rows:
        r = list(r)
        r[2] = "".join(f"{i} {s}{inner_nl}" for i, s in enumerate(r[2]))
        if inner_nl == "\n":
            r[2] = r[2].rstrip("\n")
        w.writerow(r)
    for _ in range(empty_tail):
        w.writerow([""] * len(HEADER))
    return buf.getvalue()


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder) / "MEDEC-MS"
    d.mkdir(parents=True, exist_ok=True)
    files = {"MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv": _csv(TEST, "\r\n", 3),
             "MEDEC-MS-ValidationSet-with-GroundTruth-and-ErrorType.csv": _csv(VALID, "\n", 0),
             "MEDEC-Full-TrainingSet-with-ErrorType.csv": _csv(TRAIN, "\n", 0)}
    for name, text in files.items():
        (d / name).write_bytes(text.encode("utf-8"))
    exp = []
    for r in TEST:
        gold = f"{r[5]} {r[7]}" if r[3] == "1" else "CORRECT"
        exp.append({"id": r[0], "gold": gold, "error_flag": int(r[3]),
                    "input_must_contain": [f"0 {r[2][0]}", f"{len(r[2]) - 1} {r[2][-1]}"],
                    "input_must_not_contain": ["\r"] + ([r[7]] if r[3] == "1" else [])})
    return {"splits": {"test": exp}, "dropped": {"test": 3},
            "notes": "dropped = the 3 trailing all-empty records of the test CSV"}


def _realdata(sub):
    """Folder of the real sample (shared/realdata/<sub>) if present, else None (self-check only)."""
    here = pathlib.Path(__file__).resolve()
    for base in [pathlib.Path("/work/shared/realdata"), here.parents[3] / "shared" / "realdata",
                 pathlib.Path.cwd() / ".." / "shared" / "realdata"]:
        if (base / sub).is_dir():
            return base / sub
    return None


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        e = write(pathlib.Path(tmp))
        p = pathlib.Path(tmp) / "MEDEC-MS" / "MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv"
        raw = p.read_bytes()
        assert raw.count(b"\n") == raw.count(b"\r\n") and raw.endswith(b",,,,,,,,\r\n")
        v = (pathlib.Path(tmp) / "MEDEC-MS" / "MEDEC-MS-ValidationSet-with-GroundTruth-and-ErrorType.csv").read_bytes()
        assert v.count(b"\r\n") == 3 and v.count(b"\n") > 3
        with open(p, "r", encoding="utf-8") as f:  # HELM-style open (universal newlines)
            rows = list(csv.DictReader(f))
        assert len(rows) == 7
        got = []
        for r in rows:
            if not r.get("Sentences"):
                continue
            flag = int(r.get("Error Flag", 0))
            sid, cor = r["Error Sentence ID"].strip(), r["Corrected Sentence"].strip()
            got.append((r["Sentences"].strip(), f"{sid} {cor}" if flag == 1 and cor != "NA" and sid != "-1"
                        else "CORRECT"))
        inst = e["splits"]["test"]
        assert len(got) == len(inst) == 4
        for (inp, g), x in zip(got, inst):
            assert g == x["gold"] and all(s in inp for s in x["input_must_contain"])
            assert not any(s in inp for s in x["input_must_not_contain"]), x["id"]
        real = _realdata("abachaa__MEDEC")
        if real is not None:
            for name in ["MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv",
                         "MEDEC-MS-ValidationSet-with-GroundTruth-and-ErrorType.csv"]:
                rb = (real / "MEDEC-MS" / name).read_bytes()
                mb = (pathlib.Path(tmp) / "MEDEC-MS" / name).read_bytes()
                assert rb.split(b"\r\n", 1)[0] == mb.split(b"\r\n", 1)[0]  # header
                assert (rb.count(b"\n") == rb.count(b"\r\n")) == (mb.count(b"\n") == mb.count(b"\r\n"))
                assert rb[:3] != b"\xef\xbb\xbf" and mb[:3] != b"\xef\xbb\xbf"
            print("  matches real sample header / line-end style")
        import pyarrow.csv as pacsv
        t = pacsv.read_csv(p, parse_options=pacsv.ParseOptions(newlines_in_values=True))
        assert t.num_rows == 7 and t.column_names == HEADER
    print("medec fixture OK")
