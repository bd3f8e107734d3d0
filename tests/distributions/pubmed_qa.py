"""Synthetic as-distributed fixture for pubmed_qa (PubMedQA PQA-L).

write()     -> HELM's source: GitHub pubmedqa/pubmedqa data/ori_pqal.json (dict keyed by PMID).
write_hub() -> the hub copy qiaojin/PubMedQA, config pqa_labeled (parquet). Which one the clinreg record reads was
               not checked (clinreg records are off limits for shaping), so both are provided.
"""
import json
import pathlib

SHAPE = """\
HELM source (write): raw GitHub pubmedqa/pubmedqa @ 1f00b98d5cc626844bf8c4ca513b6e62c40071ec, data/ori_pqal.json
(pubmed_qa_scenario.py url; facts pubmed_qa.source). write() = repo root with data/ori_pqal.json.
Format: ONE JSON object keyed by PMID (string), file order = instance order; value object keys in this order:
QUESTION str, CONTEXTS [str], LABELS [str] (same length as CONTEXTS; upper-case section names like BACKGROUND,
"PATIENTS AND METHODS", UNLABELLED), MESHES [str], YEAR str, reasoning_required_pred str, reasoning_free_pred str,
final_decision str (yes|no|maybe), LONG_ANSWER str. Serialised json.dump(indent=4), ASCII escapes (\\u00b1),
no trailing newline (stored copy of the file read with read_file). 1000 entries, all loaded as split "test".
HELM: passage = "\\n".join(f"{label.title()}. {context}") (str.title: "ICU LOS" -> "Icu Los"), question =
QUESTION + "\\n", PassageQuestionInput(passage_prefix="Context: ", separator="\\n\\n") -> input "Context: ...\\n\\n
Question: <q>\\n"; references yes/no/maybe in that order -> gold letter A/B/C (facts letters). LONG_ANSWER,
MESHES, YEAR, reasoning_* are not used. asserts len(CONTEXTS)==len(LABELS) and final_decision in choices; nothing
dropped.
Hub copy (write_hub): qiaojin/PubMedQA pqa_labeled/train-00000-of-00001.parquet (single split train, 1000 rows):
pubid int32, question str, context struct{contexts [str], labels [str], meshes [str], reasoning_required_pred
[str], reasoning_free_pred [str]}, long_answer str, final_decision str; reasoning_* preds stored as LISTS OF
CHARACTERS ("yes" -> ["y","e","s"]); YEAR absent; "huggingface" features JSON in the parquet schema metadata
(SOURCES.md + realdata qiaojin__PubMedQA parquet). Hub configs pqa_artificial / pqa_unlabeled are not written.
"""

ENTRIES = [
    ("21645374", {
        "QUESTION": "Do mitochondria remodel lace plant leaves during programmed cell death?",
        "CONTEXTS": ["Programmed cell death (PCD) forms perforations in lace plant leaves.",
                     "Mitochondrial dynamics were imaged; membrane potential (\u0394\u03a8m) fell in late PCD."],
        "LABELS": ["BACKGROUND", "RESULTS"],
        "MESHES": ["Alismataceae", "Apoptosis", "Mitochondria"],
        "YEAR": "2011", "reasoning_required_pred": "yes", "reasoning_free_pred": "yes",
        "final_decision": "yes",
        "LONG_ANSWER": "Mitochondria play an early role in developmentally regulated PCD."}),
    ("16418930", {
        "QUESTION": "Landolt C and Snellen E acuity: differences in strabismus amblyopia?",
        "CONTEXTS": ["Acuity depends on the optotype used.", "100 patients were tested with both charts.",
                     "Differences were small (0.55 lines)."],
        "LABELS": ["BACKGROUND", "PATIENTS AND METHODS", "RESULTS"],
        "MESHES": ["Amblyopia", "Humans", "Visual Acuity"],
        "YEAR": "2006", "reasoning_required_pred": "no", "reasoning_free_pred": "no",
        "final_decision": "no",
        "LONG_ANSWER": "Only a slight overestimation by the Snellen E was found."}),
    ("9488747", {
        "QUESTION": "Does ICU length of stay predict 1-year mortality?",
        "CONTEXTS": ["Mean stay was 4.2\u00b11.1 days.", "Longer stays showed a non-significant trend."],
        "LABELS": ["ICU LOS", "UNLABELLED"],
        "MESHES": ["Intensive Care Units", "Length of Stay"],
        "YEAR": "1997", "reasoning_required_pred": "maybe", "reasoning_free_pred": "yes",
        "final_decision": "maybe",
        "LONG_ANSWER": "The association remains uncertain."}),
    ("10808977", {
        "QUESTION": "Can tailored interventions increase mammography use among HMO women?",
        "CONTEXTS": ["Telephone counseling and tailored print were compared.", "Three-year randomized trial.",
                     "Telephone counseling raised on-schedule screening (71% vs 61%)."],
        "LABELS": ["BACKGROUND", "DESIGN", "RESULTS"],
        "MESHES": ["Female", "Mammography", "Telephone"],
        "YEAR": "2000", "reasoning_required_pred": "yes", "reasoning_free_pred": "no",
        "final_decision": "yes",
        "LONG_ANSWER": "Telephone counseling may be the preferred first-line intervention."}),
]
LETTER = {"yes": "A", "no": "B", "maybe": "C"}


