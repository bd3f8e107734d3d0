"""Benchmark the contributor's test loop: the README's `uv run pytest` at a baseline commit against the working tree.

Usage: python bench/bench_tests.py [--base REV] [--rounds N] [--bytecode as-is|off|on] [--keep]

Both sides run in this one job, alternating (baseline first in odd rounds, the working tree first in even ones),
so machine load affects both alike. Each side is a clean copy: `git worktree add` of REV, and of HEAD with the
working tree's uncommitted changes applied, each with its own uv environment (synced once before timing) and
the reference folder `shared/` linked beside it, as a fresh clone has it. The timed command is exactly the
README's, `uv run pytest`, with CI unset (the contributor's defaults: the fuzz tests' short profile, and the
worker count pytest-xdist picks). It reports each run's wall time, the pass/skip counts from pytest's closing
line, and the ratio of the medians.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def git(*args: str, cwd: Path = REPO) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def checkout(rev: str | None, dest: Path) -> Path:
    """A worktree of `rev`, or of HEAD plus the working tree's changes when `rev` is None."""
    git("worktree", "add", "--detach", "-q", str(dest), rev or "HEAD")
    if rev is None:
        diff = subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=REPO, check=True, capture_output=True).stdout
        if diff:
            subprocess.run(["git", "apply", "--whitespace=nowarn"], cwd=dest, input=diff, check=True)
        for rel in git("ls-files", "--others", "--exclude-standard").splitlines():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, dest / rel)
    return dest


BYTECODE = {"as-is": None, "off": "1", "on": ""}


def environment(side: Path, bytecode: str = "as-is") -> dict[str, str]:
    env = dict(os.environ, UV_PROJECT_ENVIRONMENT=str(side / ".venv"))
    env.pop("CI", None)
    env.pop("HYPOTHESIS_PROFILE", None)
    if BYTECODE[bytecode] == "1":
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    elif BYTECODE[bytecode] == "":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _terminal_signals() -> None:
    """Default SIGINT and SIGQUIT in the timed run, as on a terminal: a shell starts a background job (`&`) with
    both ignored, and a test that interrupts a child process would then wait for it in vain."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def run_tests(side: Path, bytecode: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(["uv", "run", "pytest", "-p", "no:cacheprovider"], cwd=side, env=environment(side, bytecode),
                          capture_output=True, text=True, preexec_fn=_terminal_signals)
    elapsed = time.perf_counter() - start
    lines = [line for line in proc.stdout.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    closing = lines[-1].strip("= ") if lines else f"exit {proc.returncode}: {proc.stdout[-500:]}{proc.stderr[-500:]}"
    if proc.returncode != 0:
        failed = [line for line in proc.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
        closing = f"FAILED (exit {proc.returncode}): {closing}" + "".join(f"\n    {line[:300]}" for line in failed)
    return elapsed, closing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="6331b91",
                        help="the baseline commit (default: the last before the layout change)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the worktrees")
    parser.add_argument("--bytecode", choices=sorted(BYTECODE), default="as-is",
                        help="PYTHONDONTWRITEBYTECODE for the timed runs: as this shell has it, set (off) or unset "
                             "(on: .pyc files beside the sources, as on most machines; each side warms up once)")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="clinreg-bench-tests-"))
    if SHARED.is_dir():
        (tmp / "shared").symlink_to(SHARED)  # tests read ../shared/realdata beside the checkout
    sides = {"baseline": checkout(args.base, tmp / "baseline"), "current": checkout(None, tmp / "current")}
    try:
        for side in sides.values():
            subprocess.run(["uv", "sync", "-q"], cwd=side, env=environment(side), check=True)
            if args.bytecode == "on":  # write the .pyc files a contributor's earlier runs would have left
                run_tests(side, args.bytecode)
        times: dict[str, list[float]] = {name: [] for name in sides}
        flag = environment(REPO, args.bytecode).get("PYTHONDONTWRITEBYTECODE")
        print(f"base {args.base}, {os.cpu_count()} CPUs, PYTHONDONTWRITEBYTECODE={flag or '(unset)'}, "
              f"load average before: {os.getloadavg()[0]:.2f}")
        for round_ in range(args.rounds):
            order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
            for name in order:
                elapsed, closing = run_tests(sides[name], args.bytecode)
                times[name].append(elapsed)
                print(f"round {round_ + 1} {name:<8} {elapsed:7.1f} s  {closing}", flush=True)
        base, current = statistics.median(times["baseline"]), statistics.median(times["current"])
        print(f"median baseline {base:.1f} s, current {current:.1f} s: {base / current:.2f}x faster")
    finally:
        if not args.keep:
            for side in sides.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(side)], cwd=REPO, capture_output=True)
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
