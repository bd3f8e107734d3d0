"""As-distributed fixture for MedHELM `chw_care_plan` (NoteExtract; private CHW_Dataset.csv)."""
import csv
import pathlib

SHAPE = """\
Where: a private CSV, CHW_Dataset.csv; HELM's data_path is the file itself (run entries: .../datasets/CHW_Dataset.csv;
facts: chw_care_plan.source.file). Origin unverified (facts: "private; eHealth Africa affiliation noted by S10").
Format: CSV read with pandas.read_csv defaults (comma, header row, '"' quoting; an empty cell becomes NaN).
The only column HELM reads is "MO Note" (free-text care-plan / visit note; multi-line notes must be quoted). Any
other columns are UNKNOWN and not written (the scenario's comment '["text", "target", ...]' is stale).
HELM (chw_care_plan_scenario): one TEST instance per row, in file order; rows whose "MO Note" is NaN (empty cell)
are skipped (fixture row 3, written as "" by csv.writer; pandas reads it as NaN, pyarrow as ""). A whitespace-only \
cell is NOT NaN and would be kept (not in fixture). Input = a fixed
extraction instruction (Chief Complaint + History of Present Illness fields: Onset, Provoking/Palliating Factors,
Quality, Region/Radiation, Severity, Timing, Related Symptoms; "Not mentioned" when absent) followed by
"Clinical Note:\\n<note>". There is no gold output: the reference is the note itself (the jury scores structure).
"""

NOTES = [
    "Client is a 34 year old female seen at home. Complains of lower back pain for 3 days, started after lifting "
    "water containers. Pain is dull, worse when bending, 6/10. No fever.\nReferred to health facility; advised rest.",
    "Follow-up visit for a 62 year old male with hypertension. Reports headaches in the morning for one week. BP "
    "160/95. Taking amlodipine irregularly. Counselled on adherence.",
    None,  # empty cell -> NaN -> skipped
    "Mother of 2-year-old reports child has had diarrhea since yesterday, 5 watery stools, still breastfeeding. "
    "ORS and zinc given; danger signs explained.",
]


def write(folder: pathlib.Path) -> dict:
    d = pathlib.Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    with open(d / "CHW_Dataset.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["MO Note"])
        for n in NOTES:
            w.writerow(["" if n is None else n])
    exp = [{"gold": n, "input_must_contain": ["Clinical Note:\n" + n, "Chief Complaint", "Not mentioned"],
            "input_must_not_contain": []} for n in NOTES if n is not None]
    return {"params": {"data_path": "CHW_Dataset.csv"}, "splits": {"test": exp}, "dropped": {"test": 1}}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        e = write(pathlib.Path(tmp))
        with open(pathlib.Path(tmp) / "CHW_Dataset.csv", encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == 4 and rows[2]["MO Note"] == ""
        got = [r["MO Note"] for r in rows if r["MO Note"] != ""]
        inst = e["splits"]["test"]
        assert len(got) == len(inst) == 3 and all(g == x["gold"] for g, x in zip(got, inst))
        import pyarrow.csv as pacsv
        t = pacsv.read_csv(pathlib.Path(tmp) / "CHW_Dataset.csv",
                           parse_options=pacsv.ParseOptions(newlines_in_values=True))
        assert t.num_rows == 4 and t.column("MO Note").to_pylist()[2] == ""  # pandas reads this cell as NaN
    print("chw_care_plan fixture OK")
