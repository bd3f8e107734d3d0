"""As-distributed fixture for `med_agent_bench` (GitHub stanfordmlgroup/MedAgentBench, the task file).

SHAPE: data/medagentbench/test_data_v2.json, one JSON array of task objects, beside
data/medagentbench/funcs_v1.json (the FHIR function catalogue, a JSON array the agent's prompt lists; not read
by the record). Task fields, as read in the v1 task file (data/medagentbench/test_data_v1.json as indexed under
THUDM/AgentBench, commit 086de7c3) and in third-party adapters quoting v2 rows: id ("task<family>_<n>"),
instruction, context (the current time and coding or dosing rules, often empty), eval_MRN (the patient), and
sol (a list of expected answers) only on the tasks whose answer is fixed in advance; in v1 only the
patient-lookup family carries it. The other tasks are graded from the FHIR server. test_data_v2.json itself was
not read. Tasks below are written by hand, none copied from the real file.
"""
import json
import pathlib

FILLED_IN = True
TASKS = [
    {"id": "task1_1", "instruction": "What is the MRN of the patient named Ada Quill, born 1961-04-09?",
     "context": "", "sol": ["S0000001"], "eval_MRN": "S0000001"},
    {"id": "task3_1", "instruction": "Record the patient's blood pressure of 128/82 mmHg taken now.",
     "context": "It is 2023-11-13T10:15:00+00:00 now. The flowsheet ID for blood pressure is BP.",
     "eval_MRN": "S0000002"},
    {"id": "task1_2", "instruction": "What is the MRN of the patient named Tom Vale, born 1949-12-30? "
     "If the patient does not exist, answer \"Patient not found\".",
     "context": "", "sol": ["Patient not found"], "eval_MRN": "S0000003"},
    {"id": "task5_1", "instruction": "Check the last serum magnesium and, if it is low, order replacement.",
     "context": "It is 2023-11-13T10:15:00+00:00 now. Use NDC 0338-1715-40 for IV magnesium.", "eval_MRN": "S0000004"},
]
FUNCS = [{"name": "GET {api_base}/Patient", "description": "Search patients by name and birth date.", "parameters": {}}]


def write(folder: pathlib.Path) -> dict:
    base = folder / "data" / "medagentbench"
    base.mkdir(parents=True, exist_ok=True)
    (base / "test_data_v2.json").write_text(json.dumps(TASKS, indent=2), encoding="utf-8")
    (base / "funcs_v1.json").write_text(json.dumps(FUNCS, indent=2), encoding="utf-8")
    kept = [t for t in TASKS if t.get("sol")]
    return {"splits": {"test": [{"gold": "; ".join(t["sol"]), "input_must_contain": [t["instruction"]]} for t in kept]},
            "dropped": {"test": len(TASKS) - len(kept)}}
