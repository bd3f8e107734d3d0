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
import stat
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinreg.core.yamlsrc import Limits, parse_yaml
from clinreg.errors import ClinregError
from clinreg.text.safeio import NotARegularFile, open_regular

SCHEMA = "static/schema_medhelm.yaml"
RUN_SPECS = "run_specs/medhelm_run_specs.py"
JUDGES = "scenarios/medhelm/judges.yaml"
CONF = re.compile(r"presentation/run_entries_medhelm_[a-z_]+\.conf")
CATEGORY_GROUPS = "Healthcare Task Categories"  # the `category` of MedHELM's five category run groups
MAX_FILE_BYTES = 16 << 20  # no MedHELM file comes near this; a larger one is not what it claims to be
# MedHELM's YAML files (the schema is about 60 KB, 1,500 values; the judges file under 1 KB) are read by clinreg's
# own YAML reader (libyaml's parser, values built as the events come): nesting, aliases and values are bounded as
# the file is read, so a hostile file stops at a located problem, never in a RecursionError or a huge expansion.
YAML_LIMITS = Limits(max_bytes=4 << 20, max_depth=40, max_aliases=64, max_nodes=200_000)
# With aliases expanded, the values may hold at most this many times the file's characters (plus a little): a
# file without aliases never comes near it, and an alias bomb (an anchor repeated inside anchors repeated ...)
# is refused before anything turns it into a string.
EXPANSION_RATIO = 4
MAX_MEMBERS = 200_000  # a wheel's central directory; HELM's wheel has a few thousand members

_ENTRY = re.compile(r'^\s*\{\s*description:\s*"([A-Za-z0-9_]+)[:"]')
_SPEC_FUNCTION = re.compile(r'@run_spec_function\(\s*"([A-Za-z0-9_]+)"\s*\)')
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
    """A folder's files: only regular files that are inside `root` (the folder given, resolved), links followed
    only as far as they stay inside it; a FIFO, a device or a link out of the tree is refused before it is opened."""

    def __init__(self, base: Path, describe: str, root: Path | None = None) -> None:
        super().__init__(describe)
        self.base = base
        self.root = (root or base).resolve()

    def read(self, rel: str, limit: int = MAX_FILE_BYTES) -> str | None:
        where = self.display(rel)
        try:
            try:
                real = (self.base / rel).resolve(strict=True)
            except FileNotFoundError:
                return None
            except RuntimeError:  # a link loop (Python < 3.13)
                raise SourceError(f"{where}: a link that loops; not read", file=where) from None
            if not real.is_relative_to(self.root):
                raise SourceError(f"{where}: a link to {real}, outside {self.root}; only files inside the source "
                                  "are read", file=where)
            info = real.stat()
            if stat.S_ISDIR(info.st_mode):
                return None
            if not stat.S_ISREG(info.st_mode):
                raise SourceError(f"{where}: not a regular file (a FIFO, a device or a socket); not read", file=where)
            with open_regular(real) as handle:
                data = _bounded(handle, limit, where)
        except NotARegularFile:
            raise SourceError(f"{where}: not a regular file (a FIFO, a device or a socket); not read",
                              file=where) from None
        except OSError as exc:
            raise SourceError(f"{where}: cannot read it: {exc.strerror or exc}", file=where) from None
        return _text(data, where)

    def names(self) -> list[str]:
        folder = self.base / "presentation"
        return sorted(f"presentation/{p.name}" for p in folder.glob("*.conf")) if folder.is_dir() else []


def _bounded(handle, limit: int, where: str) -> bytes:
    """At most `limit` bytes from `handle`, read in chunks whatever a size field said; refused past the limit."""
    parts: list[bytes] = []
    got = 0
    while chunk := handle.read(min(1 << 20, limit + 1 - got)):
        parts.append(chunk)
        got += len(chunk)
        if got > limit:
            raise SourceError(f"{where} is larger than {limit >> 20} MiB; not read", file=where)
    return b"".join(parts)


