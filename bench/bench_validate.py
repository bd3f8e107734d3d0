"""Benchmark `clinreg validate` against a bare process that only loads the same YAML with the C loader.

Usage: uv run python bench/bench_validate.py [--runs N] [--scales 1,10,100]

It copies the embedded registry into a temp dir, makes synthetic registries 10x and 100x the size by
cloning dataset records under new ids (`gen_registry`), and reports for each scale:
  - process wall time, median of N runs: `clinreg validate --format json` vs a bare Python process that
    only loads the same files with yaml.CSafeLoader (both start a fresh interpreter);
  - in-process time, median of N runs: `validate(root)` vs the same C-loader loop, in this process;
  - milliseconds per dataset record.
Both sides of every ratio run in the same job, alternating, so machine load affects both alike.
"""

from __future__ import annotations

import argparse
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
CLINREG = "import sys\nfrom clinreg.cli import main\nsys.argv = ['clinreg'] + sys.argv[1:]\nmain()\n"


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


def _median_wall(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--scales", default="1,10,100")
    args = parser.parse_args()
    from clinreg.rules.engine import validate

    rows = []
    with tempfile.TemporaryDirectory(prefix="clinreg-bench-") as tmp:
        for scale in [int(s) for s in args.scales.split(",")]:
            root = Path(tmp) / f"x{scale}"
            records = gen_registry(root, scale)
            runs = args.runs if scale < 100 else max(3, args.runs // 3)
            report = validate(root)
            assert not report.has_errors, [d for d in report.diagnostics if d.severity == "error"][:3]
            bare_p = _median_wall([sys.executable, "-c", BARE, str(root)], runs)
            ours_p = _median_wall([sys.executable, "-c", CLINREG, "validate", "--root", str(root), "--format", "json"], runs)
            bare_i = _median_call(lambda: bare_load(root), runs)
            ours_i = _median_call(lambda: validate(root), runs)
            rows.append((scale, records, bare_p, ours_p, bare_i, ours_i))

    print("| scale | records | bare process (ms) | validate process (ms) | ratio | bare in-process (ms) "
          "| validate in-process (ms) | ratio | in-process ms/record |")
    print("|---|---|---|---|---|---|---|---|---|")
    for scale, records, bp, op, bi, oi in rows:
        print(f"| {scale}x | {records} | {bp*1000:.0f} | {op*1000:.0f} | {op/bp:.2f} | {bi*1000:.1f} | {oi*1000:.1f} "
              f"| {oi/bi:.2f} | {oi*1000/records:.3f} |")
    if len(rows) >= 2:
        (s0, r0, *_rest0), (s1, r1, *_rest1) = rows[-2], rows[-1]
        growth = rows[-1][5] / rows[-2][5]
        print(f"\nin-process validate time grows {growth:.1f}x for {r1 / r0:.1f}x the records ({s0}x -> {s1}x)")


if __name__ == "__main__":
    main()
