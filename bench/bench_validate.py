"""Benchmark `clinreg validate` against a bare process that only loads the same YAML with the C loader.

Usage: uv run python bench/bench_validate.py [--runs N] [--scales 1,10,100] [--big 10000] [--coverage 10,100,300]
       uv run python bench/bench_validate.py --marginal [--runs N] [--against SRC]

It copies the embedded registry into a temp dir and makes synthetic registries N times the size by cloning
dataset records under new ids (`gen_registry`). For each scale it reports, as medians of N runs:
  - process wall time of a bare Python process that only loads the same files with yaml.CSafeLoader, of
    `clinreg validate --format json` with an empty cache (cold) and with a warm cache, and their ratios;
  - the peak RSS (`ru_maxrss`) of each validate process;
  - in-process time of `validate(root)` against the same C-loader loop in this process.
Then the marginal cost per record between the two largest scales, a run at about --big records, and the
time of the coverage step (`coverage_data`) at the --coverage scales with its growth factor.
Both sides of every ratio run in the same job, alternating, so machine load affects both alike. Child
processes run with bytecode compiled (PYTHONDONTWRITEBYTECODE is removed, and one warm-up run writes it).

`--marginal` measures issue 55's three ratios instead: the shipped registry (1x) cold and warm against the
bare read, and the cost of each added record, cold, between 10x and 40x (490 -> 1,960 dataset records):
(cold at 40x - cold at 10x) / (bare at 40x - bare at 10x). It gives each ratio twice: of wall times, and of
each process's CPU time (user + system, from the launcher's getrusage), which moves far less than wall time on
a machine other jobs are loading (recorded as `validate.cpu_NAME`). `--against SRC` times a second clinreg (another
commit's `src` folder, put first on PYTHONPATH) in the same rounds, alternating. Each ratio is compared with the
one recorded in bench/README.md (the lines "- `validate.NAME` = RATIO"); a move of more than 20% is printed
as a line starting with "MOVED" (the exit code does not change).
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]

BARE = (
    "import sys, yaml\n"
    "from pathlib import Path\n"
    "root = Path(sys.argv[1])\n"
    "for p in sorted(list((root / 'taxonomy').glob('*.yaml')) + list((root / 'registry').rglob('*.yaml'))):\n"
    "    with open(p, 'rb') as f:\n"
    "        yaml.load(f, Loader=yaml.CSafeLoader)\n"
)
CLINREG = "import sys\nfrom clinreg.cli.main import main\nsys.argv = ['clinreg'] + sys.argv[1:]\nmain()\n"

# A tiny launcher between the benchmark and each measured process: it times the child alone and reports its
# peak RSS. Linux carries a parent's high-water RSS into the ru_maxrss of a child it forks, so the child is
# started from a process that holds almost nothing, and getrusage(RUSAGE_CHILDREN) covers that child only.
LAUNCHER = """
import resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(time.perf_counter() - start, usage.ru_maxrss, proc.returncode, usage.ru_utime + usage.ru_stime)
"""


def gen_registry(dest: Path, scale: int) -> int:
    """Copy the embedded tree to `dest`, cloning each dataset record `scale` times. Returns the record count."""
    shutil.copytree(REPO / "taxonomy", dest / "taxonomy")
    shutil.copytree(REPO / "registry", dest / "registry")
    datasets = dest / "registry" / "datasets"
    originals = sorted(datasets.glob("*.yaml"))
    for copy in range(1, scale):
        for path in originals:
            text = path.read_text(encoding="utf-8")
            stem = path.stem
            new_id = f"{stem}_x{copy}"
            # ids appear as `id: <stem>` for the record and its mapping(s)
            text = text.replace(f"id: {stem}\n", f"id: {new_id}\n")
            (datasets / f"{new_id}.yaml").write_text(text, encoding="utf-8")
    return len(list(datasets.glob("*.yaml")))


class Runner:
    """Runs the measured processes, each through LAUNCHER, with bytecode on and the cache in a temp dir."""

    def __init__(self, cache_home: Path):
        self.cache_home = cache_home
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env["XDG_CACHE_HOME"] = str(cache_home)

    def run(self, args: list[str], env: dict | None = None) -> tuple[float, float]:
        """(seconds, peak RSS in MB) of one process."""
        out = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, sys.executable, *args], env=env or self.env,
                             capture_output=True, text=True, check=True).stdout.split()
        seconds, peak_kib, code = float(out[0]), int(out[1]), int(out[2])
        self.last_cpu = float(out[3])  # the child's CPU seconds (user + system): steadier than wall time under load
        if code not in (0, 1):
            raise RuntimeError(f"{args[:4]} exited with {code}")
        return seconds, peak_kib / 1024

    def clear_cache(self) -> None:
        shutil.rmtree(self.cache_home / "clinreg", ignore_errors=True)

    def measure(self, root: Path, runs: int) -> dict:
        """Alternate bare / cold / warm runs; medians of each, and the largest peak RSS of validate."""
        bare_cmd = ["-c", BARE, str(root)]
        ours_cmd = ["-c", CLINREG, "validate", "--root", str(root), "--format", "json"]
        self.clear_cache()
        self.run(ours_cmd)  # warm-up: writes bytecode, fills the OS page cache
        self.run(bare_cmd)
        bare, cold, warm, cold_rss, warm_rss = [], [], [], [], []
        for _ in range(runs):
            bare.append(self.run(bare_cmd)[0])
            self.clear_cache()
            seconds, rss = self.run(ours_cmd)
            cold.append(seconds)
            cold_rss.append(rss)
            seconds, rss = self.run(ours_cmd)
            warm.append(seconds)
            warm_rss.append(rss)
        med = statistics.median
        return {"bare": med(bare), "cold": med(cold), "warm": med(warm), "cold_rss": max(cold_rss),
                "warm_rss": max(warm_rss)}


    def measure_marginal(self, roots: dict[int, Path], runs: int, against: str | None) -> dict:
        """Medians of bare / cold / warm at each scale, rounds alternating the sides (and `against`'s cold and
        warm, with its src first on PYTHONPATH)."""
        sides = {"": self.env}
        if against:
            sides["base_"] = dict(self.env, PYTHONPATH=against)
        times: dict[str, list] = {}
        for root in roots.values():
            for env in sides.values():  # warm-up: bytecode, the OS page cache
                self.clear_cache()
                self.run(["-c", CLINREG, "validate", "--root", str(root), "--format", "json"], env)
        def timed(key: str, args: list[str], env: dict | None = None) -> None:
            times.setdefault(key, []).append(self.run(args, env)[0])
            times.setdefault(f"cpu_{key}", []).append(self.last_cpu)

        for _ in range(runs):
            for scale, root in roots.items():
                timed(f"bare{scale}", ["-c", BARE, str(root)])
                for prefix, env in sides.items():
                    cmd = ["-c", CLINREG, "validate", "--root", str(root), "--format", "json"]
                    self.clear_cache()
                    timed(f"{prefix}cold{scale}", cmd, env)
                    timed(f"{prefix}warm{scale}", cmd, env)
        return {k: statistics.median(v) for k, v in times.items()}


MARGINAL_SCALES = (1, 10, 40)
MOVE = 0.20  # a ratio that moves by more than this from the recorded one is reported


def recorded_ratios(readme: Path = REPO / "bench" / "README.md") -> dict[str, float]:
    """The ratios recorded in bench/README.md, from its lines "- `validate.NAME` = RATIO"."""
    found = re.findall(r"^- `validate\.(\w+)` = ([0-9.]+)", readme.read_text(encoding="utf-8"), re.MULTILINE)
    return {name: float(value) for name, value in found}


def marginal_ratios(m: dict, prefix: str = "") -> dict[str, float]:
    """The three ratios of wall times; with prefix "cpu_" (or "cpu_base_"), of CPU times."""
    lo, hi = MARGINAL_SCALES[1], MARGINAL_SCALES[2]
    bare = "cpu_" if prefix.startswith("cpu_") else ""
    return {
        "cold_1x": m[f"{prefix}cold1"] / m[f"{bare}bare1"],
        "warm_1x": m[f"{prefix}warm1"] / m[f"{bare}bare1"],
        "marginal_cold": ((m[f"{prefix}cold{hi}"] - m[f"{prefix}cold{lo}"])
                          / (m[f"{bare}bare{hi}"] - m[f"{bare}bare{lo}"])),
    }


def moved_lines(ratios: dict[str, float], recorded: dict[str, float]) -> list[str]:
    """A line for each ratio more than MOVE away from its recorded value."""
    lines = []
    for name, value in ratios.items():
        before = recorded.get(name)
        if before and abs(value - before) > MOVE * before:
            lines.append(f"MOVED: validate.{name} is {value:.2f}, recorded {before:.2f} in bench/README.md "
                         f"({(value / before - 1) * 100:+.0f}%)")
    return lines


def run_marginal(args) -> None:
    print(f"start: {load_text()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="clinreg-bench-") as tmp:
        runner = Runner(Path(tmp) / "xdg")
        roots, records = {}, {}
        for scale in MARGINAL_SCALES:
            roots[scale] = Path(tmp) / f"x{scale}"
            records[scale] = gen_registry(roots[scale], scale)
        m = runner.measure_marginal(roots, args.runs, args.against)
    print(f"end: {load_text()}\n")
    lo, hi = MARGINAL_SCALES[1], MARGINAL_SCALES[2]
    print(f"Medians of {args.runs} rounds (ms); dataset records: "
          + ", ".join(f"{s}x {records[s]:,}" for s in MARGINAL_SCALES) + "\n")
    sides = [("this tree", "")] + ([(f"against {args.against}", "base_")] if args.against else [])
    for clock, cpu in (("wall", ""), ("CPU", "cpu_")):
        print(f"{clock} time, ms:\n")
        print("| side | " + " | ".join(f"{k} {s}x" for s in MARGINAL_SCALES for k in ("cold", "warm"))
              + " | cold/bare 1x | warm/bare 1x | added/bare |")
        print("|---" * (2 + 2 * len(MARGINAL_SCALES) + 2) + "|")
        print("| bare read | " + " | ".join(f"{m[f'{cpu}bare{s}'] * 1000:.0f} | " for s in MARGINAL_SCALES) + " | | |")
        for label, prefix in sides:
            r = marginal_ratios(m, cpu + prefix)
            print(f"| {label} | " + " | ".join(f"{m[f'{cpu}{prefix}cold{s}'] * 1000:.0f} | "
                                                f"{m[f'{cpu}{prefix}warm{s}'] * 1000:.0f}" for s in MARGINAL_SCALES)
                  + f" | {r['cold_1x']:.2f} | {r['warm_1x']:.2f} | {r['marginal_cold']:.2f} |")
        bare_per = (m[f"{cpu}bare{hi}"] - m[f"{cpu}bare{lo}"]) * 1000 / (records[hi] - records[lo])
        print(f"\nbare read of an added record: {bare_per:.3f} ms\n")
    recorded = recorded_ratios()
    lines = moved_lines(marginal_ratios(m), recorded) + moved_lines(
        {f"cpu_{k}": v for k, v in marginal_ratios(m, "cpu_").items()}, recorded)
    print("\n".join(lines) if lines else f"no ratio moved by more than {MOVE:.0%} from bench/README.md's")


def _median_call(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bare_load(root: Path) -> None:
    for p in sorted(list((root / "taxonomy").glob("*.yaml")) + list((root / "registry").rglob("*.yaml"))):
        with open(p, "rb") as f:
            yaml.load(f, Loader=yaml.CSafeLoader)


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} on {os.cpu_count()} CPUs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--scales", default="1,10,100")
    parser.add_argument("--big", type=int, default=10_000, help="records for the large run (0 to skip)")
    parser.add_argument("--coverage", default="10,100,300", help="scales for the coverage step ('' to skip)")
    parser.add_argument("--marginal", action="store_true", help="issue 55's ratios: 1x cold and warm, added records")
    parser.add_argument("--against", help="with --marginal: another clinreg's src folder, timed alternately")
    args = parser.parse_args()
    if args.marginal:
        run_marginal(args)
        return
    from clinreg.core.store import load_registry
    from clinreg.reports.coverage import coverage_data
    from clinreg.rules.engine import validate

    print(f"start: {load_text()}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="clinreg-bench-") as tmp:
        runner = Runner(Path(tmp) / "xdg")
        scales = [int(s) for s in args.scales.split(",") if s]
        originals = len(list((REPO / "registry" / "datasets").glob("*.yaml")))
        if args.big:
            scales.append(max(1, round(args.big / originals)))
        for scale in scales:
            root = Path(tmp) / f"x{scale}"
            records = gen_registry(root, scale)
            runs = args.runs if records < 1000 else max(3, args.runs // 2)
            report = validate(root)
            assert not report.has_errors, [d for d in report.diagnostics if d.severity == "error"][:3]
            m = runner.measure(root, runs)
            m["bare_i"] = _median_call(functools.partial(bare_load, root), runs)
            m["ours_i"] = _median_call(functools.partial(validate, root), runs)
            rows.append((scale, records, m))
            print(f"  {scale}x done ({records} records; {load_text()})", flush=True)
            shutil.rmtree(root)

        coverage = []
        for scale in [int(s) for s in args.coverage.split(",") if s]:
            root = Path(tmp) / f"c{scale}"
            records = gen_registry(root, scale)
            reg = load_registry(root)
            first = time.perf_counter()
            coverage_data(reg)
            first = time.perf_counter() - first
            coverage.append((scale, records, first, _median_call(functools.partial(coverage_data, reg), 5)))
            del reg
            shutil.rmtree(root)

    print(f"end: {load_text()}\n")
    print("| scale | records | bare process (ms) | validate cold (ms) | ratio | validate warm (ms) | ratio "
          "| peak RSS cold / warm (MB) | bare in-process (ms) | validate in-process (ms) | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for scale, records, m in rows:
        print(f"| {scale}x | {records:,} | {m['bare']*1000:.0f} | {m['cold']*1000:.0f} | {m['cold']/m['bare']:.2f} "
              f"| {m['warm']*1000:.0f} | {m['warm']/m['bare']:.2f} | {m['cold_rss']:.0f} / {m['warm_rss']:.0f} "
              f"| {m['bare_i']*1000:.0f} | {m['ours_i']*1000:.0f} | {m['ours_i']/m['bare_i']:.2f} |")

    print("\nMarginal cost per record (process wall time, between consecutive scales):\n")
    print("| between | bare (ms/record) | validate cold (ms/record) | validate warm (ms/record) |")
    print("|---|---|---|---|")
    for (s0, r0, m0), (s1, r1, m1) in zip(rows, rows[1:]):
        if r1 == r0:
            continue
        per = {k: (m1[k] - m0[k]) * 1000 / (r1 - r0) for k in ("bare", "cold", "warm")}
        print(f"| {s0}x -> {s1}x | {per['bare']:.3f} | {per['cold']:.3f} | {per['warm']:.3f} |")

    if coverage:
        print("\nCoverage step (`coverage_data` on a loaded registry, in process):\n")
        print("| scale | records | first call (ms) | median of 5 (ms) | growth from previous scale |")
        print("|---|---|---|---|---|")
        prev = None
        for scale, records, first, med in coverage:
            growth = f"{med / prev[1]:.2f}x for {records / prev[0]:.1f}x the records" if prev else ""
            print(f"| {scale}x | {records:,} | {first*1000:.1f} | {med*1000:.1f} | {growth} |")
            prev = (records, med)


if __name__ == "__main__":
    main()
