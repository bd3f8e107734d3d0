"""As-distributed fixture for MedHELM `head_qa` (HEAD-QA, hub repo dvilares/head_qa, config en)."""
import io
import json
import pathlib
import zipfile

SHAPE = """\
Where: HELM calls load_dataset("dvilares/head_qa", "en") and uses split "test" (facts: head_qa.source; HELM
headqa_scenario). The hub repo is a loading script (head_qa.py; the hub viewer is disabled because the repo "requires
arbitrary Python code execution") plus a zip of the original JSON; a third-party loader downloads
`data/head-qa-es-en-pdfs.zip` from that repo and reads HEAD_EN/test_HEAD_EN.json from it. Fixture = hub repo root with
data/head-qa-es-en-pdfs.zip (README/loading script not written). Zip layout: HEAD_EN/{train,dev,test}_HEAD_EN.json
(English; script splits train/validation/test) and HEAD/{train,dev,test}_HEAD.json (Spanish); image files inside
the zip at the relative path given by a question's "image" (folder name "images/" is UNVERIFIED). Whether the zip
also holds the exam PDFs (as its name suggests) is UNVERIFIED (none written).
JSON (per file, as parsed by the loading script): {"exams": {<exam key>: {"name": str, "year": str, "category": str,
"data": [{"qid": "1" (string), "qtext": str, "ra": "3" (string), "image": "" or relative path,
"answers": [{"aid": 1 (int), "atext": str}, ...]}]}}}. The script strips strings and casts qid/ra to int.
Hub features: name str, year str, category str, qid int32, qtext str, ra int32, image Image (None when ""),
answers list of {aid int32, atext str}.
HELM: rows whose image is not None are skipped (text-only); input = qtext; references = answers in list order, the
one with aid == ra is correct -> gold letter = position of that answer (A, B, C, D...); extra id/name/category/year.
"""

EXAMS_EN = {
    "Cuaderno_2013_1_B": {"name": "Cuaderno_2013_1_B", "year": "2013", "category": "biology", "data": [
        {"qid": "1", "qtext": "Excitatory postsynaptic potentials:", "ra": "3", "image": "",
         "answers": [{"aid": 1, "atext": "They are all-or-nothing."}, {"aid": 2, "atext": "They are hyperpolarizing."},
                     {"aid": 3, "atext": "They can be summed."},
                     {"aid": 4, "atext": "They propagate over long distances."}]},
        {"qid": "2", "qtext": "In the image shown, which structure is labeled with the arrow?", "ra": "2",
         "image": "images/2013_1_B_q2.png",
         "answers": [{"aid": 1, "atext": "Mitochondrion."}, {"aid": 2, "atext": "Golgi apparatus."},
                     {"aid": 3, "atext": "Nucleolus."}, {"aid": 4, "atext": "Centriole."}]},
    ]},
    "Cuaderno_2014_1_M": {"name": "Cuaderno_2014_1_M", "year": "2014", "category": "medicine", "data": [
        {"qid": "7", "qtext": " The antibiotic treatment of choice for meningitis caused by Haemophilus influenzae "
                              "serogroup b is: ", "ra": "4", "image": "",
         "answers": [{"aid": 1, "atext": "Gentamicin."}, {"aid": 2, "atext": "Erythromycin."},
                     {"aid": 3, "atext": "Ciprofloxacin."}, {"aid": 4, "atext": " Cefotaxime. "}]},
        {"qid": "8", "qtext": "A 13-year-old girl operated on for Hirschsprung disease at 3 months of age. Which tumor "
                              "is most likely?", "ra": "1", "image": "",
         "answers": [{"aid": 1, "atext": "Abdominal neuroblastoma."}, {"aid": 2, "atext": "Wilms tumor."},
                     {"aid": 3, "atext": "Mesoblastic nephroma."},
                     {"aid": 4, "atext": "Familial medullary thyroid carcinoma."}]},
    ]},
}
TRAIN_EN = {"Cuaderno_2011_1_E": {"name": "Cuaderno_2011_1_E", "year": "2011", "category": "nursing", "data": [
    {"qid": "1", "qtext": "Normal adult respiratory rate is:", "ra": "2", "image": "",
     "answers": [{"aid": 1, "atext": "5-8 per minute."}, {"aid": 2, "atext": "12-20 per minute."},
                 {"aid": 3, "atext": "30-40 per minute."}, {"aid": 4, "atext": "50 per minute."}]}]}}
