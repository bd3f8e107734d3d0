"""Record an Inspect log of clinreg's HealthBench task, for the import tests (run in an environment with inspect_ai
and clinreg; no network):

    python tests/results/data/inspect_health_bench/record.py

It exports health_bench with `clinreg export inspect` (files shaped as distributed: our own fixture writer, no real
data; 3 conversations) and runs its task with Inspect's mock model as the evaluated model and as the grader (the
model role `grader`), which says every criterion is met. The grader template is a stand-in of clinreg's words with
simple-evals' two placeholders (the log keeps every grader prompt; simple-evals' text stays out of the repository).
The conversations score 0.2, 1.0 and 1.0 (see tests/interop/test_inspect_rubric.py), so the log's
healthbench_simple_evals_score is 2.2 / 3. It keeps the `.eval` archive as Inspect wrote it.
"""

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
sys.path.insert(0, str(REPO / "tests"))

from interop.support import jury_export  # noqa: E402

MET = '```json\n{"explanation": "It does.", "criteria_met": true}\n```'


def main() -> None:
    import inspect_ai
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def outputs(*texts):
        made = [ModelOutput.from_content("mockllm/model", text) for text in texts]
        for output in made:  # usage given, so the mock model counts no tokens (which needs a tokenizer download)
            output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return made

    work = Path(tempfile.mkdtemp(prefix="clinreg-inspect-health-bench-record-"))
    try:
        template = work / "healthbench_eval.py"
        template.write_text('GRADER_TEMPLATE = "Stand-in. Conversation:\\n<<conversation>>\\nItem: <<rubric_item>>"\n',
                            encoding="utf-8")
        out = jury_export("inspect", work, ["health_bench"], limit=3)
        sys.path.insert(0, str(out))
        import clinreg_tasks

        grader = get_model("mockllm/model", memoize=False, custom_outputs=outputs(*[MET] * 4))
        model = get_model("mockllm/model", memoize=False,
                          custom_outputs=outputs("Call emergency services now.", "Pneumonia, amoxicillin.",
                                                 "Any fever or stiff neck?"))
        [log] = inspect_ai.eval(clinreg_tasks.clinreg_health_bench(grader_template=str(template)), model=model,
                                model_roles={"grader": grader}, log_dir=str(work / "logs"), display="none",
                                max_samples=1)
        assert log.status == "success", (log.status, str(log.error)[-2000:])
        [written] = sorted((work / "logs").glob("*.eval"))
        shutil.copy(written, HERE / "clinreg_health_bench.eval")
        print(f"recorded {HERE / 'clinreg_health_bench.eval'}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
