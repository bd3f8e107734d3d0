"""Time and peak memory of each hostile input of the hardening issue (21), refused at its bound.

Usage: python bench/bench_hostile.py [--case NAME] [--json]

Each case builds its hostile input in a temporary folder, then runs the clinreg code that must refuse it, in a
fresh process that reports the time from the input being ready to the refusal, and its own peak RSS
(`ru_maxrss`, which includes making the input); the contract is under 30 s and 2 GiB, ending in a located
problem. The inputs are the ones the issue describes (the same shapes as the
regression tests in tests/hardening/, at the issue's sizes rather than the tests' smaller ones).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Each case: (what the input is, Python run in the child; `work` is the temporary folder). The child prints
# the outcome's first line; the launcher adds time and memory.
CASES: dict[str, tuple[str, str]] = {
    "gz-bomb": ("class 7: a .csv.gz of 512 MiB of CSV (under 1 MB packed)", """
        import gzip
        from clinreg.sources.files import read_text
        bomb = work / "notes.csv.gz"
        with gzip.open(bomb, "wb", compresslevel=9) as out:
            block = b"a,b\\n" * (1 << 18)
            for _ in range(512):
                out.write(block)
        mark()
        try:
            read_text(bomb, "utf-8")
        except Exception as exc:
            print(type(exc).__name__, str(exc)[:160])
    """),
    "shared-strings": ("class 11: an .xlsx listing ten million shared strings", """
        import zipfile
        from clinreg.sources.formats.office import check_office_file
        book = work / "book.xlsx"
        with zipfile.ZipFile(book, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("[Content_Types].xml", "<Types/>")
            z.writestr("xl/sharedStrings.xml", b"<sst>" + b"<si><t>x</t></si>" * 10_000_000 + b"</sst>")
        mark()
        try:
            check_office_file(book, "workbook")
        except Exception as exc:
            print(type(exc).__name__, str(exc)[:160])
    """),
    "join-explosion": ("class 8: one key repeated 2,000 times on both sides of a one_to_many join (2 MB right)", """
        import pyarrow as pa
        from clinreg.core.model import JoinStep
        from clinreg.sources.steps import join
        left = pa.table({"k": ["same"] * 2000})
        right = pa.table({"k": ["same"] * 2000, "note": ["x" * 1000] * 2000})
        spec = JoinStep.model_validate({"table": "notes", "keys": ["k"], "cardinality": "one_to_many", "columns": \
["note"]})
        mark()
        try:
            join(left, right, spec, "rec: split 'test'", {})
        except Exception as exc:
            print(type(exc).__name__, str(exc)[:160])
    """),
    "looping-links": ("class 9: four links to `.` and a pattern 12 levels deep (4**12 paths)", """
        import os
        from clinreg.sources.files import match_files
        mirror = work / "mirror"
        (mirror / "data").mkdir(parents=True)
        (mirror / "data" / "t.csv").write_text("a\\n1\\n")
        for name in ("x", "y", "z", "w"):
            os.symlink(".", mirror / "data" / name)
        mark()
        found = match_files(mirror, "data/" + "*/" * 12 + "t.csv", {}, "rec: split 'test'")
        print("matched", len(found), "file(s)")
    """),
    "slow-template": ("class 10: 1,000 rows of a template that takes about 50 ms on each (50 s in all)", """
        from clinreg.templating import sandbox as templates
        slow = "{% for i in range(400) %}{% for j in range(400) %}{{ note }}{% endfor %}{% endfor %}"
        t = templates.InputTemplate(slow, "rec: render step")
        mark()
        try:
            for _, context in t.row_contexts(["note"], [["x"] * 1000], range(1000)):
                t.render_with_globals(context)
            print("rendered all rows")
        except Exception as exc:
            print(type(exc).__name__, str(exc)[:160])
    """),
    "eval-bomb": ("class 6: a 1.2 MB Inspect .eval of 20 members that inflate to 60 MiB each", """
        import zipfile
        log = work / "bomb.eval"
        header = b'{"version": 2, "status": "success", "eval": {"task": "clinreg_med_qa", "model": "m"}, "results": \
{"scores": []}}'
        with zipfile.ZipFile(log, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("header.json", header)
            for i in range(20):
                z.writestr(f"samples/{i}.json", b'{"pad": "' + b"a" * (60 << 20) + b'"}')
        print(log.stat().st_size, "bytes on disk")
        import_results(log)
    """),
    "json-no-score": ("class 6: a 63 MiB results .json of 22 million empty objects, holding no score", """
        path = work / "empty.json"
        path.write_text('{"results": [' + ",".join(["{}"] * ((63 << 20) // 3)) + ']}')
        print(path.stat().st_size >> 20, "MiB;")
        import_results(path)
    """),
    "deep-decisions": ("class 3: review decisions JSON nested 200,000 deep", """
        from clinreg.core.store import load_registry
        from clinreg.review.exchange import read_decisions
        path = work / "decisions.json"
        path.write_text("[" * 200_000 + "]" * 200_000)
        reg = load_registry()
        mark()
        try:
            read_decisions(path, reg)
        except Exception as exc:
            print(type(exc).__name__, str(exc)[:160])
    """),
    "yaml11-trap": ("YAML: the YAML 1.1 trap check on a 1 MiB underscored float (once quadratic)", """
        from clinreg.core.yamlsrc.tags import is_yaml11_trap
        text = "1" + "_1" * 500_000 + ".5"
        mark()
        print("trap:", is_yaml11_trap(text, 1.5))
    """),
    "yaml-shapes": ("YAML: 1 MiB of nested flow lists, and a billion-laughs document", """
        from clinreg.core.yamlsrc import parse_yaml
        laughs = b"a0: &a0 [x]\\n" + b"".join(
            b"a%d: &a%d [" % (i, i) + b", ".join([b"*a%d" % (i - 1)] * 10) + b"]\\n" for i in range(1, 10))
        mark()
        for raw in (b"a: " + b"[" * (1 << 19) + b"]" * (1 << 19), laughs):
            print([p.code for p in parse_yaml(raw[: 1 << 20]).problems][:1])
    """),
}

LAUNCHER = """
import resource, sys, time, tempfile
from pathlib import Path
started = time.perf_counter()
def mark():  # the input is made: time the refusal from here
    global started
    started = time.perf_counter()
def import_results(path):  # `clinreg results import` of one file, timed from here; the first problem shown
    from clinreg.core.store import load_registry
    from clinreg.results.importing import collect
    reg = load_registry()
    mark()
    scores, _, findings = collect(reg, [path])
    print(len(scores), "score(s);", (findings.diagnostics[0].message if findings.diagnostics else "")[:160])
with tempfile.TemporaryDirectory() as folder:
    work = Path(folder)
    exec(compile(sys.argv[1], "case", "exec"))
print("__bench__", time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def run_case(name: str) -> dict:
    what, code = CASES[name]
    done = subprocess.run([sys.executable, "-c", LAUNCHER, textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=600, cwd=REPO)
    lines = done.stdout.strip().splitlines()
    stats = next((line.split() for line in lines if line.startswith("__bench__")), None)
    outcome = " ".join(line for line in lines if not line.startswith("__bench__"))[:200]
    if stats is None:
        return {"case": name, "input": what, "error": (done.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    return {"case": name, "input": what, "seconds": round(float(stats[1]), 2), "peak_mib": round(int(stats[2]) / 1024),
            "outcome": outcome}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [run_case(name) for name in (args.case or list(CASES))]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("| case | input | time (s) | peak RSS (MiB) | outcome |")
    print("|---|---|--:|--:|---|")
    for r in rows:
        print(f"| {r['case']} | {r['input']} | {r.get('seconds', '–')} | {r.get('peak_mib', '–')} | "
              f"{r.get('outcome') or r.get('error')} |")


if __name__ == "__main__":
    main()
