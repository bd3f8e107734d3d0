"""`clinreg build` of real records on mirrors shaped as they are distributed, against a plain `datasets` pipeline.

Usage: python bench/bench_build_shapes.py [--rows 200000] [--base REV] [--data ../shared/realdata]

Shapes (issue 26), each a mirror holding the record's real sample rows (../shared/realdata) repeated to --rows:
- `med_qa`: JSON lines, options in a struct column, the gold a letter;
- `medec`: CSV with quoted multi-line fields and a `render` step building the reference.

For each, in one process, alternating, best of 3: the real record through `clinreg build` (library calls, JSON
lines out), and a plain `datasets` pipeline doing the same work (load the file with `datasets`, render the same
prompt in a batched map, keep the gold, `to_json`). With --base REV the clinreg side also runs at that commit
(a `git worktree` on PYTHONPATH) in a subprocess, for a before/after ratio in the same job.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "realdata"
SHAPES = {
    "med_qa": ("GBaker__MedQA-USMLE-4-options", "phrases_no_exclude_test.jsonl"),
    "medec": ("abachaa__MEDEC", "MEDEC-MS/MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv"),
}


def make_mirror(real: Path, target: Path, record: str, rows: int) -> Path:
    """The record's folder with its file's real rows repeated to `rows` (other files copied as they are)."""
    folder, name = SHAPES[record]
    shutil.copytree(real / folder, target / folder, dirs_exist_ok=True)
    path = target / folder / name
    if name.endswith(".jsonl"):
        lines = [line for line in (real / folder / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        with path.open("w", encoding="utf-8") as out:
            for i in range(rows):
                out.write(lines[i % len(lines)] + "\n")
    else:
        import csv

        with (real / folder / name).open(encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle)
            header = next(reader)
            body = [r for r in reader if any(field.strip() for field in r)]
        with path.open("w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(header)
            for i in range(rows):
                writer.writerow(body[i % len(body)])
    return path


def clinreg_side(repo: Path, record: str, mirror: Path, out: Path) -> int:
    sys.path.insert(0, str(repo / "src"))
    from clinreg.core.store import load_registry
    from clinreg.loaders.export import write_instances
    from clinreg.loaders.instances import instance_batches

    reg = load_registry(repo)
    return write_instances(instance_batches(reg.datasets[record], data_dir=mirror, root=reg.root), "jsonl", out)


def baseline_side(record: str, path: Path, out: Path) -> int:
    """What a user would write with `datasets` alone for the same prompts and gold."""
    import datasets

    cache = tempfile.mkdtemp(prefix="bench-baseline-")
    try:
        if record == "med_qa":
            data = datasets.load_dataset("json", data_files=str(path), split="train", cache_dir=cache)

            def render(batch):
                prompts = []
                for question, options in zip(batch["question"], batch["options"]):
                    letters = sorted(k for k, v in options.items() if v is not None)
                    listed = "\n".join(f"{k}. {options[k]}" for k in letters)
                    prompts.append(f"{question}\n\n{listed}\n\nAnswer with the letter of the correct option.")
                return {"prompt": prompts, "answer": batch["answer_idx"]}
        else:
            # Every value as text, as clinreg reads a CSV (Error Flag stays "0"/"1", ids keep their form).
            data = datasets.load_dataset("csv", data_files=str(path), split="train", cache_dir=cache,
                                         keep_default_na=False)
            data = data.cast(datasets.Features({c: datasets.Value("string") for c in data.column_names}))
            data = data.filter(lambda b: [bool(s and s.strip()) for s in b["Sentences"]], batched=True)

            def render(batch):
                refs = [f"{i} {c}" if f == "1" and c != "NA" and i != "-1" else "CORRECT"
                        for f, i, c in zip(batch["Error Flag"], batch["Error Sentence ID"], batch["Corrected Sentence"])]
                prompts = ["The following clinical text has numbered sentences.\n\n" + s for s in batch["Sentences"]]
                return {"prompt": prompts, "reference": refs}
        built = data.map(render, batched=True, batch_size=1000, remove_columns=data.column_names)
        built.to_json(str(out), lines=True, force_ascii=False)
        return len(built)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


CHILD = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1] + "/bench")
import bench_build_shapes as b
from pathlib import Path
started = time.perf_counter()
n = b.clinreg_side(Path(os.environ["CLINREG_BENCH_REPO"]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
print(json.dumps({"rows": n, "seconds": time.perf_counter() - started}))
"""


def run_child(repo: Path, record: str, mirror: Path, out: Path) -> dict:
    """One build in a fresh process (the side being measured pays its own imports in both cases)."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(REPO), record, str(mirror), str(out)],
                          capture_output=True, text=True, cwd=REPO, env={**os.environ, "CLINREG_BENCH_REPO": str(repo)})
    if done.returncode:
        sys.exit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


BASE_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import bench_build_shapes as b
from pathlib import Path
started = time.perf_counter()
n = b.baseline_side(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
print(json.dumps({"rows": n, "seconds": time.perf_counter() - started}))
"""


def run_baseline(record: str, path: Path, out: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", BASE_CHILD, str(REPO / "bench"), record, str(path), str(out)],
                          capture_output=True, text=True, cwd=REPO, env={**os.environ, "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"})
    if done.returncode:
        sys.exit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--base", help="also build at this commit, for a before/after ratio")
    parser.add_argument("--data", type=Path, default=REAL)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not args.data.is_dir():
        sys.exit(f"no real samples at {args.data}")
    work = Path(tempfile.mkdtemp(prefix="bench-shapes-"))
    base = None
    try:
        if args.base:
            base = work / "base"
            subprocess.run(["git", "worktree", "add", "-q", "--detach", str(base), args.base], cwd=REPO, check=True)
        print(f"| record | rows | clinreg build (s) | datasets pipeline (s) | ratio | " +
              ("at base (s) | speed-up |" if base else ""))
        print("|---|--:|--:|--:|--:|" + ("--:|--:|" if base else ""))
        for record in SHAPES:
            mirror = work / f"mirror-{record}"
            path = make_mirror(args.data, mirror, record, args.rows)
            best: dict[str, float] = {}
            for _ in range(args.repeat):
                sides = [("clinreg", lambda: run_child(REPO, record, mirror, work / "a.jsonl")),
                         ("baseline", lambda: run_baseline(record, path, work / "b.jsonl"))]
                if base:
                    sides.append(("base", lambda: run_child(base, record, mirror, work / "c.jsonl")))
                for name, fn in sides:
                    seconds = fn()["seconds"]
                    best[name] = min(best.get(name, seconds), seconds)
            ratio = best["baseline"] / best["clinreg"]
            extra = f" {best['base']:.1f} | {best['base'] / best['clinreg']:.2f}x |" if base else ""
            print(f"| {record} | {args.rows:,} | {best['clinreg']:.1f} | {best['baseline']:.1f} | {ratio:.2f} |{extra}",
                  flush=True)
    finally:
        if base:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=REPO)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
