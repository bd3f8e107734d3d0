"""Synthetic as-distributed fixture for med_dialog (MedDialog-EN summaries, BioBART splits)."""
import json
import pathlib

SHAPE = """\
HELM source (write): CodaLab bundle 0x82f0c47f6d3e4462ae9ef8ea39eebe64, files <subset>/test.json for subset in
{healthcaremagic, icliniq} (med_dialog_scenario.py get_instances; facts med_dialog.source.url, subsets). Only
test.json is fetched (zero-shot); the bundle also holds train.json / valid.json (HELM docstring split table;
lighteval's JSON copy of the bundle lists test/train/valid.json) - written here with one row each, unread.
Format: one JSON object {"data": [ {"id": int, "tgt": str, "src": str}, ... ]}, written by the BioBART
preparation script with json.dump(indent=2) and default ensure_ascii (non-ASCII as \\uXXXX) (BioBART dataprepare
script found by exact-string search; the CodaLab bytes themselves were not seen - key order id,tgt,src and indent
are from that script, unverified for the bundle). src = "Patient: ... Doctor: ..." dialogue on one line; tgt = the
one-sentence patient question/summary (healthcaremagic: "Q." prefix stripped by the script).
HELM: input = src verbatim, single reference = tgt (gold = tgt text), split "test", file order kept,
nothing filtered, no dedup. Run parameter subset -> expected output keyed per subset under "configs".
Hub copy (write_hub): lighteval/med_dialog, configs healthcaremagic / icliniq, files
<subset>/{train,validation,test}-00000-of-00001.parquet, columns tgt string, src string, id int64 (hub README
dataset_info + tree listing, search tool). Full sizes: healthcaremagic 181122/22641/22642, icliniq
24851/3105/3108 (HELM docstring, hub README).
Dropped: none (dropped = 0).
"""

DATA = {
    "healthcaremagic": {
        "test": [
            {"id": 90412, "tgt": "What causes cramps in forearm when bending the arm?",
             "src": "Patient: I get cramps on top of my left forearm when I bend my arm. Could a pinched nerve in "
                    "my neck cause this? Doctor: Hi there. Nerves supplying the forearm start at the spinal cord; "
                    "entrapment along the way can cause this. Pregabalin and physiotherapy may help."},
            {"id": 15, "tgt": "Is fever of 38.5\u00b0C after vaccination normal for a toddler?",
             "src": "Patient: My 2 year old has 38.5\u00b0C fever since her vaccine yesterday. Doctor: Hello. "
                    "Low-grade fever within 48 hours is common; give paracetamol and fluids."},
            {"id": 20077, "tgt": "Suggest treatment for dry cough after cold",
             "src": "Patient: Dry cough for three weeks after a cold, no fever. Doctor: Hi. Post-viral cough "
                    "may last weeks; honey and steam inhalation help, see a doctor if it persists."},
        ],
        "train": [{"id": 1, "tgt": "Train row (unread)", "src": "Patient: train. Doctor: train."}],
        "valid": [{"id": 2, "tgt": "Valid row (unread)", "src": "Patient: valid. Doctor: valid."}],
    },
    "icliniq": {
        "test": [
            {"id": 311, "tgt": "My friend has excruciating knee pain. Please interpret his MRI report.",
             "src": "Patient: Hello doctor, We are looking for a second opinion on my friend's MRI of both "
                    "knees. Doctor: Hi. The left knee shows a complex tear in the posterior horn of the medial "
                    "meniscus (attachment removed to protect patient identity)."},
            {"id": 4, "tgt": "Can I take ibuprofen with lisinopril?",
             "src": "Patient: Hi doctor, I take lisinopril 10 mg. Can I take ibuprofen for back pain? Doctor: "
                    "Hi. Occasional use is acceptable, but NSAIDs can blunt its effect and affect kidneys."},
            {"id": 2710, "tgt": "Why do I get headaches after caf\u00e9 visits?",
             "src": "Patient: Hello doctor, every time after the caf\u00e9 I get a headache. Doctor: Hi. It may be "
                    "caffeine related; reduce intake gradually."},
        ],
        "train": [{"id": 1, "tgt": "Train row (unread)", "src": "Patient: train. Doctor: train."}],
        "valid": [{"id": 2, "tgt": "Valid row (unread)", "src": "Patient: valid. Doctor: valid."}],
    },
}


def _expected(subset):
    return [{"id": r["id"], "gold": r["tgt"], "input_must_contain": [r["src"][:60], "Doctor:"],
             "input_must_not_contain": [r["tgt"]]} for r in DATA[subset]["test"]]


def _result():
    configs = {s: {"test": _expected(s)} for s in DATA}
    return {"splits": configs["healthcaremagic"], "configs": configs, "run_parameter": "subset",
            "dropped": {"test": 0}}


def write(folder: pathlib.Path) -> dict:
    folder = pathlib.Path(folder)
    for subset, splits in DATA.items():
        (folder / subset).mkdir(parents=True, exist_ok=True)
        for split, rows in splits.items():
            with open(folder / subset / f"{split}.json", "w", encoding="utf-8") as f:
                json.dump({"data": rows}, f, indent=2)
    return _result()


def write_hub(folder: pathlib.Path) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = pathlib.Path(folder)
    schema = pa.schema([("tgt", pa.string()), ("src", pa.string()), ("id", pa.int64())])
    names = {"train": "train", "valid": "validation", "test": "test"}
    for subset, splits in DATA.items():
        (folder / subset).mkdir(parents=True, exist_ok=True)
        for split, rows in splits.items():
            t = pa.Table.from_pylist([{k: r[k] for k in ("tgt", "src", "id")} for r in rows], schema=schema)
            pq.write_table(t, folder / subset / f"{names[split]}-00000-of-00001.parquet")
    cfg = "".join(
        f"- config_name: {s}\n  data_files:\n" + "".join(
            f"  - split: {n}\n    path: {s}/{n}-*\n" for n in ("train", "validation", "test")) for s in DATA)
    (folder / "README.md").write_text(f"---\nconfigs:\n{cfg}---\n", encoding="utf-8")
    return _result()


if __name__ == "__main__":
    import tempfile
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        exp = write(root / "codalab")
        for subset in DATA:
            raw = (root / "codalab" / subset / "test.json").read_text(encoding="utf-8")
            assert raw.isascii() and raw.startswith('{\n  "data": [\n    {\n      "id": ')
            rows = json.loads(raw)["data"]
            assert [r["tgt"] for r in rows] == [e["gold"] for e in exp["configs"][subset]["test"]]
            assert all(e["input_must_contain"][0] in r["src"]
                       for r, e in zip(rows, exp["configs"][subset]["test"]))
        write_hub(root / "hub")
        t = pq.read_table(root / "hub" / "icliniq" / "test-00000-of-00001.parquet")
        assert t.column_names == ["tgt", "src", "id"] and str(t.schema.field("id").type) == "int64"
        assert t.column("tgt").to_pylist() == [e["gold"] for e in exp["configs"]["icliniq"]["test"]]
    print("med_dialog fixture OK")