def _expected():
    out = []
    for pmid, e in ENTRIES:
        first = f"Context: {e['LABELS'][0].title()}. {e['CONTEXTS'][0]}"
        out.append({"id": pmid, "gold": LETTER[e["final_decision"]],
                    "input_must_contain": [first, f"\n\nQuestion: {e['QUESTION']}\n"]
                    + [f"{lab.title()}. {c}" for lab, c in zip(e["LABELS"], e["CONTEXTS"])],
                    "input_must_not_contain": [e["LONG_ANSWER"], e["LABELS"][-1] + ".", e["MESHES"][0]]})
    return {"splits": {"test": out}, "dropped": {"test": 0}}


def write(folder: pathlib.Path) -> dict:
    folder = pathlib.Path(folder)
    (folder / "data").mkdir(parents=True, exist_ok=True)
    with open(folder / "data" / "ori_pqal.json", "w", encoding="utf-8") as f:
        json.dump(dict(ENTRIES), f, indent=4)
    return _expected()


HF_FEATURES = {"info": {"features": {
    "pubid": {"dtype": "int32", "_type": "Value"},
    "question": {"dtype": "string", "_type": "Value"},
    "context": {"feature": {k: {"dtype": "string", "_type": "Value"} for k in
                            ("contexts", "labels", "meshes", "reasoning_required_pred", "reasoning_free_pred")},
                "_type": "Sequence"},
    "long_answer": {"dtype": "string", "_type": "Value"},
    "final_decision": {"dtype": "string", "_type": "Value"}}}}


def write_hub(folder: pathlib.Path) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = pathlib.Path(folder)
    (folder / "pqa_labeled").mkdir(parents=True, exist_ok=True)
    ls = pa.list_(pa.string())
    ctx = pa.struct([("contexts", ls), ("labels", ls), ("meshes", ls), ("reasoning_required_pred", ls),
                     ("reasoning_free_pred", ls)])
    schema = pa.schema([("pubid", pa.int32()), ("question", pa.string()), ("context", ctx),
                        ("long_answer", pa.string()), ("final_decision", pa.string())],
                       metadata={"huggingface": json.dumps(HF_FEATURES)})
    rows = [{"pubid": int(k), "question": e["QUESTION"],
             "context": {"contexts": e["CONTEXTS"], "labels": e["LABELS"], "meshes": e["MESHES"],
                         "reasoning_required_pred": list(e["reasoning_required_pred"]),
                         "reasoning_free_pred": list(e["reasoning_free_pred"])},
             "long_answer": e["LONG_ANSWER"], "final_decision": e["final_decision"]} for k, e in ENTRIES]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), folder / "pqa_labeled" / "train-00000-of-00001.parquet")
    (folder / "README.md").write_text(
        "---\nlicense: mit\nconfigs:\n- config_name: pqa_labeled\n  data_files:\n  - split: train\n"
        "    path: pqa_labeled/train-*\n---\n", encoding="utf-8")
    exp = _expected()
    exp["hub_split"] = "train"  # HELM's "test" == hub pqa_labeled/train
    return exp


if __name__ == "__main__":
    import tempfile
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        exp = write(root / "gh")
        raw = (root / "gh" / "data" / "ori_pqal.json").read_text(encoding="utf-8")
        assert (raw.startswith('{\n    "21645374": {\n        "QUESTION": ') and raw.endswith("    }\n}")
                and raw.isascii())
        d = json.loads(raw)
        assert list(d) == [e["id"] for e in exp["splits"]["test"]]
        assert [LETTER[v["final_decision"]] for v in d.values()] == [e["gold"] for e in exp["splits"]["test"]]
        assert list(d["9488747"]) == ["QUESTION", "CONTEXTS", "LABELS", "MESHES", "YEAR", "reasoning_required_pred",
                                      "reasoning_free_pred", "final_decision", "LONG_ANSWER"]
        hub = write_hub(root / "hub")
        t = pq.read_table(root / "hub" / "pqa_labeled" / "train-00000-of-00001.parquet")
        assert str(t.schema.field("pubid").type) == "int32" and b"huggingface" in t.schema.metadata
        r = t.to_pylist()
        assert r[2]["context"]["reasoning_required_pred"] == ["m", "a", "y", "b", "e"]
        assert [LETTER[x["final_decision"]] for x in r] == [e["gold"] for e in hub["splits"]["test"]]
        ref = "/work/shared/realdata/qiaojin__PubMedQA/pqa_labeled/train-00000-of-00001.parquet"
        if pathlib.Path(ref).exists():  # same physical schema as the real sample
            assert pq.read_schema(ref).remove_metadata().equals(t.schema.remove_metadata())
    print("pubmed_qa fixture OK")
