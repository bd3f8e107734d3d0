"""As-distributed fixture for MedHELM `aci_bench` (GitHub wyim/aci-bench @ e75b3831, challenge_data_json)."""
import json
import pathlib

SHAPE = """\
Where: github.com/wyim/aci-bench at commit e75b383172195414a7a68843ec4876e83e5409f7, folder data/challenge_data_json/
(facts: aci_bench.source; HELM aci_bench_scenario). HELM downloads train_full.json (-> split train) and, in THIS
order, clinicalnlp_taskB_test1_full.json, clef_taskC_test3_full.json, clinicalnlp_taskC_test2_full.json (-> split test;
note test3 before test2). valid_full.json exists but is not used. Fixture = repo root with the five files.
Format (checked against the real sample): each file is ONE JSON object {"data": [...]} serialised with indent=4,
ASCII-escaped (json.dumps default ensure_ascii=True), no newline at end of file. Entry keys in order: "src"
(dialogue; turns prefixed "[doctor]" / "[patient]" (other speaker tags such as "[patient_guest]" may occur,
unverified), newline-separated, lower-cased, tokenized with spaces before punctuation), "tgt" (clinical note with
UPPERCASE section headers such as "CHIEF COMPLAINT", "HISTORY OF PRESENT ILLNESS", "ASSESSMENT AND PLAN", blank lines
between sections), "file" (encounter id, e.g. "D2N001-virtassist"; the "-aci" / "-virtscribe" suffixes used
here for other test rows are assumed from the ACI-Bench subsets, not seen in the sample). Real sizes: train 67, valid \
20, test1/2/3 40 each.
HELM: input = "Doctor-patient dialogue:\\n\\n" + src; gold = tgt. No filter (no rows dropped).
"""

DIR = "data/challenge_data_json"


def _enc(i, kind, name, age, complaint, plan):
    src = (f"[doctor] hi , {name} . how are you ?\n[patient] i'm okay . my {complaint} has been bothering me .\n"
           f"[doctor] okay . how long has that been going on ?\n[patient] about two weeks .\n"
           f"[doctor] alright , let's {plan} .")
    tgt = (f"CHIEF COMPLAINT\n\n{complaint.capitalize()}.\n\nHISTORY OF PRESENT ILLNESS\n\n{name.capitalize()} is a "
           f"{age}-year-old patient who presents with {complaint} for 2 weeks.\n\nASSESSMENT AND PLAN\n\n"
           f"{complaint.capitalize()}.\n- Plan: {plan}.")
    return {"src": src, "tgt": tgt, "file": f"D2N{i:03d}-{kind}"}


FILES = {
    "train_full.json": [_enc(1, "virtassist", "martha", 50, "knee pain", "get an x-ray of the knee"),
                        _enc(2, "virtassist", "josé", 62, "cough", "order a chest x-ray")],
    "valid_full.json": [_enc(68, "virtassist", "sarah", 35, "headache", "start a headache diary")],
    "clinicalnlp_taskB_test1_full.json": [_enc(88, "virtassist", "andrew", 59, "sore throat", "do a strep test"),
                                          _enc(89, "aci", "lisa", 44, "back pain", "start physical therapy")],
    "clinicalnlp_taskC_test2_full.json": [_enc(128, "virtscribe", "john", 71, "shortness of breath",
                                               "get an echocardiogram")],
    "clef_taskC_test3_full.json": [_enc(168, "virtassist", "maria", 28, "rash", "prescribe a topical steroid")],
}


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder) / DIR
    d.mkdir(parents=True, exist_ok=True)
    for name, entries in FILES.items():
        (d / name).write_text(json.dumps({"data": entries}, indent=4), encoding="utf-8")

    def exp(entries):
        return [{"file": e["file"], "gold": e["tgt"],
                 "input_must_contain": ["Doctor-patient dialogue:", e["src"]],
                 "input_must_not_contain": ["CHIEF COMPLAINT", e["file"]]} for e in entries]

    test = (FILES["clinicalnlp_taskB_test1_full.json"] + FILES["clef_taskC_test3_full.json"]
            + FILES["clinicalnlp_taskC_test2_full.json"])
    return {"splits": {"train": exp(FILES["train_full.json"]), "test": exp(test)},
            "dropped": {"train": 0, "test": 0}}


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
        d = pathlib.Path(tmp) / DIR
        raw = (d / "train_full.json").read_bytes()
        assert raw.startswith(b'{\n    "data": [\n        {\n            "src"') and not raw.endswith(b"\n")
        assert b"\\u00e9" in raw  # ASCII-escaped non-ASCII (josé)
        order = ["clinicalnlp_taskB_test1_full.json", "clef_taskC_test3_full.json", "clinicalnlp_taskC_test2_full.json"]
        for split, names in [("train", ["train_full.json"]), ("test", order)]:
            entries = [x for n in names for x in json.loads((d / n).read_text(encoding="utf-8"))["data"]]
            inst = e["splits"][split]
            assert len(entries) == len(inst)
            for x, i in zip(entries, inst):
                assert list(x) == ["src", "tgt", "file"] and x["tgt"] == i["gold"] and x["file"] == i["file"]
                assert all(s in "Doctor-patient dialogue:\n\n" + x["src"] for s in i["input_must_contain"])
        real = _realdata("wyim__aci-bench")
        if real is not None:
            for n in FILES:
                rb = (real / DIR / n).read_bytes()
                mb = (d / n).read_bytes()
                assert rb[:40] == mb[:40] and rb.endswith(b"}") and mb.endswith(b"}")
                rj = json.loads(rb)
                assert list(rj) == ["data"] and list(rj["data"][0]) == ["src", "tgt", "file"]
                assert rb == json.dumps(rj, indent=4).encode("ascii")  # real file = json.dumps(indent=4)
            print("  matches real sample serialisation")
    print("aci_bench fixture OK")