DEV_EN = {"Cuaderno_2012_1_P": {"name": "Cuaderno_2012_1_P", "year": "2012", "category": "psychology", "data": [
    {"qid": "3", "qtext": "Compared with introverts, extraverts:", "ra": "3", "image": "",
     "answers": [{"aid": 1, "atext": "Do better at vigilance tasks."},
                 {"aid": 2, "atext": "Salivate more to lemon juice."},
                 {"aid": 3, "atext": "Have a greater need for stimulation."},
                 {"aid": 4, "atext": "Tolerate pain less."}]}]}}


def _es(exams):  # Spanish mirror with the same ids (texts marked, not translated)
    out = json.loads(json.dumps(exams))
    for ex in out.values():
        for q in ex["data"]:
            q["qtext"] = "[ES] " + q["qtext"]
    return out


PNG_1X1 = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder) / "data"
    d.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for split, exams in [("train", TRAIN_EN), ("dev", DEV_EN), ("test", EXAMS_EN)]:
            z.writestr(f"HEAD_EN/{split}_HEAD_EN.json", json.dumps({"exams": exams}, ensure_ascii=False, indent=2))
            z.writestr(f"HEAD/{split}_HEAD.json", json.dumps({"exams": _es(exams)}, ensure_ascii=False, indent=2))
        z.writestr("HEAD_EN/images/2013_1_B_q2.png", PNG_1X1)
        z.writestr("HEAD/images/2013_1_B_q2.png", PNG_1X1)
    (d / "head-qa-es-en-pdfs.zip").write_bytes(buf.getvalue())
    exp, dropped = [], 0
    for ex in EXAMS_EN.values():
        for q in ex["data"]:
            if q["image"].strip():
                dropped += 1
                continue
            idx = [a["aid"] for a in q["answers"]].index(int(q["ra"]))
            exp.append({"id": int(q["qid"]), "name": ex["name"], "gold": "ABCDE"[idx],
                        "gold_text": q["answers"][idx]["atext"].strip(),
                        "input_must_contain": [q["qtext"].strip()], "input_must_not_contain": ["[ES]"]})
    return {"params": {"config": "en"}, "splits": {"test": exp}, "dropped": {"test": dropped}}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        exp = write(pathlib.Path(tmp))
        with zipfile.ZipFile(pathlib.Path(tmp) / "data" / "head-qa-es-en-pdfs.zip") as z:
            names = set(z.namelist())
            assert {"HEAD_EN/test_HEAD_EN.json", "HEAD/test_HEAD.json", "HEAD_EN/dev_HEAD_EN.json"} <= names
            doc = json.loads(z.read("HEAD_EN/test_HEAD_EN.json"))
            got = []
            for ex in doc["exams"].values():
                for q in ex["data"]:
                    image = q["image"].strip() or None
                    if image is not None:
                        assert "HEAD_EN/" + image in names
                        continue
                    aids = [a["aid"] for a in q["answers"]]
                    assert all(isinstance(a, int) for a in aids) and isinstance(q["ra"], str)
                    got.append((q["qtext"].strip(), "ABCDE"[aids.index(int(q["ra"].strip()))]))
        inst = exp["splits"]["test"]
        assert len(got) == len(inst) == 3 and exp["dropped"]["test"] == 1
        for (qt, g), e in zip(got, inst):
            assert g == e["gold"] and e["input_must_contain"][0] == qt
    print("head_qa fixture OK")
