"""Synthetic as-distributed fixture for shc_cdi_med (private Stanford CSV medhelm-CDI-dataset_filtered.csv)."""
import csv
import pathlib

SHAPE = """\
Private file medhelm-CDI-dataset_filtered.csv (Stanford Health Care; facts shc_cdi_med.source), passed to HELM as data_path
(run_entries_medhelm_private_stanford.conf: /dbfs/mnt/azure_adbfs/Files/medhelm/medhelm-CDI-dataset_filtered.csv). write() puts
folder/medhelm-CDI-dataset_filtered.csv.
Task: clinical documentation integrity (CDI) verification questions answered from prior notes (A yes, B no).
Format: CSV with a header row, read by csv.DictReader(open(path, "r")) (platform default encoding, UTF-8 assumed).
Columns HELM reads: prompt, context, label (shc_cdi_scenario.py (SHCCDIMedScenario); facts shc_cdi_med (A = yes, B = no)). Other columns / column order of the real file
are unknown - only these three are written, in this order, "\\n" line ends, QUOTE_MINIMAL (unverified).
label holds the answer LETTER itself (no mapping); HELM asserts label in ['A', 'B'] (no strip: " A" would crash).
Dedup: instances are the items of a dict keyed by the full prompt, which depends only on (prompt, context): a repeated pair collapses to ONE instance at the first occurrence's position with the LAST occurrence's label (benchmark_common_notes.shc_csv_dedup; Python dict semantics). No row filter.
Instance: input = "Provide an answer to the following question: {prompt} with the following context: {context} , Answer the question with either 'A' for yes or 'B' for no. ..."; references = ['A', 'B'] with the CSV letter tagged correct (gold = that letter);
split "test", CSV order (dict insertion order).
Fixture: 5 rows = 3 distinct prompts; row 3 repeats row 1 (same label), row 5 repeats row 2 with a
DIFFERENT label (so instance 2's gold is row 5's label). dropped = 2 rows. Unverified: whether real files
contain conflicting duplicates."""

FILE = "medhelm-CDI-dataset_filtered.csv"
COLUMNS = ["prompt", "context", "label"]
CHOICES = ['A', 'B']
# (prompt, context, label) in file order
ROWS = [
    ('Is acute respiratory failure documented?', 'ED note: SpO2 84% on RA, RR 32, placed on BiPAP. Assessment: acute hypoxic respiratory failure.', 'A'),
    ('Is sepsis documented?', 'Progress note: afebrile, WBC 8.1, lactate 1.0; UTI treated with oral antibiotics.', 'B'),
    ('Is acute respiratory failure documented?', 'ED note: SpO2 84% on RA, RR 32, placed on BiPAP. Assessment: acute hypoxic respiratory failure.', 'A'),
    ('Is malnutrition documented?', 'Dietitian: BMI 24, weight stable, eating 100% of meals.', 'B'),
    ('Is sepsis documented?', 'Progress note: afebrile, WBC 8.1, lactate 1.0; UTI treated with oral antibiotics.', 'A'),
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
        assert golds == ['A', 'A', 'B'], golds
        assert exp["dropped"]["test"] == 2
        assert all(g in CHOICES for g in golds)
    print("shc_cdi_med fixture OK")
