"""`clinreg build` of real records on mirrors shaped as they are distributed, against a plain `datasets` pipeline.

Usage: python bench/bench_build_shapes.py [--rows 200000] [--base REV] [--data ../shared/realdata]
       [--records med_qa medec] [--profile [N]]

Shapes (issue 26), each a mirror holding the record's real sample rows (../shared/realdata) repeated to --rows:
- `med_qa`: JSON lines, options in a struct column, the gold a letter;
- `medec`: CSV with quoted multi-line fields and a `render` step building the reference;
- `medication_qa`: one xlsx sheet, rows without an answer filtered out (the suite's fixture rows, copied);
- `dischargeme`: six gzip CSVs, five joins (one-to-many, first-of-many, one-to-one) and a `remove` step, two
  variants per admission (the suite's as-distributed fixture, copied with fresh ids: PhysioNet data is not here).

Each side's peak resident memory (ru_maxrss of its own process) and CPU time (`time.process_time`: every thread of
the process, which other jobs on a loaded machine move far less than wall time) are reported beside its time.
For each, in one process, alternating, best of 3: the real record through `clinreg build` (library calls, JSON
lines out), and a plain `datasets` pipeline doing the same work (load the file with `datasets`, render the same
prompt in a batched map, keep the gold, `to_json`). With --base REV the clinreg side also runs at that commit
(a `git worktree` on PYTHONPATH) in a subprocess, for a before/after ratio in the same job.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "realdata"
SHAPES = {
    "med_qa": ("GBaker__MedQA-USMLE-4-options", "phrases_no_exclude_test.jsonl"),
    "medec": ("abachaa__MEDEC", "MEDEC-MS/MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv"),
    # PhysioNet data has no real sample here: the test suite's as-distributed fixture (tests/distributions),
    # six gzip CSVs joined on subject and admission, its admissions copied with fresh ids to --rows discharge notes.
    "dischargeme": ("dischargeme", "files/discharge-me/1.3/test_phase_1/discharge.csv.gz"),
    # No real sample either: the fixture's workbook rows (one with an empty Answer) copied to --rows.
    "medication_qa": ("abachaa__Medication_QA_MedInfo2019", "MedInfo2019-QA-Medications.xlsx"),
}
DISCHARGEME_FILES = ("discharge", "discharge_target", "radiology", "edstays", "triage", "diagnosis")


def make_mirror(real: Path, target: Path, record: str, rows: int) -> Path:
    """The record's folder with its file's real rows repeated to `rows` (other files copied as they are)."""
    folder, name = SHAPES[record]
    if record == "dischargeme":
        return _dischargeme_mirror(target, rows)
    if record == "medication_qa":
        return _medication_qa_mirror(target, rows)
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


def _writer(record: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location("writer", REPO / f"tests/distributions/{record}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _medication_qa_mirror(target: Path, rows: int) -> Path:
    from openpyxl import Workbook

    writer = _writer("medication_qa")
    folder = target / SHAPES["medication_qa"][0]
    folder.mkdir(parents=True, exist_ok=True)
    book = Workbook(write_only=True)
    sheet = book.create_sheet("Sheet1")
    sheet.append(writer.COLUMNS)
    for i in range(rows):
        sheet.append(writer.ROWS[i % len(writer.ROWS)])
    path = folder / SHAPES["medication_qa"][1]
    book.save(path)
    return path


def _dischargeme_mirror(target: Path, rows: int) -> Path:
    """The fixture's admissions copied until the discharge file has `rows` notes, every id shifted per copy."""
    import csv
    import gzip
    import io
    import random

    random.seed(26)
    writer = _writer("dischargeme")
    seed = target / "seed"
    writer.write(seed)
    base = SHAPES["dischargeme"][0]
    folder = target / base / Path(SHAPES["dischargeme"][1]).parent
    folder.mkdir(parents=True, exist_ok=True)
    text = gzip.decompress((seed / SHAPES["dischargeme"][1]).read_bytes()).decode()
    notes = sum(1 for _ in csv.reader(io.StringIO(text))) - 1
    copies = -(-rows // notes)
    for name in DISCHARGEME_FILES:
        text = gzip.decompress((seed / Path(SHAPES["dischargeme"][1]).parent / f"{name}.csv.gz").read_bytes()).decode()
        reader = csv.reader(io.StringIO(text))
        header = next(reader)
        body = list(reader)
        ids = [i for i, h in enumerate(header) if h in ("subject_id", "hadm_id", "stay_id")]
        # A column no prompt reads gets random text per row: copies of four admissions would otherwise pack
        # more than 32 times smaller, past the readers' inflation bound (real notes pack about 4 times).
        noise = header.index("note_id") if "note_id" in header else len(header) - 1
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(header)
        written = 0
        for k in range(copies):
            for row in body:
                if name == "discharge" and written == rows:
                    break
                row = list(row)
                for i in ids:
                    row[i] = str(int(row[i]) + 10 * k)
                row[noise] = f"{row[noise]}-{random.getrandbits(192):048x}"
                w.writerow(row)
                written += 1
        with gzip.open(folder / f"{name}.csv.gz", "wb", compresslevel=1) as handle:
            handle.write(out.getvalue().encode())
    shutil.rmtree(seed)
    return folder / "discharge.csv.gz"


def clinreg_side(repo: Path, record: str, mirror: Path, out: Path) -> int:
    sys.path.insert(0, str(repo / "src"))
    from clinreg.core.store import load_registry
    from clinreg.instances.build import RecordBuild
    from clinreg.instances.write import write_instances

    reg = load_registry(repo)
    return write_instances(RecordBuild(reg.datasets[record], reg, data_dir=mirror).batches(), "jsonl", out)


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
        elif record == "medication_qa":
            import pandas as pd

            # `datasets` has no xlsx builder: a user reads the sheet with pandas (openpyxl underneath), every cell as
            # text.
            frame = pd.read_excel(path, dtype=str, engine="openpyxl")
            data = datasets.Dataset.from_pandas(frame, preserve_index=False)
            data = data.filter(lambda b: [a is not None for a in b["Answer"]], batched=True)

            def render(batch):
                return {"prompt": ["Answer this question about a medication as you would for the person who asked "
                                   "it.\n\n"
                                   + q for q in batch["Question"]], "reference": batch["Answer"]}
        elif record == "dischargeme":
            folder = path.parent
            tables = {name: datasets.load_dataset("csv", data_files=str(folder / f"{name}.csv.gz"), split="train",
                                                  cache_dir=cache, keep_default_na=False)
                      for name in DISCHARGEME_FILES if name != "discharge"}
            subjects = set(tables["diagnosis"]["subject_id"]) & set(tables["triage"]["subject_id"])
            stays = set(tables["edstays"]["hadm_id"])
            radiology: dict = {}
            for hadm, text in zip(tables["radiology"]["hadm_id"], tables["radiology"]["text"]):
                radiology.setdefault(hadm, text)
            target = {h: (b, d) for h, b, d in zip(tables["discharge_target"]["hadm_id"],
                                                    tables["discharge_target"]["brief_hospital_course"],
                                                    tables["discharge_target"]["discharge_instructions"])}
            data = datasets.load_dataset("csv", data_files=str(path), split="train", cache_dir=cache,
                                         keep_default_na=False)
            data = data.filter(lambda b: [s in subjects and h in stays and h in radiology and h in target
                                          for s, h in zip(b["subject_id"], b["hadm_id"])], batched=True)

            def render(batch):
                prompts, answers = [], []
                for hadm, text in zip(batch["hadm_id"], batch["text"]):
                    bhc, di = target[hadm]
                    note = text.replace(bhc, "").replace(di, "")
                    for variant, answer in (("brief hospital course", bhc), ("discharge instructions", di)):
                        prompts.append(f"Discharge summary (target section removed):\n{note}\n\nRadiology report:\n"
                                       f"{radiology[hadm]}\n\nWrite the {variant} for this admission.")
                        answers.append(answer)
                return {"prompt": prompts, "reference": answers}
        else:
            # Every value as text, as clinreg reads a CSV (Error Flag stays "0"/"1", ids keep their form).
            data = datasets.load_dataset("csv", data_files=str(path), split="train", cache_dir=cache,
                                         keep_default_na=False)
            data = data.cast(datasets.Features({c: datasets.Value("string") for c in data.column_names}))
            data = data.filter(lambda b: [bool(s and s.strip()) for s in b["Sentences"]], batched=True)

            def render(batch):
                refs = [f"{i} {c}" if f == "1" and c != "NA" and i != "-1" else "CORRECT"
                        for f, i, c in zip(batch["Error Flag"], batch["Error Sentence ID"],
                                           batch["Corrected Sentence"])]
                prompts = ["The following clinical text has numbered sentences.\n\n" + s for s in batch["Sentences"]]
                return {"prompt": prompts, "reference": refs}
        built = data.map(render, batched=True, batch_size=1000, remove_columns=data.column_names)
        built.to_json(str(out), lines=True, force_ascii=False)
        return len(built)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


CHILD = """
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[1] + "/bench")
import bench_build_shapes as b
from pathlib import Path
profile = None
if os.environ.get("CLINREG_BENCH_PROFILE"):
    import cProfile
    profile = cProfile.Profile()
    profile.enable()
started, cpu = time.perf_counter(), time.process_time()
n = b.clinreg_side(Path(os.environ["CLINREG_BENCH_REPO"]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
if profile is not None:
    import pstats
    profile.disable()
    pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(int(os.environ["CLINREG_BENCH_PROFILE"]))
print(json.dumps({"rows": n, "seconds": seconds, "cpu": cpu,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


# Each side runs in a grandchild: Linux copies a process's memory high-water mark into a child it forks, and this
# process has held a whole mirror in memory while making it, so a direct child's ru_maxrss would report that.
# The launcher is a fresh small process; the side it starts reports only its own peak.
LAUNCHER = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"


def launched(args: list[str]) -> list[str]:
    """`args` (a Python command line) run through the launcher."""
    return [sys.executable, "-c", LAUNCHER, *args]


# Children may cache bytecode, so that neither side spends its time compiling the libraries it imports.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_child(repo: Path, record: str, mirror: Path, out: Path, profile: int = 0) -> dict:
    """One build in a fresh process (the side being measured pays its own imports in both cases). With
    `profile`, the build runs under cProfile and its top functions by own time are printed (that run's time is
    the profiler's, not counted)."""
    env = {**ENV, "CLINREG_BENCH_REPO": str(repo), **({"CLINREG_BENCH_PROFILE": str(profile)} if profile else {})}
    done = subprocess.run(launched([sys.executable, "-c", CHILD, str(REPO), record, str(mirror), str(out)]),
                          capture_output=True, text=True, cwd=REPO, env=env)
    if done.returncode:
        sys.exit(done.stderr[-2000:])
    if profile:
        print(f"\n### {record}: top {profile} functions by own time (cumulative times of generators include "
              "the batches they pull)\n", file=sys.stderr)
        print(done.stderr, file=sys.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


BASE_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import bench_build_shapes as b
from pathlib import Path
started, cpu = time.perf_counter(), time.process_time()
n = b.baseline_side(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
print(json.dumps({"rows": n, "seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_baseline(record: str, path: Path, out: Path) -> dict:
    done = subprocess.run(launched([sys.executable, "-c", BASE_CHILD, str(REPO / "bench"), record, str(path),
                                    str(out)]),
                          capture_output=True, text=True, cwd=REPO,
                          env={**ENV, "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"})
    if done.returncode:
        sys.exit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} CPUs)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--base", help="also build at this commit, for a before/after ratio")
    parser.add_argument("--data", type=Path, default=REAL)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--records", nargs="+", choices=list(SHAPES), default=list(SHAPES))
    parser.add_argument("--profile", type=int, nargs="?", const=25, default=0, metavar="N",
                        help="after the timed runs, build each record once more under cProfile and print its top N "
                             "functions by own time (25 by default) on stderr")
    args = parser.parse_args()
    if not args.data.is_dir():
        sys.exit(f"no real samples at {args.data}")
    work = Path(tempfile.mkdtemp(prefix="bench-shapes-"))
    base = None
    try:
        if args.base:
            base = work / "base"
            subprocess.run(["git", "worktree", "add", "-q", "--detach", str(base), args.base], cwd=REPO, check=True)
        print(f"load average before: {_load()}", flush=True)
        print("| record | rows | clinreg build (s) | datasets pipeline (s) | ratio | clinreg peak (MB) | "
              "datasets peak (MB) | CPU s: clinreg / datasets (ratio) | "
              + ("at base (s) | speed-up | base peak (MB) | CPU s at base (speed-up) |" if base else ""))
        print("|---|--:|--:|--:|--:|--:|--:|--:|" + ("--:|--:|--:|--:|" if base else ""))
        for record in args.records:
            mirror = work / f"mirror-{record}"
            path = make_mirror(args.data, mirror, record, args.rows)
            best: dict[str, float] = {}
            cpu: dict[str, float] = {}  # each process's CPU seconds, all threads (a loaded machine moves it less)
            peak: dict[str, float] = {}
            for _ in range(args.repeat):
                sides = [("clinreg", functools.partial(run_child, REPO, record, mirror, work / "a.jsonl")),
                         ("baseline", functools.partial(run_baseline, record, path, work / "b.jsonl"))]
                if base:
                    sides.append(("base", functools.partial(run_child, base, record, mirror, work / "c.jsonl")))
                for name, fn in sides:
                    result = fn()
                    best[name] = min(best.get(name, result["seconds"]), result["seconds"])
                    cpu[name] = min(cpu.get(name, result["cpu"]), result["cpu"])
                    peak[name] = max(peak.get(name, 0.0), result["peak_mb"])
            if args.profile:
                run_child(REPO, record, mirror, work / "p.jsonl", profile=args.profile)
            ratio = best["baseline"] / best["clinreg"]
            extra = (f" {best['base']:.1f} | {best['base'] / best['clinreg']:.2f}x | {peak['base']:,.0f} | "
                     f"{cpu['base']:.1f} ({cpu['base'] / cpu['clinreg']:.2f}x) |" if base else "")
            print(f"| {record} | {args.rows:,} | {best['clinreg']:.1f} | {best['baseline']:.1f} | {ratio:.2f} | "
                  f"{peak['clinreg']:,.0f} | {peak['baseline']:,.0f} | {cpu['clinreg']:.1f} / {cpu['baseline']:.1f} "
                  f"({cpu['baseline'] / cpu['clinreg']:.2f}) |{extra}", flush=True)
        print(f"load average after: {_load()}")
    finally:
        if base:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=REPO)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