def _text(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SourceError(f"{where}:{line}: not UTF-8 text", file=where, line=line) from None


class _Wheel(MedhelmFiles):
    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        try:
            handle = open_regular(path)
        except NotARegularFile:
            raise SourceError(f"{path}: not a regular file or a folder (a FIFO, a device or a socket)",
                              file=str(path)) from None
        except OSError as exc:
            raise SourceError(f"{path}: cannot read it: {exc.strerror or exc}", file=str(path)) from None
        try:
            self.zip = zipfile.ZipFile(handle)
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
            handle.close()
            raise SourceError(f"{path}: not a readable wheel ({exc})", file=str(path)) from None
        if len(infos) > MAX_MEMBERS:
            self.zip.close()
            raise SourceError(f"{path}: more than {MAX_MEMBERS:,} members; not a wheel of HELM", file=str(path))
        self.members = {i.filename: i for i in infos}

    def read(self, rel: str, limit: int = MAX_FILE_BYTES) -> str | None:
        info = self.members.get(f"helm/benchmark/{rel}")
        if info is None or info.is_dir():
            return None
        where = f"{self.display(rel)} in {self.describe}"
        if info.file_size > limit:
            raise SourceError(f"{where} is larger than {limit >> 20} MiB; not read", file=self.display(rel))
        try:
            # The sizes in a zip's headers are the archive's word: the bytes unpacked are counted as they come.
            with self.zip.open(info) as handle:
                data = _bounded(handle, limit, where)
        except SourceError as exc:
            exc.file = self.display(rel)
            raise
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError, ValueError,
                zlib.error) as exc:
            raise SourceError(f"{where}: cannot read it ({exc})", file=self.display(rel)) from None
        return _text(data, self.display(rel))

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


def _present(path: Path) -> bool:
    """Whether there is something at `path` that is no folder (a file, a link, a FIFO: reading decides on it)."""
    return path.is_symlink() or (path.exists() and not path.is_dir())


def _helm_folder(location: Path, label: str, what: str) -> MedhelmFiles:
    base = location / "benchmark"
    if not _present(base / SCHEMA):
        raise SourceError(f"{label}: the `helm` package at {location} has no benchmark/{SCHEMA}")
    return _Folder(base, f"{what} ({location})", root=location)


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
    if not path.exists():
        raise SourceError(f"{source}: no such file or folder")
    if not path.is_dir():
        return _Wheel(path)  # which refuses anything but a regular file
    for base in (path / "helm" / "benchmark", path / "src" / "helm" / "benchmark", path / "benchmark", path):
        if _present(base / SCHEMA):
            return _Folder(base, str(path), root=path)
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


def _yaml(files: MedhelmFiles, rel: str, text: str) -> Any:
    """A YAML file of MedHELM's read within YAML_LIMITS (a YamlDoc: values and their lines); any problem is a
    located SourceError."""
    where = files.display(rel)
    doc = parse_yaml(text.encode("utf-8"), YAML_LIMITS)
    if doc.problems:
        problem = doc.problems[0]
        raise SourceError(f"{where}:{problem.line}:{problem.column}: not YAML clinreg reads ({problem.message})",
                          file=where, line=problem.line, column=problem.column)
    budget = EXPANSION_RATIO * len(text) + (64 << 10)
    if _expanded_size(doc.data, budget) > budget:
        raise SourceError(f"{where}: its aliases expand to more than {EXPANSION_RATIO} times the file's size (an "
                          "alias bomb?); not read", file=where)
    return doc


def _expanded_size(value: Any, budget: int) -> int:
    """The characters and values `value` holds with every alias expanded, counted up to just past `budget`."""
    stack, total = [value], 0
    while stack and total <= budget:
        item = stack.pop()
        total += 1
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            total += len(item)
    return total


def _schema(files: MedhelmFiles) -> tuple[dict[str, Any], Any]:
    text = files.read(SCHEMA, YAML_LIMITS.max_bytes)
    if text is None:
        raise SourceError(f"{files.describe}: no {files.display(SCHEMA)}")
    doc = _yaml(files, SCHEMA, text)
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("run_groups"), list):
        raise SourceError(f"{files.display(SCHEMA)}: no `run_groups` list", file=files.display(SCHEMA))
    return data, doc


def category_header(line: str) -> str | None:
    """The category of a conf's `##### Category #####` line (five or more `#` each side), else None. Read by
    counting, not by a pattern that could backtrack on a long line of `#`."""
    text = line.strip()
    inner = text.lstrip("#")
    lead = len(text) - len(inner)
    body = inner.rstrip("#")
    if lead < 5 or len(inner) - len(body) < 5:
        return None
    return body.strip() or None


