"""Synthetic as-distributed fixture for shc_ptbm_med (private Stanford CSV medhelm-PTBM-dataset_filtered.csv)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _shc  # noqa: E402

SHAPE = """\
Private file medhelm-PTBM-dataset_filtered.csv (Stanford Health Care; facts shc_ptbm_med.source), passed to HELM as \
data_path
(run_entries_medhelm_private_stanford.conf: /dbfs/mnt/azure_adbfs/Files/medhelm/medhelm-PTBM-dataset_filtered.csv). \
write() puts
folder/medhelm-PTBM-dataset_filtered.csv.
Task: ADHD primary-care note (ages 4-6): does the clinician recommend parent training in behavior management (A yes, B \
no).
Format: CSV with a header row, read by csv.DictReader(open(path, "r")) (platform default encoding, UTF-8 assumed).
Columns HELM reads: prompt, context, label (shc_ptbm_scenario.py (SHCPTBMMedScenario); facts shc_ptbm_med (label \
letter already in CSV: A = PTBM recommended, B = no)). Other columns / column order of the real file
are unknown - only these three are written, in this order, "\\n" line ends, QUOTE_MINIMAL (unverified).
label holds the answer LETTER itself (no mapping); HELM asserts label in ['A', 'B'] (no strip: " A" would crash).
Dedup: instances are the items of a dict keyed by the full prompt, which depends only on (prompt, context): a repeated \
pair collapses to ONE instance at the first occurrence's position with the LAST occurrence's label \
(benchmark_common_notes.shc_csv_dedup; Python dict semantics). No row filter.
Instance: input = "You are reviewing a clinical note from health records of children with attention deficit \
hyperactivity disorder (ADHD) and classifying mentions of behavioral therapy. Provide an answer to the following \
question: {prompt} with the following context: {context} , Answer the question with a 'A' for yes or 'B' for no. ..."; \
references = ['A', 'B'] with the CSV letter tagged correct (gold = that letter);
split "test", CSV order (dict insertion order).
Fixture: 5 rows = 3 distinct prompts; row 3 repeats row 1 (same label), row 5 repeats row 2 with a
DIFFERENT label (so instance 2's gold is row 5's label). dropped = 2 rows. Unverified: whether real files
contain conflicting duplicates."""

FILE = "medhelm-PTBM-dataset_filtered.csv"
COLUMNS = ["prompt", "context", "label"]
CHOICES = ['A', 'B']
# (prompt, context, label) in file order
ROWS = [
    ('Does the clinician recommend parent training in behavior management?',
     '5yo with ADHD symptoms at preschool. Referred parents to PCIT (parent-child interaction therapy).', 'A'),
    ('Does the clinician recommend parent training in behavior management?',
     '6yo, ADHD combined type. Started methylphenidate 5 mg, follow up 4 weeks.', 'B'),
    ('Does the clinician recommend parent training in behavior management?',
     '5yo with ADHD symptoms at preschool. Referred parents to PCIT (parent-child interaction therapy).', 'A'),
    ('Does the clinician recommend parent training in behavior management?',
     '5yo, follow-up for "ear infection"; ADHD not addressed at this visit.', 'B'),
    ('Does the clinician recommend parent training in behavior management?',
     '6yo, ADHD combined type. Started methylphenidate 5 mg, follow up 4 weeks.', 'A'),
]


def write(folder: pathlib.Path) -> dict:
    return _shc.write(folder, FILE, COLUMNS, ROWS, _shc.keyed_by_prompt(ROWS))
