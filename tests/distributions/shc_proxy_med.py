"""Synthetic as-distributed fixture for shc_proxy_med (private Stanford CSV medhelm-PROXY-dataset_filtered.csv)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _shc  # noqa: E402

SHAPE = """\
Private file medhelm-PROXY-dataset_filtered.csv (Stanford Health Care; facts shc_proxy_med.source), passed to HELM as \
data_path
(run_entries_medhelm_private_stanford.conf: /dbfs/mnt/azure_adbfs/Files/medhelm/medhelm-PROXY-dataset_filtered.csv). \
write() puts
folder/medhelm-PROXY-dataset_filtered.csv.
Task: patient-portal message: was it sent by a proxy user (A yes, B no; C allowed by the assert but undefined in the \
prompt).
Format: CSV with a header row, read by csv.DictReader(open(path, "r")) (platform default encoding, UTF-8 assumed).
Columns HELM reads: prompt, context, label (shc_proxy_scenario.py (SHCPROXYMedScenario); facts shc_proxy_med (label \
one of A,B,C asserted; instruction inconsistency)). Other columns / column order of the real file
are unknown - only these three are written, in this order, "\\n" line ends, QUOTE_MINIMAL (unverified).
label holds the answer LETTER itself (no mapping); HELM asserts label in ['A', 'B', 'C'] (no strip: " A" would crash).
Dedup: instances are the items of a dict keyed by the full prompt, which depends only on (prompt, context): a repeated \
pair collapses to ONE instance at the first occurrence's position with the LAST occurrence's label \
(benchmark_common_notes.shc_csv_dedup; Python dict semantics). No row filter.
Instance: input = "You are reviewing a clinical messages in order to determine if they have been sent by a proxy user. \
Please determine the following: {prompt} with the following context: {context} , Answer the question with a 'A' for \
yes or 'B' for no. ..."; references = ['A', 'B', 'C'] with the CSV letter tagged correct (gold = that letter);
split "test", CSV order (dict insertion order).
Fixture: 5 rows = 3 distinct prompts; row 3 repeats row 1 (same label), row 5 repeats row 2 with a
DIFFERENT label (so instance 2's gold is row 5's label). dropped = 2 rows. Unverified: whether real files
contain conflicting duplicates."""

FILE = "medhelm-PROXY-dataset_filtered.csv"
COLUMNS = ["prompt", "context", "label"]
CHOICES = ['A', 'B', 'C']
# (prompt, context, label) in file order
ROWS = [
    ('Was this message sent by someone other than the patient?',
     "Hi Dr. Lee, my son (he's 15) has had a fever since Tuesday, should I bring him in? - Mom", 'A'),
    ('Was this message sent by someone other than the patient?',
     'Can I get a refill of my inhaler before my trip? Thanks, Jordan', 'B'),
    ('Was this message sent by someone other than the patient?',
     "Hi Dr. Lee, my son (he's 15) has had a fever since Tuesday, should I bring him in? - Mom", 'A'),
    ('Was this message sent by someone other than the patient?', 'Please call back re: results.', 'C'),
    ('Was this message sent by someone other than the patient?',
     'Can I get a refill of my inhaler before my trip? Thanks, Jordan', 'A'),
]


def write(folder: pathlib.Path) -> dict:
    return _shc.write(folder, FILE, COLUMNS, ROWS, _shc.keyed_by_prompt(ROWS))
