"""MedHELM's own files, read as they are: a HELM or MedHELM source tree, an unpacked wheel, a `.whl`, or the
installed `helm` package (`open_source`), and what they say (`read_medhelm`):
- the benchmarks: the run groups under MedHELM's five category groups in `static/schema_medhelm.yaml`;
- each benchmark's category (the category group that lists it) and subcategory (the `### Subcategory ###`
  header above its entries in `presentation/run_entries_medhelm_*.conf`, where the source ships those files);
- each benchmark's main metric (`environment.main_name` of its run group);
- the jury's judges (`scenarios/medhelm/judges.yaml`).
`compare.py` sets that view against one of the registry's editions.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from clinreg.errors import ClinregError

SCHEMA = "static/schema_medhelm.yaml"
RUN_SPECS = "run_specs/medhelm_run_specs.py"
JUDGES = "scenarios/medhelm/judges.yaml"
CONF = re.compile(r"presentation/run_entries_medhelm_[a-z_]+\.conf")
CATEGORY_GROUPS = "Healthcare Task Categories"  # the `category` of MedHELM's five category run groups
MAX_FILE_BYTES = 16 << 20  # no MedHELM file comes near this; a larger one is not what it claims to be

_CATEGORY_HEADER = re.compile(r"^#{5,}\s*(.+?)\s*#{5,}\s*$")
_SUB_HEADER = re.compile(r"^#{3}\s*(.+?)\s*#{3}\s*$")
_ENTRY = re.compile(r'^\s*\{\s*description:\s*"([A-Za-z0-9_]+)[:"]')
_SPEC_FUNCTION = re.compile(r'@run_spec_function\(\s*"([A-Za-z0-9_]+)"\s*\)')
_GROUPS = re.compile(r"groups\s*=\s*\[([^\]]*)\]")
_STRING = re.compile(r'"([A-Za-z0-9_]+)"')


class SourceError(ClinregError):
    """MedHELM's files cannot be read from the source given (exit 2)."""

    default_code = "CLR985"


# --------------------------------------------------------------------------------------------- reading the files


class MedhelmFiles:
    """The files under `helm/benchmark/` of one source, read by their path below that folder."""

    def __init__(self, describe: str) -> None:
        self.describe = describe

    def read(self, rel: str) -> str | None:  # pragma: no cover - overridden
        raise NotImplementedError

    def names(self) -> list[str]:  # pragma: no cover - overridden
        raise NotImplementedError

    def display(self, rel: str) -> str:
        return f"helm/benchmark/{rel}"


class _Folder(MedhelmFiles):
    def __init__(self, base: Path, describe: str) -> None:
        super().__init__(describe)
        self.base = base

    def read(self, rel: str) -> str | None:
        path = self.base / rel
        try:
            if not path.is_file():
                return None
            if path.stat().st_size > MAX_FILE_BYTES:
                raise SourceError(f"{self.display(rel)} is larger than {MAX_FILE_BYTES >> 20} MiB")
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise SourceError(f"{self.display(rel)} is not UTF-8 text") from None
        except OSError as exc:
            raise SourceError(f"{self.display(rel)}: cannot read it: {exc.strerror or exc}") from None

    def names(self) -> list[str]:
        folder = self.base / "presentation"
        return sorted(f"presentation/{p.name}" for p in folder.glob("*.conf")) if folder.is_dir() else []


class _Wheel(MedhelmFiles):
    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise SourceError(f"{path}: not a readable wheel ({exc})") from None
        self.members = {i.filename: i for i in self.zip.infolist()}

    def read(self, rel: str) -> str | None:
        info = self.members.get(f"helm/benchmark/{rel}")
        if info is None:
            return None
        if info.file_size > MAX_FILE_BYTES:
            raise SourceError(f"{self.display(rel)} in {self.describe} is larger than {MAX_FILE_BYTES >> 20} MiB")
        try:
            return self.zip.read(info).decode("utf-8")
        except (zipfile.BadZipFile, UnicodeDecodeError, OSError, EOFError) as exc:
            raise SourceError(f"{self.display(rel)} in {self.describe}: cannot read it ({exc})") from None

    def names(self) -> list[str]:
        prefix = "helm/benchmark/"
        return sorted(n[len(prefix):] for n in self.members if n.startswith(prefix + "presentation/"))


