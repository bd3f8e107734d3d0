"""A diagnostic's key path (as pydantic's `loc`): in JSON when known, never in the text or GitHub rendering."""

from __future__ import annotations

import json

from clinreg.core.diagnostics import Report, from_error, make, render_github, render_json, render_text
from clinreg.errors import ClinregError


def test_the_key_path_is_in_json_and_nowhere_else():
    placed = make("CLR104", "registry/datasets/x.yaml", 4, 9, "`access.tier`: 'publc' is not an allowed value",
                  key_path=["access", "tier"])
    plain = make("CLR104", "registry/datasets/x.yaml", 4, 9, "`access.tier`: 'publc' is not an allowed value")
    assert placed.key_path == ("access", "tier") and plain.key_path is None
    assert [d["key_path"] for d in json.loads(render_json(Report([placed], 1)))["diagnostics"]] == [["access", "tier"]]
    assert "key_path" not in json.loads(render_json(Report([plain], 1)))["diagnostics"][0]
    for render in (render_text, render_github):
        assert render(Report([placed], 1)) == render(Report([plain], 1))


def test_a_key_path_read_back_from_json_is_a_tuple_again():
    d = make("CLR101", "f.yaml", 1, 1, "unknown key", key_path=("mappings", 0, "x"))
    back = type(d)(**json.loads(json.dumps(d.to_dict())))
    assert back == d and hash(back) == hash(d)


def test_a_schema_error_carries_the_path_pydantic_gives(tmp_path):
    from clinreg.core.store import load_registry
    from trees import GOOD_TREE, write_tree

    ds = next(p for p in GOOD_TREE if p.startswith("registry/datasets/"))
    root = write_tree(tmp_path, {ds: GOOD_TREE[ds].replace("tier: public", "tier: publc")})
    [d] = [d for d in load_registry(root).diagnostics if d.code == "CLR104"]
    assert d.key_path == ("access", "tier")


def test_a_clinreg_error_becomes_a_diagnostic():
    d = from_error(ClinregError("x.yaml: bad", code="CLR105", file="x.yaml", line=2, key_path=("a", 0)))
    assert (d.code, d.severity, d.file, d.line, d.column, d.message, d.key_path) == (
        "CLR105", "error", "x.yaml", 2, 1, "x.yaml: bad", ("a", 0))
