"""Regenerate the two Inspect logs in this folder with the real Inspect AI on its mock model (no network).

    python make_inspect_logs.py     # in an environment with inspect_ai; writes logs/*.eval and logs_json/*.json

The task is named like the interop exports (`clinreg_<mapping id>`); the solver answers without calling a model
(odd sample ids right, even ones wrong), so the logs hold accuracy 0.6 over 5 samples. Inspect compresses the
.eval members with Zstandard.
"""

from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import match
from inspect_ai.solver import solver


@solver
def answer_without_a_model():
    async def solve(state, generate):
        state.output = ModelOutput.from_content(model="mockllm/model", content="A" if int(state.sample_id) % 2 else "B")
        return state

    return solve


@task
def clinreg_med_qa():
    return Task(dataset=[Sample(input="Say A", target="A", id=i) for i in range(1, 6)],
                solver=answer_without_a_model(), scorer=match())


if __name__ == "__main__":
    eval(clinreg_med_qa(), model="mockllm/model", log_dir="logs", display="none")
    eval(clinreg_med_qa(), model="mockllm/model", log_dir="logs_json", log_format="json", display="none")
