"""Synthetic as-distributed fixture for shc_gip_med (private Stanford CSV medhelm-GIP-dataset_filtered.csv)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _shc  # noqa: E402

SHAPE = """\
Private file medhelm-GIP-dataset_filtered.csv (Stanford Health Care; facts shc_gip_med.source), passed to HELM as \
data_path
(run_entries_medhelm_private_stanford.conf: /dbfs/mnt/azure_adbfs/Files/medhelm/medhelm-GIP-dataset_filtered.csv). \
write() puts
folder/medhelm-GIP-dataset_filtered.csv.
Task: palliative-care note: is a general-inpatient (GIP) hospice referral appropriate (A yes, B no).
Format: CSV with a header row, read by csv.DictReader(open(path, "r")) (platform default encoding, UTF-8 assumed).
Columns HELM reads: prompt, context, label (shc_gip_scenario.py (SHCGIPMedScenario); facts shc_gip_med (A = yes, B = \
no)). Other columns / column order of the real file
are unknown - only these three are written, in this order, "\\n" line ends, QUOTE_MINIMAL (unverified).
label holds the answer LETTER itself (no mapping); HELM asserts label in ['A', 'B'] (no strip: " A" would crash).
Dedup: instances are the items of a dict keyed by the full prompt, which depends only on (prompt, context): a repeated \
pair collapses to ONE instance at the first occurrence's position with the LAST occurrence's label \
(benchmark_common_notes.shc_csv_dedup; Python dict semantics). No row filter.
Instance: input = "Provide an answer to the following question: {prompt} with the following context: {context} , \
Answer the question with a 'A' for yes or 'B' for no. ..."; references = ['A', 'B'] with the CSV letter tagged correct \
(gold = that letter);
split "test", CSV order (dict insertion order).
Fixture: 5 rows = 3 distinct prompts; row 3 repeats row 1 (same label), row 5 repeats row 2 with a
DIFFERENT label (so instance 2's gold is row 5's label). dropped = 2 rows. Unverified: whether real files
contain conflicting duplicates."""

FILE = "medhelm-GIP-dataset_filtered.csv"
COLUMNS = ["prompt", "context", "label"]
CHOICES = ['A', 'B']
# (prompt, context, label) in file order
ROWS = [
    ('Does the patient qualify for general inpatient hospice?',
     'Metastatic pancreatic cancer, uncontrolled pain on IV hydromorphone PCA, goals comfort-focused.', 'A'),
    ('Does the patient qualify for general inpatient hospice?',
     'CHF, symptoms controlled on oral meds, wishes to go home with family.', 'B'),
    ('Does the patient qualify for general inpatient hospice?',
     'Metastatic pancreatic cancer, uncontrolled pain on IV hydromorphone PCA, goals comfort-focused.', 'A'),
    ('Does the patient qualify for general inpatient hospice?',
     'COPD, stable on home oxygen, routine home hospice, no acute symptoms.', 'B'),
    ('Does the patient qualify for general inpatient hospice?',
     'CHF, symptoms controlled on oral meds, wishes to go home with family.', 'A'),
]


def write(folder: pathlib.Path) -> dict:
    return _shc.write(folder, FILE, COLUMNS, ROWS, _shc.keyed_by_prompt(ROWS))
