

# ----------------------------------------------------------------------------------------- Inspect AI tasks

import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, choice, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate, multiple_choice

HERE = Path(__file__).resolve().parent


def read_samples(data_file):
    """Samples of one exported JSON-lines file: for closed tasks the stem as input and the options as choices."""
    samples = []
    with (HERE / data_file).open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            gold = doc["gold"]
            metadata = {key: doc[key] for key in ("dataset", "mapping", "split", "tasks", "variant", "gold",
                                                  "references", "context", "provenance")}
            if gold["kind"] == "choice":
                samples.append(Sample(input=doc["input"], choices=doc["choices"], target=gold["letter"],
                                      id=doc["id"], metadata=metadata))
            else:
                samples.append(Sample(input=doc["prompt"], target=gold["value"], id=doc["id"], metadata=metadata))
    return samples


@scorer(metrics=[accuracy(), stderr()])
def numeric_range():
    """Correct when the completion's first number lies in the gold range (or equals a non-numeric gold)."""

    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion
        hit = in_range(completion, state.metadata["gold"])
        return Score(value=CORRECT if hit else INCORRECT, answer=completion)

    return score


@scorer(metrics=[mean(), stderr()])
def reference_overlap():
    """Token-overlap F1 against the reference text: a cheap stand-in for MedHELM's LLM-jury scoring."""

    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion
        return Score(value=token_f1(completion, target.text), answer=completion)

    return score


def clinreg_task(name, kind, data_file):
    """One exported mapping as an Inspect task, with the solver and scorer of its gold kind."""
    dataset = MemoryDataset(read_samples(data_file), name=name)
    if kind == "choice":
        return Task(dataset=dataset, solver=multiple_choice(), scorer=choice(), name=name, metadata=MAPPINGS[name])
    return Task(dataset=dataset, solver=generate(), scorer=numeric_range() if kind == "number" else reference_overlap(),
                name=name, metadata=MAPPINGS[name])


def tasks_in(group):
    """The tasks of a subcategory or category id (or of `all`), e.g. `inspect_ai.eval(tasks_in("planning_treatments"))`."""
    names = sorted(MAPPINGS) if group == "all" else SUBCATEGORIES.get(group) or CATEGORIES.get(group)
    if names is None:
        raise KeyError(f"no subcategory or category {group!r} in this export (see SUBCATEGORIES and CATEGORIES)")
    return [globals()[name]() for name in names]
