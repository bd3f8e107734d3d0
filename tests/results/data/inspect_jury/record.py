"""Record an Inspect log of a clinreg jury task, for the ratings reader's tests (run in an environment with
inspect_ai and clinreg; no network):

    python tests/results/data/inspect_jury/record.py

It exports ACI-Bench with `clinreg export inspect` (files shaped as distributed: our own fixture writer, no real
data; 2 instances) and runs its task with Inspect's mock model as the evaluated model and as the three judges,
bound as the model roles `judge_gpt`, `judge_llama` and `judge_claude`, each replying with one fixed rating
(gpt 4/5/3, llama 2/3/4, claude 5/4/5 on accuracy, completeness, clarity). It keeps the `.eval` archive as
Inspect wrote it (members compressed with Zstandard).
"""

import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
sys.path.insert(0, str(REPO / "tests"))

from interop.support import jury_export  # noqa: E402

REPLIES = {"gpt": (4, 5, 3), "llama": (2, 3, 4), "claude": (5, 4, 5)}


def main() -> None:
    import inspect_ai
    from inspect_ai.model import ModelOutput, get_model

    work = Path(tempfile.mkdtemp(prefix="clinreg-inspect-jury-record-"))
    try:
        out = jury_export("inspect", work, ["aci_bench"], limit=2)
        sys.path.insert(0, str(out))
        import clinreg_tasks

        roles = {}
        for name, scores in REPLIES.items():
            reply = json.dumps({axis: {"score": v, "explanation": "test"}
                                for axis, v in zip(("accuracy", "completeness", "clarity"), scores)})
            roles[f"judge_{name}"] = get_model("mockllm/model", memoize=False,
                                               custom_outputs=[ModelOutput.from_content("mockllm/model", reply)] * 10)
        [log] = inspect_ai.eval(clinreg_tasks.clinreg_aci_bench(), model="mockllm/model", model_roles=roles,
                                log_dir=str(work / "logs"), display="none")
        assert log.status == "success", log.status
        [written] = sorted((work / "logs").glob("*.eval"))
        shutil.copy(written, HERE / "clinreg_aci_bench.eval")
        print(f"recorded {HERE / 'clinreg_aci_bench.eval'}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