# Run in another Python: the folders of its `helm` package, found without importing helm (find_spec of a top-level
# name reads the import path only), and without the working folder on that path.
_PROBE = ("import importlib.util, json, sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
          "s = importlib.util.find_spec('helm'); "
          "print(json.dumps(list(s.submodule_search_locations or []) if s else []))")
PROBE_SECONDS = 60  # a cold interpreter on a busy machine answers in well under this


def env_python(env: str | Path) -> Path:
    """The interpreter of a virtual environment folder (bin/python, or Scripts/python.exe on Windows)."""
    base = Path(env)
    for candidate in (base / "bin" / "python", base / "bin" / "python3", base / "Scripts" / "python.exe"):
        if candidate.exists():
            return candidate
    raise SourceError(f"--env {env}: no bin/python (or Scripts/python.exe) in it; give the environment's folder, "
                      "e.g. --env ~/helm-venv, or its interpreter with --python")


def helm_location(python: str | Path, timeout: float = PROBE_SECONDS) -> Path:
    """Where the `helm` package of another Python lives, asked of that interpreter (it never imports helm)."""
    where = f"--python {python}"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    try:
        done = subprocess.run([str(python), "-c", _PROBE], capture_output=True, text=True, timeout=timeout,
                              env=env, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise SourceError(f"{where}: no such interpreter") from None
    except PermissionError:
        raise SourceError(f"{where}: not an interpreter that can be run") from None
    except subprocess.TimeoutExpired:
        raise SourceError(f"{where}: did not answer within {timeout:.0f} seconds") from None
    except OSError as exc:
        raise SourceError(f"{where}: cannot run it ({exc.strerror or exc})") from None
    try:
        locations = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else None
    except (ValueError, IndexError):
        locations = None
    if not isinstance(locations, list):
        last = (done.stderr.strip().splitlines() or ["no answer"])[-1]
        raise SourceError(f"{where}: not a Python that answered ({last[:200]})")
    if not locations:
        raise SourceError(f"{where}: that Python has no `helm` package (install medhelm or crfm-helm into it: "
                          f"{python} -m pip install medhelm)")
    return Path(locations[0])


def _helm_folder(location: Path, label: str, what: str) -> MedhelmFiles:
    base = location / "benchmark"
    if not (base / SCHEMA).is_file():
        raise SourceError(f"{label}: the `helm` package at {location} has no benchmark/{SCHEMA}")
    return _Folder(base, f"{what} ({location})")


def open_source(source: str | Path | None, installed: bool = False, python: str | Path | None = None) -> MedhelmFiles:
    """MedHELM's files from a source tree, an unpacked wheel, a `.whl` file, (`installed`) the `helm` package this
    Python would import, or (`python`) the one another interpreter would import; found without importing it."""
    if python is not None:
        return _helm_folder(helm_location(python), f"--python {python}", f"the helm package of {python}")
    if installed:
        spec = importlib.util.find_spec("helm")
        locations = list(spec.submodule_search_locations or []) if spec else []
        if not locations:
            raise SourceError(f"--installed: clinreg's own Python ({sys.executable}) has no `helm` package; where "
                              "HELM has a venv of its own, give --env VENV_FOLDER or --python VENV/bin/python")
        return _helm_folder(Path(locations[0]), "--installed", "the installed helm package")
    if source is None:
        raise SourceError("give a SOURCE (a HELM or MedHELM tree, an unpacked wheel or a .whl file), --env VENV, "
                          "--python PATH or --installed")
    path = Path(source)
    if path.is_file():
        return _Wheel(path)
    if not path.is_dir():
        raise SourceError(f"{source}: no such file or folder")
    for base in (path / "helm" / "benchmark", path / "src" / "helm" / "benchmark", path / "benchmark", path):
        if (base / SCHEMA).is_file():
            return _Folder(base, str(path))
    raise SourceError(f"{source}: no helm/benchmark/{SCHEMA} in it (nor under src/)")


# --------------------------------------------------------------------------------------------- MedHELM's view


@dataclass
class Benchmark:
    name: str
    category: str  # the category group's display name
    main_metric: str | None
    line: int  # where its run group starts in the schema
    subcategories: set[str] = field(default_factory=set)
    conf_lines: list[str] = field(default_factory=list)


@dataclass
class MedhelmView:
    describe: str
    benchmarks: dict[str, Benchmark]
    confs: list[str]  # the conf files read (empty when the source ships none)
    judges: list[str] | None  # judge models, or None without a judges file
    notes: list[str]


def _schema(files: MedhelmFiles) -> tuple[dict[str, Any], str]:
    text = files.read(SCHEMA)
    if text is None:
        raise SourceError(f"{files.describe}: no {files.display(SCHEMA)}")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise SourceError(f"{files.display(SCHEMA)}{where}: not YAML "
                          f"({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("run_groups"), list):
        raise SourceError(f"{files.display(SCHEMA)}: no `run_groups` list")
    return data, text


def _group_lines(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        match = re.match(r"^\s*-\s*name:\s*['\"]?([A-Za-z0-9_]+)['\"]?\s*$", line)
        if match:
            out.setdefault(match.group(1), number)
    return out


def _spec_groups(text: str | None, benchmarks: set[str]) -> dict[str, str]:
    """Run-entry name -> the MedHELM run group its run spec reports under (`medhelm_med_qa` -> `med_qa`)."""
    if not text:
        return {}
    out: dict[str, str] = {}
    starts = [(m.start(), m.group(1)) for m in _SPEC_FUNCTION.finditer(text)]
    for i, (start, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        for groups in _GROUPS.finditer(text, start, end):
            named = [g for g in _STRING.findall(groups.group(1)) if g in benchmarks]
            if named:
                out[name] = named[-1]
                break
    return out


def read_medhelm(files: MedhelmFiles) -> MedhelmView:
    data, text = _schema(files)
    lines = _group_lines(text)
    groups = {g.get("name"): g for g in data["run_groups"] if isinstance(g, dict) and isinstance(g.get("name"), str)}
    benchmarks: dict[str, Benchmark] = {}
    for group in groups.values():
        if group.get("category") != CATEGORY_GROUPS or not isinstance(group.get("subgroups"), list):
            continue
        category = str(group.get("display_name") or group["name"])
        for name in group["subgroups"]:
            if not isinstance(name, str) or name in benchmarks:
                continue
            leaf = groups.get(name) or {}
            environment = leaf.get("environment") if isinstance(leaf.get("environment"), dict) else {}
            main = environment.get("main_name")
            benchmarks[name] = Benchmark(name, category, str(main) if main is not None else None, lines.get(name, 1))
    if not benchmarks:
        raise SourceError(f"{files.display(SCHEMA)}: no run group has category {CATEGORY_GROUPS!r}; is this MedHELM's "
                          "schema?")
    notes: list[str] = []
    aliases = _spec_groups(files.read(RUN_SPECS), set(benchmarks))
    confs = [n for n in files.names() if CONF.fullmatch(n)]
    for conf in confs:
        category = sub = None
        for number, line in enumerate((files.read(conf) or "").splitlines(), 1):
            stripped = line.strip()
            header = _CATEGORY_HEADER.match(stripped)
            if header:
                category, sub = header.group(1), None
                continue
            header = _SUB_HEADER.match(stripped)
            if header:
                sub = header.group(1)
                continue
            entry = _ENTRY.match(line)
            if entry is None or sub is None:
                continue
            name = aliases.get(entry.group(1), entry.group(1))
            if name in benchmarks and sub not in benchmarks[name].subcategories:
                benchmarks[name].subcategories.add(sub)
                benchmarks[name].conf_lines.append(f"{files.display(conf)}:{number}")
    if not confs:
        notes.append(f"{files.describe} ships no run-entry confs (presentation/run_entries_medhelm_*.conf): "
                     "subcategories were not compared")
    judges_text = files.read(JUDGES)
    judges = None
    if judges_text is None:
        notes.append(f"{files.describe} has no {files.display(JUDGES)}: the judges were not compared")
    else:
        try:
            listed = (yaml.safe_load(judges_text) or {}).get("judges") or []
            judges = sorted(str(j.get("model")) for j in listed if isinstance(j, dict) and j.get("model"))
        except (yaml.YAMLError, AttributeError):
            raise SourceError(f"{files.display(JUDGES)}: not a judges list") from None
    return MedhelmView(files.describe, benchmarks, confs, judges, notes)
