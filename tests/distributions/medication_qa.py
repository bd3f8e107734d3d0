"""Synthetic as-distributed fixture for medication_qa (MedInfo 2019 medication QA spreadsheet)."""
import pathlib

SHAPE = """\
HELM source (write): GitHub abachaa/Medication_QA_MedInfo2019, branch master (not pinned), file
MedInfo2019-QA-Medications.xlsx at the repo root (medication_qa_scenario.py SOURCE_REPO_URL + FILENAME; facts
medication_qa.source). 690 data rows (SOURCES.md "Datasets not included"; hub card num_examples 690).
Format: Excel workbook, first sheet, header row then one row per question; columns in order Question,
Focus (Drug), Question Type, Answer, Section Title, URL (SOURCES.md; hub card feature names). All text cells.
HELM: pandas.read_excel(path) (first sheet, row 1 = header); rows whose Answer is NaN (empty cell) are dropped
(data[~data.Answer.isna()]); input = Question verbatim, single reference = Answer (gold = Answer text),
split "test", sheet order kept, no dedup. Facts: 689 evaluated -> exactly one empty-Answer row in the real file
(nature_table1_evaluated 689 vs 690 rows; inferred).
Hub copy (write_hub): truehealth/medicationqa, data/train-00000-of-00001-7427a10e891759be.parquet (train only,
690 rows), six string columns with the same names (hub README dataset_info); the hub repo also carries a copy of
the workbook named "MedInfo2019-QA-Medications (1).xlsx" at its root (hub tree listing) - written too.
Unverified: sheet name (written as "Sheet1"), cell styles, whether the real empty Answer is an empty cell or
whitespace (here: empty cell -> None/NaN), value types of Focus/URL.
"""

COLUMNS = ["Question", "Focus (Drug)", "Question Type", "Answer", "Section Title", "URL"]
ROWS = [
    ["how does rivatigmine and otc sleep medicine interact", "rivastigmine", "Interaction",
     "tell your doctor and pharmacist what prescription and nonprescription medications you are taking, "
     "especially antihistamines or sleep aids.", "Precautions", "https://example.org/druginfo/rivastigmine"],
    ["what is the max dose of ibuprofen a day", "Ibuprofen", "Usage",
     "Do not take more than 1200 mg a day without a doctor's advice.", "Dosage",
     "https://example.org/druginfo/ibuprofen"],
    ["can i take metformin while pregnant", "Metformin", "Safety",
     None, None, None],  # empty Answer -> dropped by HELM
    ["how long does amoxicillin stay in your system", "Amoxicillin", "Action",
     "Amoxicillin has a half-life of about one hour;\nit is mostly cleared within 8 hours.", "Pharmacokinetics",
     "https://example.org/druginfo/amoxicillin"],
]


def _expected():
    out = []
    for r in ROWS:
        if r[3] is None:
            continue
        out.append({"gold": r[3], "input_must_contain": [r[0]], "input_must_not_contain": [r[3][:30]]})
    return {"splits": {"test": out}, "dropped": {"test": 1}}


def _workbook(path):
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append(COLUMNS)
    for r in ROWS:
        ws.append(r)
    wb.save(path)


def write(folder: pathlib.Path) -> dict:
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _workbook(folder / "MedInfo2019-QA-Medications.xlsx")
    return _expected()


def write_hub(folder: pathlib.Path) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = pathlib.Path(folder)
    (folder / "data").mkdir(parents=True, exist_ok=True)
    schema = pa.schema([(c, pa.string()) for c in COLUMNS])
    t = pa.Table.from_pylist([dict(zip(COLUMNS, r)) for r in ROWS], schema=schema)
    pq.write_table(t, folder / "data" / "train-00000-of-00001-7427a10e891759be.parquet")
    _workbook(folder / "MedInfo2019-QA-Medications (1).xlsx")
    feats = "".join(f"  - name: {c}\n    dtype: string\n" for c in COLUMNS)
    (folder / "README.md").write_text(
        f"---\ndataset_info:\n  features:\n{feats}  splits:\n  - name: train\n    num_examples: {len(ROWS)}\n---\n",
        encoding="utf-8")
    exp = _expected()
    exp["hub_split"] = "train"
    return exp


if __name__ == "__main__":
    import tempfile
    from openpyxl import load_workbook
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        exp = write(root / "gh")
        ws = load_workbook(root / "gh" / "MedInfo2019-QA-Medications.xlsx").worksheets[0]
        rows = list(ws.iter_rows(values_only=True))
        assert list(rows[0]) == COLUMNS and len(rows) == 1 + len(ROWS)
        kept = [r for r in rows[1:] if r[3] is not None]
        assert [r[3] for r in kept] == [e["gold"] for e in exp["splits"]["test"]]
        write_hub(root / "hub")
        t = pq.read_table(root / "hub" / "data" / "train-00000-of-00001-7427a10e891759be.parquet")
        assert t.column_names == COLUMNS and t.num_rows == 4 and t.column("Answer").null_count == 1
    print("medication_qa fixture OK")
