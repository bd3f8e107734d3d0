"""Benchmark `clinreg site` on the embedded registry against the 5 s target of issue 25.

Usage: uv run python bench/bench_site.py [--runs N]

It reports, as medians of N runs (after one warm-up that compiles bytecode):
  - process wall time of `clinreg site -o DIR` (load, render every page, write the folder), and of
    `clinreg coverage --format html -o FILE` (one page from the same registry) as the reference it is a ratio of;
  - in process: load_registry, build_site (coverage, the diff against the previous release, every page
    rendered) and write_site, each timed alone;
  - the pages and bytes written.
Both commands run in the same job, alternating, so machine load affects them alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    clinreg = [sys.executable, "-m", "clinreg"]
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        site_dir, page = Path(tmp) / "site", Path(tmp) / "coverage.html"
        site_cmd = clinreg + ["site", "-o", str(site_dir)]
        cov_cmd = clinreg + ["coverage", "--format", "html", "-o", str(page), "--force"]
        timed(site_cmd, env), timed(cov_cmd, env)  # warm-up: bytecode
        site_t, cov_t = [], []
        for _ in range(args.runs):
            site_t.append(timed(site_cmd, env))
            cov_t.append(timed(cov_cmd, env))
        site_ms, cov_ms = statistics.median(site_t) * 1000, statistics.median(cov_t) * 1000
        print(f"process: clinreg site {site_ms:.0f} ms, coverage --format html {cov_ms:.0f} ms, ratio "
              f"{site_ms / cov_ms:.2f}")

        from clinreg.core.store import load_registry
        from clinreg.reports.site import build_site, default_previous, write_site

        load_t, build_t, write_t = [], [], []
        for i in range(args.runs):
            start = time.perf_counter()
            reg = load_registry(REPO)
            prev = load_registry(REPO, release=default_previous(reg))
            load_t.append(time.perf_counter() - start)
            start = time.perf_counter()
            pages = build_site(reg, prev, {"spec": default_previous(reg), "kind": "release"})
            build_t.append(time.perf_counter() - start)
            start = time.perf_counter()
            summary = write_site(pages, Path(tmp) / f"inproc{i}")
            write_t.append(time.perf_counter() - start)
        med = lambda xs: statistics.median(xs) * 1000  # noqa: E731
        print(f"in process: load both sides {med(load_t):.0f} ms, build {med(build_t):.0f} ms, write "
              f"{med(write_t):.0f} ms; "
              f"{summary['pages']} pages, {summary['bytes']:,} bytes, {len(reg.datasets)} datasets")
        print(f"target: under 5000 ms for the whole command: {'met' if site_ms < 5000 else 'MISSED'}")


if __name__ == "__main__":
    main()
