"""Hostile ids never reach generated code or paths: `export` refuses them before writing anything, whether or not
`validate` ran (SECURITY.md, guarantee on generated files; issue classes 1 and 2 of hardening wave 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.export import export
from record_fixtures import hub_folder

HOSTILE = [
    "x():\n    import os; os.system('touch PWNED')\ndef y",  # code, if written as a function name
    "../../escape",  # a path out of -o
    "a,model=evil",  # an extra argument in a HELM run entry
    "Not_Snake",
]


@pytest.mark.parametrize("harness", ["inspect", "lm-eval", "helm"])
@pytest.mark.parametrize("mapping_id", HOSTILE)
def test_a_hostile_mapping_id_exports_nothing(tree, tmp_path, harness, mapping_id, monkeypatch):
    record = tree / "registry" / "datasets" / "qa_set.yaml"
    text = record.read_text(encoding="utf-8")
    # A JSON string is a YAML double-quoted scalar: the id arrives exactly as written, newlines and all.
    record.write_text(text.replace("  - id: qa_set\n", f"  - id: {json.dumps(mapping_id)}\n", 1), encoding="utf-8")
    data = tmp_path / "data"
    hub_folder(data, "owner/qa_set", {"test": [{"question": "q", "answer": "yes"}]})
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "work" / "out"
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = invoke(export, [harness, "qa_set", "--root", str(tree), "--data-dir", str(data), "-o", str(out)])
    # The id carries a pattern in the model: the record is refused at load, at the id's line (CLR202), before
    # any data is read or anything written; the library's own check (check_identifiers) stays behind it.
    assert result.exit_code == 1, result.output
    located = [line for line in result.stderr.splitlines() if "CLR202" in line]
    assert (len(located) == 1 and located[0].startswith("registry/datasets/qa_set.yaml:")
            and "Traceback" not in result.output)
    assert "\x1b" not in result.stderr and "PWNED')\ndef" not in result.stderr  # the id is shown escaped, on one line
    assert not out.exists() and not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()
    assert sorted(p.relative_to(tmp_path)
                  for p in tmp_path.rglob("*")) == before, "nothing written, inside or outside -o"


@pytest.mark.parametrize("mapping_id", HOSTILE)
def test_the_library_export_checks_ids_itself(tree, tmp_path, mapping_id):
    """A registry changed in memory after loading (a library user) still never writes a hostile id: the export
    checks every id it would write before it writes anything."""
    from clinreg.core.store import load_registry
    from clinreg.exports.harness import ExportProblem
    from clinreg.exports.harness import export as run_export

    reg = load_registry(tree)
    object.__setattr__(reg.datasets["qa_set"].mappings[0], "id", mapping_id)
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(ExportProblem, match="not a snake_case identifier"):
        run_export(reg, "inspect", work / "out", ["qa_set"], data_dir=tmp_path)
    assert list(work.iterdir()) == []
