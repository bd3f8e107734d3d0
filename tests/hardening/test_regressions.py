"""Replay every input in regressions/ that once crashed, hung or broke a property (see regressions/README.md)."""

from __future__ import annotations


import pytest

from clinreg.core.yamlsrc import parse_yaml
from clinreg.rules.engine import validate
from trees import GOOD_TREE, write_tree

from .support import REGRESSIONS
from .test_fuzz import PARSE_CODES, check_diagnostics

FILES = sorted(REGRESSIONS.glob("*.yaml"))


def test_regressions_are_documented():
    readme = (REGRESSIONS / "README.md").read_text(encoding="utf-8")
    assert FILES
    for path in [*FILES, *sorted((REGRESSIONS / "builder").glob("*.json")),
                 *sorted((REGRESSIONS / "templates").glob("*.j2"))]:
        shown = path.name if path.parent == REGRESSIONS else f"{path.parent.name}/{path.name}"
        assert f"`{shown}`" in readme, f"{shown} is not described in regressions/README.md"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_regression_input(path, tmp_path):
    raw = path.read_bytes()
    doc = parse_yaml(raw)
    assert all(p.code in PARSE_CODES and p.line >= 1 and p.column >= 1 for p in doc.problems)
    root = write_tree(tmp_path / "reg")
    (root / "registry" / "datasets" / "qa_set.yaml").write_bytes(raw)
    report = validate(root)
    check_diagnostics(report.diagnostics, set(GOOD_TREE))
    assert any(d.file == "registry/datasets/qa_set.yaml" and d.severity == "error" for d in report.diagnostics)


BUILD_CASES = sorted((REGRESSIONS / "builder").glob("*.json"))


@pytest.mark.parametrize("path", BUILD_CASES, ids=lambda p: p.name)
def test_builder_regression(path, tmp_path, request):
    import json

    from .test_fuzz import KNOWN_BUILDER_BUGS, run_build_case

    case = json.loads(path.read_text(encoding="utf-8"))
    bug = case.get("bug")
    if bug is not None:
        assert bug in KNOWN_BUILDER_BUGS, f"{path.name}: unknown bug {bug!r}"
        request.applymarker(pytest.mark.xfail(strict=False,
                                              reason=f"known builder bug {bug} (see test_fuzz.KNOWN_BUILDER_BUGS)"))
    assert run_build_case(case, tmp_path, tolerate_known=False) in ("instances", "BadLabel", "TemplateFailure",
                                                                      "RecordProblem", "SourceUnavailable")


TEMPLATE_CASES = sorted((REGRESSIONS / "templates").glob("*.j2"))


@pytest.mark.parametrize("path", TEMPLATE_CASES, ids=lambda p: p.name)
def test_template_regression(path):
    from clinreg.core.builderrors import TemplateFailure
    from clinreg.templating import sandbox as templates

    from clinreg.core.builderrors import RecordProblem

    try:
        template = templates.InputTemplate(path.read_text(encoding="utf-8"), "regression/template")
    except RecordProblem as problem:  # refused when compiled: one line naming the template
        assert "\n" not in str(problem) and "regression/template" in str(problem)
        return
    with pytest.raises(TemplateFailure) as failure:
        template.render({"text": "y" * 100, "row": {"text": "y" * 100}})
    assert "memory" not in str(failure.value).lower(), failure.value
