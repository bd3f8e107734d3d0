"""Synthetic as-distributed fixture for mental_health (private counseling-dialogue CSV)."""
import csv
import pathlib

SHAPE = """\
Private file: processed_dialogues.csv passed as data_path (run_entries_medhelm_private_stanford.conf:
/share/pi/nigam/data/medhelm/mental_health/processed_dialogues.csv; facts mental_health.source). write() puts
folder/processed_dialogues.csv.
Format: CSV with header, read by pandas.read_csv (mental_health_scenario.py). Columns HELM reads: context
(the conversation so far, turns as "counselor: ..." / "client: ..." lines - docstring example), gold_counselor_response
(reference), topic (e.g. "Anxiety", "Workplace"), dialogue_type ("numerical type identifier" per docstring).
One row per counselor turn to predict: 7 dialogues -> 67 instances in MedHELM (facts instances). Other columns
and column order of the real file are unknown (only these four written).
Instance: PassageQuestionInput(passage="", question="Topic: {topic}\\nType: {dialogue_type}\\n\\nPrevious
conversation:\\n{context}\\n\\nGenerate an empathetic and appropriate counselor response:"); single reference =
gold_counselor_response (gold), split "test", file order, no filter, no dedup.
Quirks: values go through pandas, so dialogue_type renders as "1" only while the column is all-integer (one empty
cell would turn it into "1.0", an empty topic into "nan") - all cells filled here. Blank lines are skipped by
read_csv.
Unverified: the exact speaker-label casing and turn separator inside context; dialogue_type values.
"""

COLUMNS = ["context", "gold_counselor_response", "topic", "dialogue_type"]
D1 = ("counselor: Hi there, to start can you tell me your name and a little about what's going on?\n"
      "client: I'm Sam. I've been sleeping too much and I feel like I don't fit in at work.")
D1b = D1 + ("\ncounselor: It sounds like feeling out of place at work is weighing on you.\n"
            "client: Yes, and on Sundays I dread Monday.")
D2 = ("counselor: Welcome back. How has the week been?\n"
      "client: My heart races before every exam, I can't breathe properly.")
ROWS = [
    [D1, "It sounds really lonely to feel that you don't belong. What does a typical day at work look like?",
     "Workplace", 1],
    [D1b, "That Sunday dread makes sense given what you describe. What part of Monday worries you most?",
     "Workplace", 1],
    [D2, "Exam panic can feel overwhelming. Let's try a slow breathing exercise together, in for four counts.",
     "Anxiety", 2],
]


def write(folder: pathlib.Path) -> dict:
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "processed_dialogues.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        w.writerows(ROWS)
    out = [{"gold": r[1],
            "input_must_contain": [f"Topic: {r[2]}\nType: {r[3]}\n\nPrevious conversation:\n{r[0]}\n",
                                   "Generate an empathetic and appropriate counselor response:"],
            "input_must_not_contain": [r[1][:30], f"Type: {r[3]}.0"]} for r in ROWS]
    return {"splits": {"test": out}, "dropped": {"test": 0}}


if __name__ == "__main__":
    import tempfile
    import pyarrow.csv as pacsv

    with tempfile.TemporaryDirectory() as tmp:
        exp = write(pathlib.Path(tmp))
        t = pacsv.read_csv(pathlib.Path(tmp) / "processed_dialogues.csv")
        assert t.column_names == COLUMNS and str(t.schema.field("dialogue_type").type) == "int64"
        assert t.column("gold_counselor_response").to_pylist() == [e["gold"] for e in exp["splits"]["test"]]
        assert "\nclient: Yes" in t.column("context")[1].as_py()
    print("mental_health fixture OK")
