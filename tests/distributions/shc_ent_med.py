"""Synthetic as-distributed fixture for shc_ent_med (private Stanford CSV medhelm-ENT-dataset_filtered.csv)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _shc  # noqa: E402

SHAPE = """\
Private file medhelm-ENT-dataset_filtered.csv (Stanford Health Care; facts shc_ent_med.source), passed to HELM as \
data_path
(run_entries_medhelm_private_stanford.conf: /dbfs/mnt/azure_adbfs/Files/medhelm/medhelm-ENT-dataset_filtered.csv). \
write() puts
folder/medhelm-ENT-dataset_filtered.csv.
Task: ENT referral: does the note support a referral / mention the finding (A yes, B no, C no mention).
Format: CSV with a header row, read by csv.DictReader(open(path, "r")) (platform default encoding, UTF-8 assumed).
Columns HELM reads: prompt, context, label (shc_ent_scenario.py (SHCENTMedScenario); facts shc_ent_med (fields_read, \
filters, label A/B/C)). Other columns / column order of the real file
are unknown - only these three are written, in this order, "\\n" line ends, QUOTE_MINIMAL (unverified).
label holds the answer LETTER itself (no mapping); HELM asserts label in ['A', 'B', 'C'] (no strip: " A" would crash).
Filter: rows with label == "" are skipped (code comment: rows with character/encoding issues, 79 of them; facts \
filters). A running counter (1, 2, ... over KEPT rows) is prefixed to every prompt, so duplicate (prompt, context) \
rows do NOT collapse - this contradicts the facts file's blanket shc_csv_dedup note.
Instance: input = "{counter} Provide an answer to the following question: {prompt} with the following context: \
{context} , Answer the question with either 'A' for yes, 'B' for no, or 'C' for no mention. ..."; references = ['A', \
'B', 'C'] with the CSV letter tagged correct (gold = that letter);
split "test", CSV order (dict insertion order).
Fixture: 6 rows; row 2 has an empty label (dropped), row 4 repeats row 1 and is KEPT (counter 3),
row 6 is a 'C' (no mention). dropped = 1."""

FILE = "medhelm-ENT-dataset_filtered.csv"
COLUMNS = ["prompt", "context", "label"]
CHOICES = ['A', 'B', 'C']
# (prompt, context, label) in file order
ROWS = [
    ('Does the patient report hearing loss?',
     'Referral note: 58M with 6 months of progressive right-sided hearing loss, "muffled" sound, no vertigo.', 'A'),
    ('Does the patient report hearing loss?',
     'Referral note: 40F, nasal obstruction; text garbled â\x80\x99 in export.', ''),
    ('Is there a history of chronic sinusitis?',
     'Referral note: 33F with recurrent sinus infections, 4 courses of antibiotics this year.\nCT sinus ordered.', 'A'),
    ('Does the patient report hearing loss?',
     'Referral note: 58M with 6 months of progressive right-sided hearing loss, "muffled" sound, no vertigo.', 'A'),
    ('Is there a history of tonsillectomy?',
     'Referral note: 12M, snoring, enlarged tonsils, no surgical history documented, sleep study pending.', 'B'),
    ('Does the patient have a neck mass?', 'Referral note: 70F for dysphagia evaluation; no comment on neck exam.',
     'C'),
]


def write(folder: pathlib.Path) -> dict:
    return _shc.write(folder, FILE, COLUMNS, ROWS, _shc.numbered(ROWS, skip_empty_labels=True, count_every_row=False))
