"""Untrusted text in diagnostics cannot forge CI output: no raw newline, CR or ESC reaches stdout.

Messages quote registry values and name files, both chosen by a pull request. A raw newline would start a
line that GitHub Actions reads as a workflow command (`::error ...`, `::add-mask::`); an ESC would drive the
terminal of whoever reads the log.
"""

from __future__ import annotations

import json

import pytest

from trees import write_tree

from .support import CORPUS, assert_no_traceback, run_cli

DS = "registry/datasets/qa_set.yaml"


def _tree_with_injection(tmp_path):
    root = write_tree(tmp_path / "reg")
    (root / DS).write_bytes((CORPUS / "workflow-command-injection.yaml").read_bytes())
    # A file name is untrusted too: git and Linux allow a newline in it.
    (root / "registry" / "datasets" / "x\n::error file=a,line=1::forged name.yaml").write_text("a: 1\n")
    return root


@pytest.mark.skipif(__import__("sys").platform == "win32", reason="newlines in file names")
@pytest.mark.parametrize("fmt", ["text", "github", "json"])
def test_validate_output_cannot_be_forged(tmp_path, fmt):
    root = _tree_with_injection(tmp_path)
    result = run_cli("validate", "--root", str(root), "--format", fmt)
    assert_no_traceback(result)
    assert result.returncode == 1
    out = result.stdout
    assert "\x1b" not in out and "\r" not in out
    lines = out.splitlines()
    if fmt == "json":
        report = json.loads(out)["data"]
        assert any(d["code"] == "CLR601" for d in report["diagnostics"])
        for d in report["diagnostics"]:
            assert d["message"].isprintable() and d["file"].isprintable()
        return
    if fmt == "text":
        assert not [line for line in lines if line.lstrip().startswith("::")], out
        assert any("CLR601" in line and "\\n::error" in line for line in lines)  # shown, escaped, on its own line
    else:
        # Every line is one annotation (or the summary): nothing in a message starts a second command.
        body = lines[:-1]
        assert body and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in body), out
        assert sum("forged" in line for line in body) >= 2  # quoted inside annotations, where `::` is inert
