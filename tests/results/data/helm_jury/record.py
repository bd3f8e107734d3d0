"""Record what HELM writes for a clinreg jury benchmark, for the ratings reader's tests (run in HELM's venv, with
clinreg):

    python tests/results/data/helm_jury/record.py

It exports ACI-Bench (files shaped as distributed: our own fixture writer, no real data; 3 instances), runs the
export's README commands on the two constant-answer test models of tests/interop, with the interop test's three
test judges (tests/interop/helm_plugin: each judge rates an `A` answer one way and a `B` answer another) as HELM's
LLM-jury annotator models, and keeps, exactly as HELM wrote them, each run's run_spec.json, stats.json and
scenario_state.json (whose request states hold the annotator's per-judge replies).
"""

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
sys.path.insert(0, str(REPO / "tests"))

from interop.support import jury_export  # noqa: E402
from interop.test_helm import MODELS, run_readme  # noqa: E402


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="clinreg-helm-jury-record-"))
    try:
        out = jury_export("helm", work, ["aci_bench"], limit=3)
        env = {"HOME": str(work / "home"), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
        suite = run_readme(out, work / "run", env, MODELS)
        target = HERE / "suite"
        shutil.rmtree(target, ignore_errors=True)
        for folder in sorted(suite.iterdir()):
            if (folder / "run_spec.json").is_file():
                # A name every file system accepts (HELM's holds `:` and `=`); the reader reads run_spec.json.
                safe = folder.name.replace(":", "__").replace("=", "-").replace(",", "__")
                for name in ("run_spec.json", "stats.json", "scenario_state.json"):
                    (target / safe).mkdir(parents=True, exist_ok=True)
                    shutil.copy(folder / name, target / safe / name)
        print(f"recorded {target}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
