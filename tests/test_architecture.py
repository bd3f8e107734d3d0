"""The package's layout, read from the code: imports point down the layers only, and no modules import each other
in a circle.

The layers, top to bottom: clinreg.cli -> the capabilities (exports, results, reports, review, contrib, medhelm) ->
clinreg.instances -> clinreg.sources -> clinreg.templating -> clinreg.rules -> clinreg.core -> clinreg.text. The
data path reads `exports -> instances -> sources -> templating -> core`: the template engine knows nothing of
files or instances, fetching and reading rows knows nothing of instances, and building instances knows nothing of
the harnesses. Every `import` statement counts, at module level or inside a
function (an import inside a function is still a dependency; it only runs later). `clinreg/__init__.py` imports
nothing at module level and serves its API lazily, so any module may read `clinreg.__version__`.

Each package below the root states its public surface in its `__init__`: `__all__`, and `_API`, the module behind
each name, served on first use (so importing a package imports none of its modules). The CLI imports from those
surfaces; an import of a surface's name counts as an import of the module behind it.
"""

from __future__ import annotations

import ast
import functools
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import clinreg

PACKAGE = Path(clinreg.__file__).resolve().parent
API = dict(clinreg._API)  # name -> module of the lazily served library API

LAYERS = {
    "errors": -1,  # clinreg/errors.py: the root exception, importing nothing of clinreg
    "text": 0,
    "core": 1,
    "scoring": 2,  # MedHELM's scoring, agreement statistics, graders, ratings files: on core, below every user
    "rules": 2,
    "templating": 3,  # the input template engine: the read steps (sources) and the mapping build (instances) call it
    "sources": 4,
    "instances": 5,
    "exports": 6, "results": 6, "reports": 6, "review": 6, "contrib": 6,
    "medhelm": 6,  # MedHELM's own files against the registry: reads them, compares with core; only the CLI uses it
    "cli": 7,
}
SURFACES = sorted(set(LAYERS) - {"errors", "cli"})  # the packages that state a public surface; the CLI needs none
TOP = {"__init__", "__main__", "errors"}  # the only modules allowed at the top level; errors imports nothing of clinreg


