"""Record what HELM writes for a clinreg export, for the HELM reader's tests (run in HELM's venv, with clinreg):

    python tests/results/data/helm/record.py

It exports two records from files shaped as distributed (our own fixture writers, no real data), runs the
export's README commands on the two constant-answer test models of tests/interop, and keeps the files the
importer reads, exactly as HELM wrote them: each run's run_spec.json, stats.json and per_instance_stats.json,
and helm-summarize's leaderboard groups/clinreg.json. Prompts (scenario_state.json) are not kept.
"""

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
sys.path.insert(0, str(REPO / "tests"))

from clirunner import invoke  # noqa: E402

from clinreg.cli.export import export  # noqa: E402
from interop.test_helm import MODELS, run_readme  # noqa: E402

RECORDS = ["pubmed_qa", "medcalc_bench"]  # a closed and a number task


def main() -> None:
    import importlib.util

    from clinreg.core.store import load_registry
    from clinreg.sources.mirror import folder_name

    reg = load_registry(REPO)
    work = Path(tempfile.mkdtemp(prefix="clinreg-helm-record-"))
    try:
        for record_id in RECORDS:
            path = REPO / "tests" / "distributions" / f"{record_id}.py"
            spec = importlib.util.spec_from_file_location(record_id, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            (getattr(module, "write_hub", None) or module.write)(work / "mirror" / folder_name(reg.datasets[record_id]))
        out = work / "export"
        result = invoke(export, ["helm", *RECORDS, "--root", str(REPO), "--data-dir", str(work / "mirror"),
                                 "-o", str(out)])
        assert result.exit_code == 0, result.output
        env = {"HOME": str(work / "home"), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
        suite = run_readme(out, work / "run", env, MODELS)
        target = HERE / "suite"
        shutil.rmtree(target, ignore_errors=True)
        for folder in sorted(suite.iterdir()):
            if (folder / "run_spec.json").is_file():
                # HELM names a run folder after its run spec (`clinreg:mapping=x,model=y`); the copy takes a name
                # every file system accepts. The importer reads run_spec.json, never the folder's name.
                safe = folder.name.replace(":", "__").replace("=", "-").replace(",", "__")
                for name in ("run_spec.json", "stats.json", "per_instance_stats.json"):
                    (target / safe).mkdir(parents=True, exist_ok=True)
                    shutil.copy(folder / name, target / safe / name)
        (target / "groups").mkdir(parents=True, exist_ok=True)
        shutil.copy(suite / "groups" / "clinreg.json", target / "groups" / "clinreg.json")
        print(f"recorded {target}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
