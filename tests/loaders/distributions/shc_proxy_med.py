"""Synthetic as-distributed fixture for shc_proxy_med (private Stanford CSV medhelm-PROXY-dataset_filtered.csv)."""
import csv
import pathlib

SHAPE = """\
Private file medhelm-PROXY-dataset_filtered.csv (Stanford Health Care; facts shc_proxy_med.source), passed to HELM as data_path
(run_entries_medhelm_private_stanford.conf: /dbfs/mnt/azure_adbfs/Files/medhelm/medhelm-PROXY-dataset_filtered.csv). write() puts
folder/medhelm-PROXY-dataset_filtered.csv.
Task: patient-portal message: was it sent by a proxy user (A yes, B no; C allowed by the assert but undefined in the prompt).
Format: CSV with a header row, read by csv.DictReader(open(path, "r")) (platform default encoding, UTF-8 assumed).
Columns HELM reads: prompt, context, label (shc_proxy_scenario.py (SHCPROXYMedScenario); facts shc_proxy_med (label one of A,B,C asserted; instruction inconsistency)). Other columns / column order of the real file
are unknown - only these three are written, in this order, "\\n" line ends, QUOTE_MINIMAL (unverified).
label holds the answer LETTER itself (no mapping); HELM asserts label in ['A', 'B', 'C'] (no strip: " A" would crash).
Dedup: instances are the items of a dict keyed by the full prompt, which depends only on (prompt, context): a repeated pair collapses to ONE instance at the first occurrence's position with the LAST occurrence's label (benchmark_common_notes.shc_csv_dedup; Python dict semantics). No row filter.
Instance: input = "You are reviewing a clinical messages in order to determine if they have been sent by a proxy user. Please determine the following: {prompt} with the following context: {context} , Answer the question with a 'A' for yes or 'B' for no. ..."; references = ['A', 'B', 'C'] with the CSV letter tagged correct (gold = that letter);
split "test", CSV order (dict insertion order).
Fixture: 5 rows = 3 distinct prompts; row 3 repeats row 1 (same label), row 5 repeats row 2 with a
DIFFERENT label (so instance 2's gold is row 5's label). dropped = 2 rows. Unverified: whether real files
contain conflicting duplicates."""

FILE = "medhelm-PROXY-dataset_filtered.csv"
COLUMNS = ["prompt", "context", "label"]
CHOICES = ['A', 'B', 'C']
# (prompt, context, label) in file order
ROWS = [
    ('Was this message sent by someone other than the patient?', "Hi Dr. Lee, my son (he's 15) has had a fever since Tuesday, should I bring him in? - Mom", 'A'),
    ('Was this message sent by someone other than the patient?', 'Can I get a refill of my inhaler before my trip? Thanks, Jordan', 'B'),
    ('Was this message sent by someone other than the patient?', "Hi Dr. Lee, my son (he's 15) has had a fever since Tuesday, should I bring him in? - Mom", 'A'),
    ('Was this message sent by someone other than the patient?', 'Please call back re: results.', 'C'),
    ('Was this message sent by someone other than the patient?', 'Can I get a refill of my inhaler before my trip? Thanks, Jordan', 'A'),
]


def _expected():
    out, seen = [], {}
    counter = 0
    for i, (q, ctx, lab) in enumerate(ROWS):
        key = (q, ctx)  # the prompt is a pure function of (question, context)
        if key in seen:  # duplicate prompt: keeps the FIRST position, takes the LAST label
            out[seen[key]]["gold"] = lab
            continue
        seen[key] = len(out)
        out.append({"row": i, "gold": lab,
                    "input_must_contain": [f"question: {q} with the following context: {ctx} ,"],
                    "input_must_not_contain": [c[:40] for _, c, _ in ROWS if c != ctx]})
    return out


def write(folder: pathlib.Path) -> dict:
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / FILE, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        w.writerows(ROWS)
    out = _expected()
    return {"splits": {"test": out}, "dropped": {"test": len(ROWS) - len(out)}}


if __name__ == "__main__":
    import tempfile
    import pyarrow.csv as pacsv

    with tempfile.TemporaryDirectory() as tmp:
        exp = write(pathlib.Path(tmp))
        path = pathlib.Path(tmp) / FILE
        t = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(strings_can_be_null=False))
        assert t.column_names == COLUMNS and t.num_rows == len(ROWS)
        with open(path, "r", encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        assert [(r["prompt"], r["context"], r["label"]) for r in rows] == [tuple(x) for x in ROWS]
        golds = [e["gold"] for e in exp["splits"]["test"]]
        assert golds == ['A', 'A', 'C'], golds
        assert exp["dropped"]["test"] == 2
        assert all(g in CHOICES for g in golds)
    print("shc_proxy_med fixture OK")
