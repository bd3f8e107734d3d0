"""One root for the errors a user can meet: every public exception class derives from ClinregError (builtins mixed
in where callers catch them), carries a catalogue code, and only the root has a builtin as its only base.

The package is read with `ast`, not imported, so that a module needing an optional extra is checked too.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

import clinreg
from clinreg.core.codes import CODES
from clinreg.errors import ClinregError

PACKAGE = Path(clinreg.__file__).resolve().parent
BUILTINS = {name for name, value in vars(builtins).items()
            if isinstance(value, type) and issubclass(value, BaseException)}

# Exception classes no user meets, each with the reason: they are not public, whatever their name says. A new
# exception class that a user can meet needs ClinregError as a base and a catalogue code instead.
NOT_PUBLIC = {
    "NotCompiled": "control flow: the template falls back to the interpreted renderer",
    "NotVectorized": "control flow: the batch falls back to rendering row by row",
    "Abort": "control flow: the reference YAML reader stops and reports its Problem as a diagnostic",
    "SqlScoringError": "inside the exported harness files, which import nothing of clinreg (standard library only)",
}
NO_CODE = {"ClinregError": "the root: each class below it names its own code"}


def _classes() -> dict[str, list[tuple[str, list[str], str | None]]]:
    """Every class of the package: name -> [(module file, base names, the `default_code` its body sets)]."""
    found: dict[str, list[tuple[str, list[str], str | None]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
                     if isinstance(b, (ast.Name, ast.Attribute))]
            code = next((stmt.value.value for stmt in node.body if isinstance(stmt, ast.Assign)
                         and any(isinstance(t, ast.Name) and t.id == "default_code" for t in stmt.targets)
                         and isinstance(stmt.value, ast.Constant)), None)
            found.setdefault(node.name, []).append((path.relative_to(PACKAGE).as_posix(), bases, code))
    return found


CLASSES = _classes()


def _bases(name: str) -> list[str]:
    return [b for _, bases, _ in CLASSES.get(name, []) for b in bases]


def _is_exception(name: str, seen: frozenset = frozenset()) -> bool:
    if name in BUILTINS:
        return True
    return name not in seen and any(_is_exception(b, seen | {name}) for b in _bases(name))


def _derives_from_root(name: str) -> bool:
    return name == "ClinregError" or any(_derives_from_root(b) for b in _bases(name))


def _code(name: str) -> str | None:
    own = next((code for _, _, code in CLASSES.get(name, []) if code is not None), None)
    return own if own is not None else next((c for b in _bases(name) if (c := _code(b))), None)


PUBLIC = sorted(n for n in CLASSES if _is_exception(n) and not n.startswith("_") and n not in BUILTINS
                and n not in NOT_PUBLIC)


def test_the_walk_finds_the_known_exception_classes_each_defined_once():
    assert [n for n in PUBLIC if len(CLASSES[n]) > 1] == []
    assert {"ClinregError", "BuildError", "GoldLeak", "RootError", "SiteError", "RefusedOverwrite",
            "ReviewFileError"} <= set(PUBLIC)
    assert len(PUBLIC) > 30


@pytest.mark.parametrize("name", [n for n in PUBLIC if n not in NO_CODE])
def test_a_public_exception_derives_from_the_root_and_has_a_catalogue_code(name):
    where = CLASSES[name][0][0]
    assert _derives_from_root(name), f"{where}: {name} does not derive from ClinregError"
    code = _code(name)
    assert code is not None, f"{where}: {name} has no default_code (or a reason in NO_CODE)"
    assert code in CODES, f"{where}: {name}'s default_code {code} is not in the catalogue"


def test_only_the_root_has_a_builtin_exception_as_its_only_base():
    only_builtin = [n for n in PUBLIC if _bases(n) and all(b in BUILTINS for b in _bases(n))]
    assert only_builtin == ["ClinregError"]


def test_every_reason_names_an_exception_class_that_exists():
    assert all(_is_exception(n) for n in {*NOT_PUBLIC, *NO_CODE})


def test_builtins_mixed_in_keep_the_callers_that_catch_them():
    from clinreg.core.paths import RootError
    from clinreg.text.safeio import NotARegularFile, RefusedOverwrite

    assert issubclass(RootError, ValueError) and issubclass(RefusedOverwrite, FileExistsError)
    err = NotARegularFile(22, "not a regular file", "/dev/null")
    assert isinstance(err, OSError)
    assert (err.errno, err.strerror, err.filename) == (22, "not a regular file", "/dev/null")
    assert str(err) == "[Errno 22] not a regular file: '/dev/null'" and err.code == "CLR985" and err.file == "/dev/null"


def test_an_error_is_data_where_and_what():
    err = ClinregError("bad value", code="CLR105", file="registry/datasets/x.yaml", line=3, column=5,
                       key_path=["mappings", 0, "label"])
    assert err.location() == "registry/datasets/x.yaml:3:5"
    assert err.to_dict() == {"message": "bad value", "code": "CLR105", "file": "registry/datasets/x.yaml", "line": 3,
                             "column": 5, "key_path": ["mappings", 0, "label"], "exit_code": 2}
    assert ClinregError("no file").location() is None


def test_a_build_error_shows_only_the_code_its_raise_site_names():
    from clinreg.core.builderrors import ColumnMissing, GoldLeak, RecordProblem, SourceUnavailable

    assert (str(RecordProblem("x: no mapping 'y'")), RecordProblem("m").code) == ("x: no mapping 'y'", "CLR910")
    assert (ColumnMissing("m").code, SourceUnavailable("m").code) == ("CLR903", "CLR901")
    assert str(GoldLeak("leak", code="CLR907")) == "leak [CLR907]"
    err = RecordProblem("m", path=("mappings", 0, "label"))
    assert err.path == err.key_path == ("mappings", 0, "label")


def _cli(*args):
    import json

    from clirunner import invoke

    from clinreg.cli.main import main

    result = invoke(main, [str(a) for a in args])
    assert result.exit_code in (1, 2), result.output
    return json.loads(result.stderr.splitlines()[-1])["data"]["code"]


def _raised(call) -> str | None:
    with pytest.raises(ClinregError) as caught:
        call()
    return caught.value.code


def test_each_code_a_real_failure_carries(tmp_path):
    """Every code the errors added to the catalogue, raised where clinreg raises it."""
    import datetime as dt

    from clinreg.contrib.releases import open_release
    from clinreg.core.store import load_registry
    from clinreg.instances.lock import read_lock
    from clinreg.text.output import to_json
    from clinreg.text.safeio import read_regular_file
    from trees import GOOD_TREE, write_tree

    root = write_tree(tmp_path / "reg", GOOD_TREE)
    (tmp_path / "taken.md").write_text("x", encoding="utf-8")
    assert _cli("validate", "--root", tmp_path / "nowhere", "--format", "json") == "CLR981"
    assert _cli("coverage", "--root", root, "--release", "9.9.9", "--format", "json") == "CLR982"
    assert _cli("coverage", "--root", root, "--format", "json", "-o", tmp_path / "taken.md") == "CLR983"
    assert _cli("diff", "no_such_side", "HEAD", "--root", root, "--format", "json") == "CLR984"
    assert _cli("validate", "--root", root, "--changed", "--format", "json") == "CLR986"  # no git checkout there
    task = next(iter(load_registry(root).tasks()))
    assert _cli("review", "approve", task + "_gone", "--reviewer", "A", "--root", root, "--format", "json") == "CLR806"
    assert _raised(lambda: read_regular_file(tmp_path, 10)) == "CLR985"
    assert _raised(lambda: read_lock(tmp_path / "lock.json")) == "CLR911"
    history = load_registry(root).releases
    assert _raised(lambda: open_release("", history, "not-semver", "t", dt.date(2026, 1, 1))) == "CLR987"
    assert _raised(lambda: to_json({"score": float("nan")})) == "CLR988"
