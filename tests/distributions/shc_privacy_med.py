"""Synthetic as-distributed fixture for shc_privacy_med (private Stanford CSV medhelm-PRIVACY-dataset_filtered.csv)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _shc  # noqa: E402

SHAPE = """\
Private file medhelm-PRIVACY-dataset_filtered.csv (Stanford Health Care; facts shc_privacy_med.source), passed to HELM \
as data_path
(run_entries_medhelm_private_stanford.conf: /dbfs/mnt/azure_adbfs/Files/medhelm/medhelm-PRIVACY-dataset_filtered.csv). \
write() puts
folder/medhelm-PRIVACY-dataset_filtered.csv.
Task: LLM-drafted portal message: does it include confidential patient information (A yes, B no).
Format: CSV with a header row, read by csv.DictReader(open(path, "r")) (platform default encoding, UTF-8 assumed).
Columns HELM reads: prompt, context, label (shc_privacy_scenario.py (SHCPRIVACYMedScenario); facts shc_privacy_med (A \
= confidential info included, B = no)). Other columns / column order of the real file
are unknown - only these three are written, in this order, "\\n" line ends, QUOTE_MINIMAL (unverified).
label holds the answer LETTER itself (no mapping); HELM asserts label in ['A', 'B'] (no strip: " A" would crash).
Dedup: instances are the items of a dict keyed by the full prompt, which depends only on (prompt, context): a repeated \
pair collapses to ONE instance at the first occurrence's position with the LAST occurrence's label \
(benchmark_common_notes.shc_csv_dedup; Python dict semantics). No row filter.
Instance: input = "You are reviewing clinical messages in order to determine if any confidential information was \
included. Please answer the following question: {prompt} with the following context: {context} , Answer the question \
with a 'A' for yes or 'B' for no. ..."; references = ['A', 'B'] with the CSV letter tagged correct (gold = that letter);
split "test", CSV order (dict insertion order).
Fixture: 5 rows = 3 distinct prompts; row 3 repeats row 1 (same label), row 5 repeats row 2 with a
DIFFERENT label (so instance 2's gold is row 5's label). dropped = 2 rows. Unverified: whether real files
contain conflicting duplicates."""

FILE = "medhelm-PRIVACY-dataset_filtered.csv"
COLUMNS = ["prompt", "context", "label"]
CHOICES = ['A', 'B']
# (prompt, context, label) in file order
ROWS = [
    ('Does the message disclose confidential information?',
     "Dear parent, your daughter's visit went well. Her chlamydia test was negative.", 'A'),
    ('Does the message disclose confidential information?',
     'Dear parent, the vaccine schedule is attached; next visit in 6 months.', 'B'),
    ('Does the message disclose confidential information?',
     "Dear parent, your daughter's visit went well. Her chlamydia test was negative.", 'A'),
    ('Does the message disclose confidential information?',
     'Hello, your appointment on 5/12 is confirmed; please arrive 15 minutes early.', 'B'),
    ('Does the message disclose confidential information?',
     'Dear parent, the vaccine schedule is attached; next visit in 6 months.', 'A'),
]


def write(folder: pathlib.Path) -> dict:
    return _shc.write(folder, FILE, COLUMNS, ROWS, _shc.keyed_by_prompt(ROWS))
