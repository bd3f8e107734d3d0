"""The fixture tree is clean, so every broken variant in the other tests fails for exactly one reason."""

from clinreg.rules.engine import validate
from rules.helpers import errors, with_code


def test_good_tree_has_no_errors(tree):
    report = validate(tree)
    assert errors(report.diagnostics) == []
    # the only warning is the explained unknown licence of the private record
    warnings = [d for d in report.diagnostics if d.severity == "warning"]
    assert [(d.code, d.file) for d in warnings] == [("CLR705", "registry/datasets/plans.yaml")]
    assert "Private data." in warnings[0].message
    assert report.files == 5


def test_good_tree_reports_thin_and_uncovered_as_info(tree):
    diags = validate(tree).diagnostics
    assert {d.message.split("'")[1] for d in with_code(diags, "CLR404")} == {"diagnosis", "treatment"}
    assert [d.message for d in with_code(diags, "CLR403")] == ["task 'rank_differentials' has no dataset"]