def _modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the package (templates copied into exports included)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _defined_names(path: Path) -> frozenset[str] | None:
    """The names a module defines at its top level (in if/try blocks too); None when it answers any name
    (a module-level __getattr__, or a star import)."""
    return _names_in(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def _names_in(text: str) -> frozenset[str] | None:  # cached by text: every import of a module asks again
    names: set[str] = set()
    todo = list(ast.parse(text).body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == "__getattr__":
                return None
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return None
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
            if isinstance(node, ast.For):
                todo.extend(node.body)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            todo.extend(node.body + getattr(node, "orelse", []) + getattr(node, "finalbody", []))
            for handler in getattr(node, "handlers", []):
                todo.extend(handler.body)
    return frozenset(names)


def _lazy_table(path: Path) -> dict[str, str]:
    """A package `__init__`'s `_API` (name -> the module behind it), read from the code; empty when it has none."""
    return dict(_table_in(path.read_text(encoding="utf-8")))


@functools.lru_cache(maxsize=None)
def _table_in(text: str) -> tuple[tuple[str, str], ...]:
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_API" for t in node.targets):
            return tuple(ast.literal_eval(node.value).items())
    return ()


def _imports(name: str, path: Path, known: dict[str, Path]) -> tuple[set[str], list[str]]:
    """The clinreg modules that `name` imports (resolved to the module, not the names taken from it), and the
    imports that name no module of the package (a module moved away, say)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    missing: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names if alias.name.split(".")[0] == "clinreg"]
            missing += [f"import {target}" for target in targets if target not in known]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != "clinreg":
                continue
            if source not in known:
                missing.append(f"from {source} import ...")
                continue
            targets = []
            defined = _defined_names(known[source])
            table = _lazy_table(known[source]) if known[source].name == "__init__.py" else {}
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in known:  # `from clinreg.rules import coverage` imports clinreg.rules.coverage
                    targets.append(submodule)
                    continue
                if alias.name in table:  # a package's lazy surface (the root's API too): the module behind the name
                    targets.append(table[alias.name])
                    continue
                if defined is not None and alias.name not in defined:
                    missing.append(f"from {source} import {alias.name}")
                targets.append(source)
        else:
            continue
        found.update(target for target in targets if target in known and target != name)
    return found, missing


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    if package == PACKAGE:
        return {name: set(targets) for name, targets in _package_graph().items()}  # read once per test run
    known = _modules(package)
    return {name: _imports(name, path, known)[0] for name, path in known.items()}


@functools.lru_cache(maxsize=1)
def _package_graph() -> dict[str, frozenset[str]]:
    known = _modules(PACKAGE)
    return {name: frozenset(_imports(name, path, known)[0]) for name, path in known.items()}


def unresolved_imports(package: Path = PACKAGE) -> list[str]:
    known = _modules(package)
    return [f"{name}: {line}" for name, path in known.items() for line in _imports(name, path, known)[1]]


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for module, targets in sorted(graph.items()):
        here = _layer(module)
        for target in sorted(targets):
            if target == "clinreg":
                continue  # `from clinreg import __version__`: the root imports nothing (see below)
            there = _layer(target)
            if here is not None and (there is None or there > here):
                out.append(f"{module} -> {target}")
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The same graph between the packages below clinreg (clinreg.core, clinreg.rules, ...)."""
    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        out.setdefault(package(module), set()).update(package(t) for t in targets if package(t) != package(module))
    return out


# --------------------------------------------------------------------------------------------- the checks


def test_no_module_imports_upward():
    assert upward_imports(import_graph()) == []


def test_no_import_circles_between_modules():
    assert cycles(import_graph()) == []


def test_no_import_circles_between_packages():
    assert cycles(package_graph(import_graph())) == []


def test_the_package_root_imports_nothing():
    """clinreg/__init__.py serves its API through a lazy __getattr__, so importing clinreg pulls in no module."""
    graph = import_graph()
    assert graph["clinreg"] == set()


def test_the_public_api_resolves():
    """Every name `clinreg` exports is there on first use, from wherever its module now lives."""
    for name in clinreg.__all__:
        assert getattr(clinreg, name) is not None, name
        if name in API:
            assert getattr(clinreg, name).__module__ == API[name], name
    assert callable(clinreg.validate) and callable(clinreg.load_registry) and callable(clinreg.coverage_data)
    with pytest.raises(AttributeError):
        clinreg.no_such_name  # noqa: B018


def test_the_root_exception_module_imports_nothing_of_clinreg():
    assert import_graph()["clinreg.errors"] == set()


def test_the_top_level_holds_only_packages():
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.stem not in TOP)
    assert loose == []
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages | {"errors"} == set(LAYERS), "a new package needs a place in LAYERS (and in the README's map)"


def command_crossings(graph: dict[str, set[str]]) -> list[str]:
    """Imports between command modules (clinreg.cli.* but the group and the shared helpers, cli/common*.py)."""
    commands = {m for m in graph if m.startswith("clinreg.cli.") and m != "clinreg.cli.main"
                and not m.startswith("clinreg.cli.common")}
    return sorted(f"{m} -> {t}" for m in commands for t in graph[m] if t in commands)


def test_command_modules_never_import_each_other():
    assert command_crossings(import_graph()) == []


@pytest.mark.slow
def test_every_import_names_a_module_that_exists():
    assert unresolved_imports() == []


@pytest.mark.slow
def test_the_tests_and_benchmarks_import_what_exists():
    """After a move, a test importing the old place fails to collect; this names every such line at once."""
    known = _modules(PACKAGE)
    repo = Path(__file__).resolve().parents[1]
    files = sorted((repo / "tests").rglob("*.py")) + sorted((repo / "bench").glob("*.py"))
    assert not [f"{path.relative_to(repo)}: {line}" for path in files for line in _imports("tests", path, known)[1]]


def test_creating_a_diagnostic_never_imports_the_rules():
    graph = import_graph()
    reached, todo = set(), ["clinreg.core.diagnostics"]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(graph.get(module, ()))
    assert not {m for m in reached if m.startswith("clinreg.rules")}
    assert "clinreg.core.codes" in reached


# ------------------------------------------------------------------------------------------------ the surfaces

# The names the CLI takes from a module rather than from its package's surface, each with the reason.
CLI_DEEP_IMPORTS = {
    ("clinreg.contrib.issueform", "FIX_COMMAND"): "clinreg.contrib.schemas has a FIX_COMMAND too: one name, two values",
    ("clinreg.contrib.schemas", "FIX_COMMAND"): "clinreg.contrib.issueform has a FIX_COMMAND too: one name, two values",
    ("clinreg.reports.medhelm", "render_text"): "too general a name for the reports surface: it is medhelm diff's text",
    ("clinreg.results.board_diff", "board_diff"): "its module's name: once that module loads, the name is the module",
}


def _origin(module: str, name: str, known: dict[str, Path]) -> str:
    """The module that defines `name`, following `from X import name` from `module` (an outside module: its name)."""
    for node in ast.walk(ast.parse(known[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            alias = next(a for a in node.names if (a.asname or a.name) == name)
            source = node.module or ""
            if source in known and f"{source}.{alias.name}" not in known:
                return _origin(source, alias.name, known)
            return f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
    return module


def surface_problems(package: str, known: dict[str, Path]) -> list[str]:
    """Where a package's `__all__`, its `_API` and the modules behind them disagree, read from the code."""
    init = known[package]
    tree = ast.parse(init.read_text(encoding="utf-8"))
    declared = [ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)]
    table = _lazy_table(init)
    if not declared or not table:
        return [f"{package}: no __all__ or no _API in its __init__"]
    names = declared[0]
    out = [f"{package}: {name} is in __all__ twice" for name in sorted(set(names)) if names.count(name) > 1]
    out += [f"{package}: {name} is in __all__ but not in _API" for name in sorted(set(names) - set(table))]
    out += [f"{package}: {name} is in _API but not in __all__" for name in sorted(set(table) - set(names))]
    for name, module in sorted(table.items()):  # a submodule of the name shadows the name once it is imported
        if f"{package}.{name}" in known and (module != f"{package}.{name}" or name in (_defined_names(
                known[module]) or ())):
            out.append(f"{package}: {name} is the name of a module and of a name in {module}")
        home = module if module == f"{package}.{name}" else _origin(module, name, known) if module in known else module
        if not home.startswith(f"{package}."):
            out.append(f"{package}: {name} comes from {home}, not from the package's own modules")
    for node in tree.body:  # importing the package imports none of its modules: only under TYPE_CHECKING
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] \
            if isinstance(node, ast.ImportFrom) else []
        out += [f"{package}: its __init__ imports {m} at run time" for m in modules if m.startswith(f"{package}.")]
    return out


def deep_cli_imports(package: Path = PACKAGE) -> list[str]:
    """The CLI's imports of a clinreg name from a module (`clinreg.X.module`) rather than from `clinreg.X`."""
    known = _modules(package)
    out = []
    for name, path in sorted(known.items()):
        if not name.startswith(f"{package.name}.cli."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out += [f"{name}: import {a.name}" for a in node.names if a.name.split(".")[0] == package.name
                        and a.name.split(".")[1:2] != ["cli"] and a.name.count(".") > 1]
            if not isinstance(node, ast.ImportFrom) or node.level or node.module is None:
                continue
            parts = node.module.split(".")
            if parts[0] != package.name or len(parts) < 3 or parts[1] == "cli":
                continue
            out += [f"{name}: from {node.module} import {a.name}" for a in node.names
                    if (node.module, a.name) not in CLI_DEEP_IMPORTS]
    return out


@pytest.mark.parametrize("package", SURFACES)
def test_every_package_states_its_surface(package):
    """`__all__` and the lazy `_API` agree, and every name comes from the package's own modules."""
    assert surface_problems(f"clinreg.{package}", _modules(PACKAGE)) == []


@pytest.mark.parametrize("package", SURFACES)
def test_every_name_of_a_surface_resolves(package):
    module = importlib.import_module(f"clinreg.{package}")
    assert set(module.__all__) == set(module._API) and set(module.__all__) <= set(dir(module))
    for name in module.__all__:
        value = getattr(module, name)
        behind = importlib.import_module(module._API[name])
        assert value is (behind if behind.__name__ == f"{module.__name__}.{name}" else getattr(behind, name)), name
        if isinstance(value, type) or callable(value) and hasattr(value, "__module__"):
            assert value.__module__.startswith(f"{module.__name__}."), name
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # noqa: B018


def test_the_cli_imports_from_the_surfaces():
    assert deep_cli_imports() == []
    used = {(node.module, alias.name) for path in (PACKAGE / "cli").glob("*.py")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert set(CLI_DEEP_IMPORTS) <= used, "an exception the CLI no longer needs"
    for module, name in CLI_DEEP_IMPORTS:  # a real exception: the surface does not offer the name
        assert name not in importlib.import_module(".".join(module.split(".")[:2])).__all__


def test_a_core_install_stays_light():
    """Importing the packages a core install runs (validate, coverage, reports) and every name they offer loads
    neither pyarrow nor datasets (the `build` extra)."""
    code = (
        "import importlib, sys\n"
        "for package in ('clinreg.core', 'clinreg.rules', 'clinreg.reports'):\n"
        "    module = importlib.import_module(package)\n"
        "    for name in module.__all__:\n"
        "        getattr(module, name)\n"
        "print(','.join(sorted(m for m in ('datasets', 'pandas', 'pyarrow') if m in sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# --------------------------------------------------------------------------------------------- the checks can fail


def _write(root: Path, files: dict[str, str]) -> Path:
    package = root / "clinreg"
    for rel, text in files.items():
        path = package / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


@pytest.mark.parametrize("files, expected", [
    ({"__init__.py": "", "core/__init__.py": "", "core/a.py": "from clinreg.rules import b\n",
      "rules/__init__.py": "", "rules/b.py": ""}, ["clinreg.core.a -> clinreg.rules.b"]),
    ({"__init__.py": "", "text/__init__.py": "", "text/a.py": "def f():\n    from clinreg.cli.main import main\n",
      "cli/__init__.py": "", "cli/main.py": ""}, ["clinreg.text.a -> clinreg.cli.main"]),
    ({"__init__.py": "", "core/__init__.py": "", "core/a.py": "from ..text import b\n",
      "text/__init__.py": "", "text/b.py": ""}, []),
    ({"__init__.py": "", "core/__init__.py": "", "core/a.py": "from ..rules import b\n",
      "rules/__init__.py": "", "rules/b.py": ""}, ["clinreg.core.a -> clinreg.rules.b"]),
    ({"__init__.py": "_API = {'validate': 'clinreg.rules.engine'}\n", "text/__init__.py": "",
      "text/a.py": "def f():\n    from clinreg import validate\n", "rules/__init__.py": "", "rules/engine.py": ""},
     ["clinreg.text.a -> clinreg.rules.engine"]),
    ({"__init__.py": "", "core/__init__.py": "", "core/a.py": "def f():\n    from clinreg.rules import check\n",
      "rules/__init__.py": "_API = {'check': 'clinreg.rules.b'}\n", "rules/b.py": ""},
     ["clinreg.core.a -> clinreg.rules.b"]),
])
def test_an_upward_import_is_found(tmp_path, files, expected):
    assert upward_imports(import_graph(_write(tmp_path, files))) == expected


def test_a_circle_is_found_even_through_a_function_level_import(tmp_path):
    package = _write(tmp_path, {
        "__init__.py": "", "core/__init__.py": "",
        "core/a.py": "import clinreg.core.b\n",
        "core/b.py": "def f():\n    from clinreg.core import c\n",
        "core/c.py": "from clinreg.core.a import x\n",
        "core/d.py": "from clinreg.core import a\n",
    })
    assert cycles(import_graph(package)) == [["clinreg.core.a", "clinreg.core.b", "clinreg.core.c"]]


def test_a_check_needs_a_catalogue_entry_of_its_own_family():
    import clinreg.rules.engine  # noqa: F401  (registers every check)
    from clinreg.core.codes import CODES
    from clinreg.rules.base import CHECKS, rule

    def check(ctx):
        return []

    check.__module__ = "clinreg.rules.identity"
    with pytest.raises(RuntimeError, match="no entry in clinreg.core.codes"):
        rule("CLR999")(check)
    with pytest.raises(RuntimeError, match="registered twice"):
        rule("CLR202")(check)
    assert "CLR201" in CODES and "CLR201" not in CHECKS  # raised by another check, so free to register here
    check.__module__ = "clinreg.rules.labels"
    with pytest.raises(RuntimeError, match="checked in rules/labels.py but catalogued in core/codes/identity.py"):
        rule("CLR201")(check)
    assert "CLR201" not in CHECKS


def test_an_import_of_a_moved_module_or_name_is_found(tmp_path):
    package = _write(tmp_path, {
        "__init__.py": "", "cli/__init__.py": "", "cli/review.py": "def f():\n    from clinreg.cli import fail\n",
        "core/__init__.py": "", "core/a.py": "import clinreg.core.gone\nfrom clinreg.core.b import x\n",
        "core/b.py": "",
    })
    assert unresolved_imports(package) == ["clinreg.cli.review: from clinreg.cli import fail",
                                           "clinreg.core.a: import clinreg.core.gone",
                                           "clinreg.core.a: from clinreg.core.b import x"]
    (package / "cli" / "review.py").write_text("from clinreg.store import load\n", encoding="utf-8")
    (package / "core" / "a.py").write_text("from clinreg.core.b import x\n", encoding="utf-8")
    (package / "core" / "b.py").write_text("try:\n    from os import sep as x\nexcept ImportError:\n    x = '/'\n",
                                           encoding="utf-8")
    assert unresolved_imports(package) == ["clinreg.cli.review: from clinreg.store import ..."]


def test_a_command_module_importing_another_is_found(tmp_path):
    package = _write(tmp_path, {
        "__init__.py": "", "cli/__init__.py": "", "cli/common.py": "", "cli/main.py": "from clinreg.cli import build\n",
        "cli/build.py": "from clinreg.cli.common import fail\n",
        "cli/export.py": "from clinreg.cli.build import guard\n",
    })
    assert command_crossings(import_graph(package)) == ["clinreg.cli.export -> clinreg.cli.build"]


def test_a_surface_problem_and_a_deep_cli_import_are_found(tmp_path):
    package = _write(tmp_path, {
        "__init__.py": "", "core/__init__.py": "__all__ = ['a', 'b', 'Any', 'y']\n_API = {'a': 'clinreg.core.x', "
        "'c': 'clinreg.core.x', 'Any': 'clinreg.core.x', 'y': 'clinreg.core.y'}\nfrom clinreg.core.x import a\n",
        "core/x.py": "from typing import Any\na = c = 1\n", "core/y.py": "def y():\n    pass\n", "cli/__init__.py": "",
        "cli/run.py": "from clinreg.core.x import a\nfrom clinreg.core import c\nimport clinreg.core.x\n",
    })
    known = _modules(package)
    assert surface_problems("clinreg.core", known) == [
        "clinreg.core: b is in __all__ but not in _API", "clinreg.core: c is in _API but not in __all__",
        "clinreg.core: Any comes from typing, not from the package's own modules",
        "clinreg.core: y is the name of a module and of a name in clinreg.core.y",
        "clinreg.core: its __init__ imports clinreg.core.x at run time",
    ]
    assert deep_cli_imports(package) == ["clinreg.cli.run: from clinreg.core.x import a",
                                         "clinreg.cli.run: import clinreg.core.x"]


def test_a_circle_through_a_surface_is_found(tmp_path):
    package = _write(tmp_path, {
        "__init__.py": "", "core/__init__.py": "_API = {'thing': 'clinreg.core.b'}\n",
        "core/a.py": "def f():\n    from clinreg.core import thing\n", "core/b.py": "from clinreg.core.a import f\n",
    })
    assert cycles(import_graph(package)) == [["clinreg.core.a", "clinreg.core.b"]]
    assert unresolved_imports(package) == []
    (package / "core" / "a.py").write_text("def f():\n    from clinreg.core import gone\n", encoding="utf-8")
    assert unresolved_imports(package) == ["clinreg.core.a: from clinreg.core import gone"]