def sub_header(line: str) -> str | None:
    """The subcategory of a conf's `### Subcategory ###` line (three `#` each side), else None."""
    text = line.strip()
    if len(text) < 7 or not text.startswith("###") or not text.endswith("###"):
        return None
    return text[3:-3].strip() or None


def _bracket_lists(text: str, start: int, end: int) -> Iterator[str]:
    """The inside of each `groups = [...]` in text[start:end], in order: one pass, no backtracking."""
    at = text.find("groups", start, end)
    while at >= 0:
        i = at + len("groups")
        while i < end and text[i].isspace():
            i += 1
        if i < end and text[i] == "=":
            i += 1
            while i < end and text[i].isspace():
                i += 1
            if i < end and text[i] == "[":
                close = text.find("]", i + 1, end)
                if close < 0:
                    return  # no `]` follows, so no later `groups = [` closes either
                yield text[i + 1:close]
                at = text.find("groups", close + 1, end)
                continue
        at = text.find("groups", at + 1, end)


def _spec_groups(text: str | None, benchmarks: set[str]) -> dict[str, str]:
    """Run-entry name -> the MedHELM run group its run spec reports under (`medhelm_med_qa` -> `med_qa`)."""
    if not text:
        return {}
    out: dict[str, str] = {}
    starts = [(m.start(), m.group(1)) for m in _SPEC_FUNCTION.finditer(text)]
    for i, (start, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        for inside in _bracket_lists(text, start, end):
            named = [g for g in _STRING.findall(inside) if g in benchmarks]
            if named:
                out[name] = named[-1]
                break
    return out


def read_medhelm(files: MedhelmFiles) -> MedhelmView:
    data, doc = _schema(files)
    groups: dict[str, dict[str, Any]] = {}
    lines: dict[str, int] = {}
    for i, g in enumerate(data["run_groups"]):
        if isinstance(g, dict) and isinstance(g.get("name"), str):
            groups[g["name"]] = g
            lines.setdefault(g["name"], doc.where(("run_groups", i, "name"))[0])
    benchmarks: dict[str, Benchmark] = {}
    for group in groups.values():
        if group.get("category") != CATEGORY_GROUPS or not isinstance(group.get("subgroups"), list):
            continue
        shown = group.get("display_name")
        category = shown if isinstance(shown, str) and shown else group["name"]
        for name in group["subgroups"]:
            if not isinstance(name, str) or name in benchmarks:
                continue
            leaf = groups.get(name) or {}
            environment = leaf.get("environment") if isinstance(leaf.get("environment"), dict) else {}
            main = environment.get("main_name")
            main = str(main) if isinstance(main, (str, int, float)) and not isinstance(main, bool) else None
            benchmarks[name] = Benchmark(name, category, main, lines.get(name, 1))
    if not benchmarks:
        raise SourceError(f"{files.display(SCHEMA)}: no run group has category {CATEGORY_GROUPS!r}; is this MedHELM's "
                          "schema?")
    notes: list[str] = []
    aliases = _spec_groups(files.read(RUN_SPECS), set(benchmarks))
    confs = [n for n in files.names() if CONF.fullmatch(n)]
    for conf in confs:
        category = sub = None
        for number, line in enumerate((files.read(conf) or "").splitlines(), 1):
            header = category_header(line)
            if header is not None:
                category, sub = header, None
                continue
            header = sub_header(line)
            if header is not None:
                sub = header
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
    judges_text = files.read(JUDGES, YAML_LIMITS.max_bytes)
    judges = None
    if judges_text is None:
        notes.append(f"{files.describe} has no {files.display(JUDGES)}: the judges were not compared")
    else:
        listed = _yaml(files, JUDGES, judges_text).data
        listed = (listed or {}).get("judges") if isinstance(listed, dict) or listed is None else False
        if not isinstance(listed, list | None):
            raise SourceError(f"{files.display(JUDGES)}: not a judges list", file=files.display(JUDGES))
        judges = sorted(j["model"] for j in listed or [] if isinstance(j, dict) and isinstance(j.get("model"), str)
                        and j["model"])
    return MedhelmView(files.describe, benchmarks, confs, judges, notes)
