"""Synthetic as-distributed fixture for shc_sequoia_med (private Stanford CSV medhelm-sequoia-dataset_filtered.csv)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _shc  # noqa: E402

SHAPE = """\
Private file medhelm-sequoia-dataset_filtered.csv (Stanford Health Care; facts shc_sequoia_med.source), passed to HELM \
as data_path
(run_entries_medhelm_private_stanford.conf: /dbfs/mnt/azure_adbfs/Files/medhelm/medhelm-sequoia-dataset_filtered.csv). \
write() puts
folder/medhelm-sequoia-dataset_filtered.csv.
Task: Sequoia clinic referral notes: yes/no referral questions (A yes, B no).
Format: CSV with a header row, read by csv.DictReader(open(path, "r")) (platform default encoding, UTF-8 assumed).
Columns HELM reads: question, context, label (shc_sequoia_scenario.py (SHCSequoiaMedScenario); facts shc_sequoia_med \
(fields_read question, context, label - the only shc_* CSV with 'question')). Other columns / column order of the real \
file
are unknown - only these three are written, in this order, "\\n" line ends, QUOTE_MINIMAL (unverified).
label holds the answer LETTER itself (no mapping); HELM asserts label in ['A', 'B'] (no strip: " A" would crash).
A running counter (1, 2, ... over ALL rows) is prefixed to every prompt, so duplicate (question, context) rows do NOT \
collapse - contradicts the facts file's blanket shc_csv_dedup note. No row filter.
Instance: input = " {counter} Provide an answer to the following question: {question} with the following context: \
{context} , Answer the question with a 'A' for yes or 'B' for no. ..." (note the leading space); references = ['A', \
'B'] with the CSV letter tagged correct (gold = that letter);
split "test", CSV order (dict insertion order).
Fixture: 4 rows; row 3 repeats row 1 and is KEPT as its own instance (counter 3). dropped = 0."""

FILE = "medhelm-sequoia-dataset_filtered.csv"
COLUMNS = ["question", "context", "label"]
CHOICES = ['A', 'B']
# (question, context, label) in file order
ROWS = [
    ('Has the patient had prior imaging of the liver?',
     'Referral: elevated ALT x2. Abdominal ultrasound 03/2023 showed hepatic steatosis.', 'A'),
    ('Is the referral marked urgent?', 'Referral: routine follow-up of fatty liver, no red flags.', 'B'),
    ('Has the patient had prior imaging of the liver?',
     'Referral: elevated ALT x2. Abdominal ultrasound 03/2023 showed hepatic steatosis.', 'A'),
    ('Is the patient on anticoagulation?', 'Meds: apixaban 5 mg BID, metformin 500 mg; referred for GI bleed work-up.',
     'A'),
]


def write(folder: pathlib.Path) -> dict:
    return _shc.write(folder, FILE, COLUMNS, ROWS,
                      _shc.numbered(ROWS, skip_empty_labels=False, count_every_row=True, lead=" "))
