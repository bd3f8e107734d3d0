"""Check a core install of clinreg (the wheel, no extras): schemas ship and resolve, `build` names its extra, and
`export croissant` (which reads no data) works.

usage: CORE_VENV/bin/python .ci/check_core.py CORE_VENV/bin/clinreg   (run from the checkout)
"""

import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def main(clinreg: str) -> int:
    problems = []
    for heavy in ("datasets", "pyarrow", "pandas"):
        if importlib.util.find_spec(heavy) is not None:
            problems.append(f"{heavy} is installed in the core environment")
    spec = importlib.util.find_spec("clinreg")
    package = Path(spec.origin).parent
    registry = package / "_registry"
    headers = 0
    for path in sorted(registry.rglob("*.yaml")):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        match = re.match(r"# yaml-language-server: \$schema=(\S+)", first)
        if match is None:
            problems.append(f"{path.relative_to(registry)}: no $schema header")
            continue
        headers += 1
        if not (path.parent / match.group(1)).resolve().is_file():
            problems.append(f"{path.relative_to(registry)}: $schema {match.group(1)} does not resolve")
    with tempfile.TemporaryDirectory() as tmp:
        build = subprocess.run([clinreg, "build", "med_qa"], capture_output=True, text=True, cwd=tmp)
        module = subprocess.run([sys.executable, "-m", "clinreg", "validate"], capture_output=True, text=True, cwd=tmp)
        croissant = subprocess.run([clinreg, "export", "croissant", "med_qa", "-o", "croissant"], capture_output=True,
                                   text=True, cwd=tmp)
        croissant_written = (Path(tmp) / "croissant" / "med_qa.croissant.json").is_file()
    if build.returncode != 2 or "clinreg[build]" not in build.stderr or build.stderr.count("\n") != 1:
        problems.append(f"build without the extra: exit {build.returncode}, stderr {build.stderr!r}")
    if croissant.returncode != 0 or not croissant_written:
        problems.append(f"export croissant without the extra: exit {croissant.returncode}: {croissant.stderr[-500:]}")
    if module.returncode != 0:
        problems.append(f"python -m clinreg validate: exit {module.returncode}: {module.stderr[-500:]}")
    for problem in problems:
        print(f"check_core: {problem}", file=sys.stderr)
    print(f"check_core: {headers} $schema headers resolve; build names the extra; export croissant needs "
          "none; python -m clinreg works")
    return 1 if problems or headers == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
