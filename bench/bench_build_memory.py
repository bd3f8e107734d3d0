"""Peak memory of `clinreg build` at a million rows, on the shapes of bench_build_shapes.py (issue 26's target:
under 500 MB at 1,000,000 rows).

Usage: python bench/bench_build_memory.py [--rows 1000000] [--data ../shared/realdata]
       [med_qa medec medication_qa dischargeme]

Each record's mirror is made as bench_build_shapes.py makes it, then built by the same library call in a fresh
process (its own `ru_maxrss`, started through a small launcher, since a forked child inherits the parent's
high-water mark and this process held the mirror while making it), JSON lines out. Prints one line per record: rows,
seconds, peak MB.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_build_shapes as shapes  # noqa: E402

CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import bench_build_shapes as b
from pathlib import Path
started = time.perf_counter()
n = b.clinreg_side(b.REPO, sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
print(json.dumps({"rows": n, "seconds": round(time.perf_counter() - started, 1),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--data", type=Path, default=shapes.REAL, help="the real samples (default ../shared/realdata)")
    parser.add_argument("records", nargs="*", default=list(shapes.SHAPES))
    args = parser.parse_args()
    for record in args.records:
        work = Path(tempfile.mkdtemp(prefix=f"bench-memory-{record}-"))
        try:
            shapes.make_mirror(args.data, work / "mirror", record, args.rows)
            done = subprocess.run(shapes.launched([sys.executable, "-c", CHILD, str(Path(__file__).resolve().parent),
                                                   record, str(work / "mirror"), str(work / "out.jsonl")]),
                                  capture_output=True, text=True, env=shapes.ENV)
            result = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else done.stderr[-500:]
            print(record, args.rows, result, flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
