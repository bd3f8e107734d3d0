"""Benchmark `clinreg results import` and `clinreg leaderboard` on leaderboards of an open cohort's size.

Usage: python bench/bench_results.py [--models 500,2000,10000] [--base REV] [--base-models 500] [--keep]

The input has the shape of the MedHELM authors' own leaderboard export (tests/results/data/medhelm/2025-07-31,
HELM's CSV: `Model`, `Mean win rate`, then one `<benchmark> - <metric>` column per benchmark of the paper's
table): N models, each a published row with every value moved by a small seeded jitter that stays inside its
metric's range (0-1 for shares, 1-5 for jury scores). Each command runs in its own process, started from a tiny
launcher that reports the wall time and the peak RSS (`ru_maxrss`) of that process alone:

- `results import board.csv -o results.json`;
- `leaderboard results.json --by subcategory --format F` for every format (table, json, markdown, csv, html).

With --base REV, the same commands also run at that commit (a `git worktree`, sharing this environment's
packages through PYTHONPATH) on the --base-models sizes, alternating with the working tree, for a ratio in the
same job. The growth column is time(N) / time(previous N) against N / previous N: linear growth gives the
model ratio, n log n slightly more, quadratic its square.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO / "tests" / "results" / "data" / "medhelm" / "2025-07-31" / "leaderboard.csv"
FORMATS = ("table", "json", "markdown", "csv", "html")

LAUNCHER = """
import resource, subprocess, sys, time
started = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
seconds = time.perf_counter() - started
if proc.returncode:
    sys.stderr.write(proc.stderr[-2000:])
print(seconds)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(proc.returncode)
"""


def board(models: int, seed: int = 0) -> str:
    """A HELM leaderboard CSV of `models` rows jittered from the published ones."""
    rows = list(csv.reader(io.StringIO(PUBLISHED.read_text(encoding="utf-8-sig"))))
    header, published = rows[0], rows[1:]
    rng = random.Random(seed)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for i in range(models):
        base = published[i % len(published)]
        row = [f"model-{i:06d}", ""]
        for head, cell in zip(header[2:], base[2:]):
            if not cell.strip():
                row.append("")
                continue
            value = float(cell)
            lo, hi = (1.0, 5.0) if "Jury" in head else (0.0, 1.0)
            row.append(f"{min(hi, max(lo, value + rng.uniform(-0.05, 0.05) * (hi - lo))):.4f}")
        writer.writerow(row)
    return out.getvalue()


def run(side: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    proc = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, sys.executable, "-m", "clinreg", *args],
                          capture_output=True, text=True, env=env, cwd=side)
    if proc.returncode:
        raise SystemExit(f"failed: clinreg {' '.join(args)}\n{proc.stderr}")
    seconds, rss = proc.stdout.split()
    return float(seconds), int(rss) / 1024


def measure(side: Path, work: Path, models: int, env: dict[str, str]) -> dict[str, tuple[float, float]]:
    csv_path = work / f"board-{models}.csv"
    if not csv_path.exists():
        csv_path.write_text(board(models), encoding="utf-8")
    results = work / f"results-{side.name}-{models}.json"
    timings = {"import": run(side, ["results", "import", str(csv_path), "-o", str(results), "--force",
                                    "--root", str(side)], env)}
    # The leaderboard ranks the imported file, or the CSV itself where that file is over the reader's 64 MiB cap
    # on one input (10,000 models give about 95 MB): both are what a user passes.
    source = results if results.stat().st_size <= 64 * 1024 * 1024 else csv_path
    for fmt in FORMATS:
        out = work / f"board-{side.name}-{models}.{fmt}"
        timings[f"{fmt} (from {'results.json' if source == results else 'the CSV'})"] = run(
            side, ["leaderboard", str(source), "--by", "subcategory", "--format", fmt, "-o", str(out), "--force",
                   "--root", str(side)], env)
    return timings


def environment(side: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(side / "src"), *sys.path[1:]])
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="500,2000,10000")
    parser.add_argument("--base", default=None, help="a commit to compare with, e.g. the one before the fix")
    parser.add_argument("--base-models", default="500")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="clinreg-bench-results-"))
    base = None
    try:
        if args.base:
            base = work / "base"
            subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), args.base], cwd=REPO, check=True)
        print("| models | command | time (s) | peak RSS (MB) | growth (time ratio / model ratio) |")
        print("|---|---|---|---|---|")
        previous: dict[str, tuple[int, float]] = {}
        for models in [int(m) for m in args.models.split(",")]:
            timings = measure(REPO, work, models, environment(REPO))
            for command, (seconds, rss) in timings.items():
                growth = ""
                if command in previous:
                    n0, t0 = previous[command]
                    growth = f"{seconds / t0:.2f} / {models / n0:.2f}"
                previous[command] = (models, seconds)
                print(f"| {models:,} | {command} | {seconds:.2f} | {rss:.0f} | {growth} |", flush=True)
        if base is not None:
            print()
            print(f"| models | command | {args.base[:10]} (s) | working tree (s) | ratio |")
            print("|---|---|---|---|---|")
            for models in [int(m) for m in args.base_models.split(",")]:
                old = measure(base, work, models, environment(base))
                new = measure(REPO, work, models, environment(REPO))
                for command in new:
                    print(f"| {models:,} | {command} | {old[command][0]:.2f} | {new[command][0]:.2f} | "
                          f"{old[command][0] / new[command][0]:.1f}x |", flush=True)
    finally:
        if base is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=REPO)
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
