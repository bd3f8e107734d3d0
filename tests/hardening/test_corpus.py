"""Each hostile or malformed file of corpus/, dropped into the good tree, gets the expected code at the expected place.

The real CLI runs in a subprocess, as CI runs it on a pull request: exit code, code, file, line and column are
checked, and neither stream may hold a traceback.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from trees import GOOD_TREE, write_tree

from .support import CORPUS, assert_no_traceback, run_cli

MANIFEST = yaml.safe_load((CORPUS / "manifest.yaml").read_text(encoding="utf-8"))


def _case_id(entry: dict) -> str:
    name = entry.get("file") or entry["generate"]
    return f"{name}@{entry['setup']}" if "setup" in entry else name


def _generate(kind: str) -> bytes:
    """Inputs too large to keep as files."""
    dataset = GOOD_TREE["registry/datasets/qa_set.yaml"]
    if kind == "huge-file":  # valid YAML, just over the 1 MiB limit
        notes = "".join(f"  - {'x' * 1000}\n" for _ in range(1100))
        return (dataset + "notes:\n" + notes).encode()
    if kind == "huge-string":  # a 900 KB value in a file under the limit: allowed
        return dataset.replace("description: Yes/no/maybe questions.",
                               "description: " + "lorem ipsum " * 75_000).encode()
    raise AssertionError(kind)


def _place(entry: dict, root: Path, outside: Path) -> None:
    """Put the case into the tree: a file at `at`, or a link that leads out of the root."""
    at = root / entry["at"]
    setup = entry.get("setup")
    content = (CORPUS / entry["file"]).read_bytes() if "file" in entry else _generate(entry["generate"])
    if setup is None:
        at.write_bytes(content)
    elif setup == "link-file-outside":
        target = outside / "secret.yaml"
        target.write_bytes(content)
        at.symlink_to(target)
    elif setup == "link-folder-outside":
        (outside / "evil.yaml").write_bytes(content)
        at.symlink_to(outside, target_is_directory=True)
    elif setup == "link-fixtures-outside":
        at.write_bytes(content)
        (root / "fixtures").symlink_to(outside, target_is_directory=True)
    else:  # pragma: no cover
        raise AssertionError(f"unknown setup {setup!r}")


def test_corpus_is_large_enough():
    files = {e["file"] for e in MANIFEST if "file" in e}
    assert len(files) >= 40
    on_disk = {p.name for p in CORPUS.iterdir() if p.name not in ("manifest.yaml", ".gitattributes")}
    assert on_disk == files, (f"files without expectations: {sorted(on_disk - files)}; missing files: "
                              f"{sorted(files - on_disk)}")


@pytest.mark.parametrize("entry", MANIFEST, ids=_case_id)
def test_corpus_file(entry, tmp_path):
    if entry.get("setup") and not hasattr(os, "symlink"):  # pragma: no cover
        pytest.skip("no symlinks here")
    root = write_tree(tmp_path / "reg")
    outside = tmp_path / "outside"
    outside.mkdir()
    _place(entry, root, outside)

    result = run_cli("validate", "--root", str(root), "--format", "json")

    assert_no_traceback(result)
    assert result.returncode == entry["exit"], result.stdout[-2000:] + result.stderr[-2000:]
    report = json.loads(result.stdout)["data"]
    errors = [d for d in report["diagnostics"] if d["severity"] == "error"]
    if entry["code"] is None:
        assert errors == []
        if entry.get("render"):
            _check_renders(root, tmp_path)
        return
    found = [(d["code"], d["file"], d["line"], d["column"]) for d in errors]
    expected = (entry["code"], entry["at"], entry["line"], entry["column"])
    assert expected in found, f"expected {expected}, got {found}"
    for d in report["diagnostics"]:  # every diagnostic, not just the one we look for, is located and printable
        assert d["line"] >= 1 and d["column"] >= 1
        assert d["message"].isprintable() and (d["hint"] is None or d["hint"].isprintable())


# What `render: true` cases run: every place a dataset's name and description reach a terminal or a CI log.
RENDERS = [("coverage", "--by", "task"), ("coverage", "--format", "csv", "--by", "task"),
           ("review", "--format", "markdown"), ("coverage", "--format", "json")]


def _check_renders(root: Path, tmp_path: Path) -> None:
    from trees import write_tree as _write

    from .test_render_injection import check_terminal_safe

    good = _write(tmp_path / "good")
    for args in [*(["--root", str(root), *a] for a in RENDERS), ["diff", str(good), str(root)]]:
        args = [args[2], *args[:2], *args[3:]] if args[0] == "--root" else args
        result = run_cli(*args)
        assert_no_traceback(result)
        assert result.returncode == 0, (args, result.stderr)
        check_terminal_safe(result.stdout)
        check_terminal_safe(result.stderr)
