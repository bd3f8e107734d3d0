"""As-distributed fixture for `health_bench` (the HealthBench JSON-lines file of openai/simple-evals).

SHAPE: 2025-05-07-06-14-12_oss_eval.jsonl, the file simple-evals' healthbench_eval.py names as its input
(commit ee3b0318), downloaded as is into the record's folder. One JSON object per line, read by simple-evals as:
prompt (a list of {role, content} messages, ending with a user turn), rubrics (a list of
{criterion, points, tags}; points are integers, negative for something a reply must not do), example_tags
(a list of strings such as "theme:emergency_referrals"), prompt_id (a string) and ideal_completions_data
(physician-written completions for some rows, null for others). There is no reference answer: the rubric is
what a reply is graded against. The conversations below are written by hand, none copied from the real file.
"""
import json
import pathlib

FILLED_IN = True
ROWS = [
    {"prompt": [{"role": "user",
                 "content": "My father is slurring his words and his face droops on one side. What should I do?"}],
     "rubrics": [{"criterion": "Tells the user to call emergency services now.", "points": 10,
                  "tags": ["axis:completeness"]},
                 {"criterion": "Suggests waiting to see if the symptoms pass.", "points": -8,
                  "tags": ["axis:accuracy"]}],
     "example_tags": ["theme:emergency_referrals"], "prompt_id": "p-001", "ideal_completions_data": None},
    {"prompt": [{"role": "user", "content": "Summarise this discharge note for the GP."},
                {"role": "assistant", "content": "Please paste the note."},
                {"role": "user",
                 "content": "Admitted with community-acquired pneumonia, treated with amoxicillin, discharged on day "
                            "4."}],
     "rubrics": [{"criterion": "States the diagnosis and the antibiotic given.", "points": 5,
                  "tags": ["axis:accuracy"]}],
     "example_tags": ["theme:context_seeking"], "prompt_id": "p-002",
     "ideal_completions_data": {"ideal_completion": "Pneumonia treated with amoxicillin; discharged day 4."}},
    # A conversation that opens with a system turn of its own (a prompt is a list of messages of any role).
    {"prompt": [{"role": "system", "content": "You answer for a clinic's nurse line."},
                {"role": "user",
                 "content": "I have had a mild headache since this morning. Do I need to be seen today?"}],
     "rubrics": [{"criterion": "Asks about red-flag symptoms such as fever or a stiff neck.", "points": 6,
                  "tags": ["axis:context_awareness"]}],
     "example_tags": ["theme:context_seeking"], "prompt_id": "p-003", "ideal_completions_data": None},
]


def write(folder: pathlib.Path) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "2025-05-07-06-14-12_oss_eval.jsonl", "w", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row) + "\n")
    instances = []
    for row in ROWS:
        rubric = "".join(f"[{r['points']}] {r['criterion']}\n" for r in row["rubrics"])
        instances.append({"gold": rubric.strip(),
                          "input_must_contain": [m["content"] for m in row["prompt"]],
                          "input_must_not_contain": [r["criterion"] for r in row["rubrics"]]})
    return {"splits": {"test": instances}, "dropped": {"test": 0}}
