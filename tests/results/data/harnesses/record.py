"""Record what Inspect AI and lm-eval write for clinreg exports, for the results round-trip tests (run in the interop
venv, with clinreg importable and TIKTOKEN_CACHE_DIR set for Inspect's mock model):

    python tests/results/data/harnesses/record.py

Exports are made from files shaped as distributed (the writers of tests/distributions, no real data), limited to
a few instances, and run offline:

- Inspect AI: MedDialog (a jury benchmark) on the mock model, its three judges mock models bound as model roles
  that all reply with the same ratings (accuracy 4, completeness 3, clarity 5); the .eval log is kept as written.
- lm-eval: MedQA (a closed benchmark) on lm-eval's `dummy` model (random answers); results_*.json is kept as
  written (no --log_samples).

HELM's runs are recorded by ../helm/record.py.
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
sys.path.insert(0, str(REPO / "tests"))

from interop.support import jury_export  # noqa: E402

JURY = """
import json, sys
sys.path.insert(0, sys.argv[1])
import inspect_ai, clinreg_tasks as t
from inspect_ai.model import ModelOutput, get_model
spec = t.MAPPINGS["clinreg_med_dialog"]["scoring"]["jury"]
reply = json.dumps({a["id"]: {"score": s, "explanation": "as recorded"} for a, s in zip(spec["axes"], (4, 3, 5))})
roles = {"judge_" + j["name"]: get_model("mockllm/model", memoize=False,
                                         custom_outputs=[ModelOutput.from_content("mockllm/model", reply)] * 100)
         for j in spec["judges"]}
[log] = inspect_ai.eval(t.clinreg_med_dialog(), model="mockllm/model", model_roles=roles, log_dir=sys.argv[2],
                        log_format="eval", display="none")
assert log.status == "success", log.error
"""


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="clinreg-harness-record-"))
    try:
        inspect_out = jury_export("inspect", work / "inspect", ["med_dialog"], limit=2)
        subprocess.run([sys.executable, "-c", JURY, str(inspect_out), str(work / "inspect-logs")], check=True)
        (log,) = (work / "inspect-logs").glob("*.eval")
        target = HERE / "inspect"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        shutil.copy2(log, target / log.name)

        lm_out = jury_export("lm-eval", work / "lm", ["med_qa"], limit=3)
        lm_eval = Path(sys.executable).parent / "lm_eval"
        subprocess.run([str(lm_eval), "--model", "dummy", "--include_path", str(lm_out), "--tasks", "clinreg_med_qa",
                        "--output_path", str(work / "lm-results")], check=True, cwd=work)
        (results,) = (work / "lm-results").rglob("results_*.json")
        target = HERE / "lm_eval"
        shutil.rmtree(target, ignore_errors=True)
        (target / results.parent.name).mkdir(parents=True)
        shutil.copy2(results, target / results.parent.name / results.name)
        print(json.dumps(sorted(str(p.relative_to(HERE)) for p in HERE.rglob("*") if p.is_file())))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
