"""Synthetic as-distributed fixture for medhallu (UTAustin-AIHealth/MedHallu, config pqa_labeled)."""
import json
import pathlib

SHAPE = """\
HELM source: Hugging Face UTAustin-AIHealth/MedHallu, config pqa_labeled, split train, revision
515060458a945c633debc6fd5baac7764416b724 (medhallu_scenario.py load_dataset; facts medhallu.source). write() = hub
repo root: pqa_labeled/train-00000-of-00001.parquet (+ README.md with configs). The hub also has config
pqa_artificial (9000 rows) - not written (SOURCES.md).
Columns (realdata parquet + SOURCES.md): Question string; Knowledge list<string> (HF Sequence(Value(string)));
Ground Truth string; Difficulty Level string (easy|medium|hard); Hallucinated Answer string; Category of
Hallucination string (e.g. "Misinterpretation of #Question#", "Incomplete Information"). Parquet carries the
"huggingface" features JSON in its schema metadata. 1000 rows.
HELM: each row -> TWO test instances, in this order: (Ground Truth, label "0") then (Hallucinated Answer, label
"1") (facts instance_construction). Prompt text = "World Knowledge: {knowledge}\\nQuestion: {q}\\nAnswer: {a}\\n"
where {knowledge} is the Python repr of the list (brackets and quotes; a passage containing an apostrophe is
repr'd with double quotes). Gold = the digit string "0" (factual) / "1" (hallucinated); Difficulty Level and
Category are unused. Nothing dropped, no dedup (1000 rows -> 2000 instances).
"""

COLUMNS = ["Question", "Knowledge", "Ground Truth", "Difficulty Level", "Hallucinated Answer",
           "Category of Hallucination"]
ROWS = [
    {"Question": "Do mitochondria remodel lace plant leaves during programmed cell death?",
     "Knowledge": ["PCD forms perforations in lace plant leaves.", "Mitochondrial potential (\u0394\u03a8m) fell."],
     "Ground Truth": "Mitochondria play an early role in developmentally regulated PCD.",
     "Difficulty Level": "hard",
     "Hallucinated Answer": "Mitochondria have no role; chloroplasts alone drive perforation.",
     "Category of Hallucination": "Misinterpretation of #Question#"},
    {"Question": "Landolt C and Snellen E acuity: differences in strabismus amblyopia?",
     "Knowledge": ["Acuity depends on the optotype's critical detail."],
     "Ground Truth": "Only a slight overestimation by the Snellen E was found.",
     "Difficulty Level": "easy",
     "Hallucinated Answer": "The Landolt C underestimates acuity by three lines.",
     "Category of Hallucination": "Incomplete Information"},
    {"Question": "Is telephone counseling better than tailored print for mammography?",
     "Knowledge": ["Randomized trial of 1099 women.", "71% vs 61% on schedule.", "Effect after year one."],
     "Ground Truth": "Telephone counseling was more effective after the first year.",
     "Difficulty Level": "medium",
     "Hallucinated Answer": "Tailored print doubled screening rates in all years.",
     "Category of Hallucination": "Mechanism and Pathway Misattribution"},
]
HF_FEATURES = {"info": {"features": {
    "Question": {"dtype": "string", "_type": "Value"},
    "Knowledge": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"},
    "Ground Truth": {"dtype": "string", "_type": "Value"},
    "Difficulty Level": {"dtype": "string", "_type": "Value"},
    "Hallucinated Answer": {"dtype": "string", "_type": "Value"},
    "Category of Hallucination": {"dtype": "string", "_type": "Value"}}}}


def write(folder: pathlib.Path) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = pathlib.Path(folder)
    (folder / "pqa_labeled").mkdir(parents=True, exist_ok=True)
    schema = pa.schema([(c, pa.list_(pa.string()) if c == "Knowledge" else pa.string()) for c in COLUMNS],
                       metadata={"huggingface": json.dumps(HF_FEATURES)})
    pq.write_table(pa.Table.from_pylist(ROWS, schema=schema), folder / "pqa_labeled" / "train-00000-of-00001.parquet")
    (folder / "README.md").write_text(
        "---\nlicense: mit\nconfigs:\n- config_name: pqa_labeled\n  data_files:\n  - split: train\n"
        "    path: pqa_labeled/train-*\n---\n", encoding="utf-8")
    out = []
    for r in ROWS:
        for ans, lab, other in ((r["Ground Truth"], "0", r["Hallucinated Answer"]),
                                (r["Hallucinated Answer"], "1", r["Ground Truth"])):
            out.append({"gold": lab,
                        "input_must_contain": [f"World Knowledge: {r['Knowledge']!r}\nQuestion: {r['Question']}\n"
                                               f"Answer: {ans}\n"],
                        "input_must_not_contain": [other, r["Difficulty Level"] + "\n",
                                                   r["Category of Hallucination"]]})
    return {"splits": {"test": out}, "dropped": {"test": 0}, "hub_split": "train"}


if __name__ == "__main__":
    import tempfile
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        exp = write(pathlib.Path(tmp))
        t = pq.read_table(pathlib.Path(tmp) / "pqa_labeled" / "train-00000-of-00001.parquet")
        assert t.column_names == COLUMNS and b"huggingface" in t.schema.metadata
        ref = "/work/shared/realdata/UTAustin-AIHealth__MedHallu/pqa_labeled/train-00000-of-00001.parquet"
        if pathlib.Path(ref).exists():
            assert pq.read_schema(ref).remove_metadata().equals(t.schema.remove_metadata())
        rows = t.to_pylist()
        assert len(exp["splits"]["test"]) == 2 * len(rows)
        must_contain = exp["splits"]["test"][2]["input_must_contain"][0]
        assert '"Acuity depends on the optotype\'s critical detail."' in must_contain
        assert [e["gold"] for e in exp["splits"]["test"]] == ["0", "1"] * len(rows)
    print("medhallu fixture OK")
