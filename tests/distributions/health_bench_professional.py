"""As-distributed fixture for `health_bench_professional` (the HealthBench Professional zip of openai/simple-evals).

SHAPE: assets.zip, downloaded as is from the blob URL that medhelm 0.8.0's HealthBenchProfessionalScenario names
(helm/benchmark/scenarios/health_bench_scenario.py), holding healthbench_professional_eval.jsonl. Third-party code
reads that member at the top level of the zip; the zip's other entries (HELM's unpacking implies there are some)
were not identified and are not written. One JSON object per line. The scenario reads conversation (an object
whose `messages` is a list of {role, content}), rubric_items (a list; the annotator reads each item's `points`,
negative for something a reply must not do, and shows the whole item to the judge), id and physician_response (a
physician's own reply, which the judge compares with the model's). use_case, type, difficulty, specialty,
canary_string and the rubric items' criterion_text come from a third-party description of the file (unverified).
HELM's instance: the messages as a chat input, no references, one instance per line. The tasks below are written
by hand, none copied from the real file.
"""
import json
import pathlib
import zipfile

FILLED_IN = True
ROWS = [
    {"id": "hbp-001",
     "conversation": {"messages": [{"role": "user",
                                    "content": "58-year-old with new atrial fibrillation, CHA2DS2-VASc 3, "
                                    "eGFR 38. Which anticoagulant and dose would you choose, and why?"}]},
     "rubric_items": [{"criterion_text": "Adjusts the anticoagulant dose for the reduced kidney function.",
                       "points": 8},
                      {"criterion_text": "Recommends aspirin alone for stroke prevention.", "points": -9}],
     "use_case": "consult", "type": "good_faith", "difficulty": "typical", "specialty": "cardiology",
     "physician_response": "Apixaban 5 mg twice daily; dose reduction criteria are not met with eGFR 38 alone.",
     "canary_string": "canary-example-0001"},
    {"id": "hbp-002",
     "conversation": {"messages": [{"role": "user", "content": "Draft a discharge summary from these notes."},
                                   {"role": "assistant", "content": "Please paste the notes."},
                                   {"role": "user",
                                    "content": "Admitted with DKA, insulin infusion 24 h, transitioned to "
                                    "basal-bolus, discharged day 3 with diabetes education."}]},
     "rubric_items": [{"criterion_text": "States the diagnosis of diabetic ketoacidosis.", "points": 5}],
     "use_case": "documentation", "type": "good_faith", "difficulty": "difficult", "specialty": "endocrinology",
     "physician_response": "Diagnosis: diabetic ketoacidosis. Course: insulin infusion, then basal-bolus insulin; "
                           "discharged on day 3 after education.",
     "canary_string": "canary-example-0002"},
]


def write(folder: pathlib.Path) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(row) + "\n" for row in ROWS)
    with zipfile.ZipFile(folder / "assets.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("healthbench_professional_eval.jsonl", lines)
    instances = [{"gold": row["physician_response"],
                  "input_must_contain": [m["content"] for m in row["conversation"]["messages"]],
                  "input_must_not_contain": [row["physician_response"]] + [r["criterion_text"]
                                                                           for r in row["rubric_items"]]}
                 for row in ROWS]
    return {"splits": {"test": instances}, "dropped": {"test": 0}}
