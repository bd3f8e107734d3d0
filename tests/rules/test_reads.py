"""CLR711-715: the read-step rules, each on a minimal variant of the good tree, asserting code, file and line."""

from __future__ import annotations

from clinreg.rules.engine import validate
from rules.helpers import with_code
from trees import GOOD_TREE, line_of, replace_in, write_tree

DS2 = "registry/datasets/plans.yaml"
SOURCE = ("source: {type: local, description: Held by a hospital., files: [plans.csv], read: {splits: {test: {files: "
          "plans.csv}}}}\n")

# The private record of the good tree, with its files read as distributed: a note per patient and a plan table.
READ = """\
source:
  type: local
  description: Held by a hospital.
  read:
    tables:
      plans: {files: plans.csv}
    splits:
      test:
        files: notes/{ward}/*.txt
        where: {ward: [icu, general]}
        steps:
          - join: {table: plans, keys: [file], cardinality: one_to_one}
"""


def tree(tmp_path, *replacements: tuple[str, str]):
    text = replace_in(GOOD_TREE[DS2], SOURCE, READ)
    for old, new in replacements:
        text = replace_in(text, old, new)
    root = write_tree(tmp_path / "reg", {DS2: text})
    return validate(root).diagnostics, text


def codes(diagnostics, *wanted):
    return [d for d in diagnostics if d.code in wanted]


def test_a_record_with_a_good_read_step_draws_no_read_rule(tmp_path):
    diagnostics, _ = tree(tmp_path)
    assert codes(diagnostics, "CLR711", "CLR712", "CLR713", "CLR703") == []
    assert [d for d in diagnostics if d.severity == "error"] == []


def test_clr711_non_hub_source_without_read_is_a_warning(tmp_path):
    text = replace_in(GOOD_TREE[DS2], SOURCE, "\n\n" + SOURCE.split(", read:")[0] + "}\n")
    root = write_tree(tmp_path / "reg", {DS2: text})
    (d,) = with_code(validate(root).diagnostics, "CLR711")
    assert d.severity == "warning" and d.file == DS2 and d.line == line_of(text, "source: {type: local")
    assert "local source has no `read`" in d.message


def test_clr711_hub_source_needs_no_read(tmp_path):
    root = write_tree(tmp_path / "reg")
    assert with_code(validate(root).diagnostics, "CLR711") == []  # qa_set is a hub record without a read step


def test_clr712_mapping_split_not_in_read_splits(tmp_path):
    diagnostics, text = tree(tmp_path, ("    splits: [test]", "    splits: [test, dev]"))
    (d,) = with_code(diagnostics, "CLR712")
    assert d.severity == "error" and d.file == DS2 and d.line == line_of(text, "    splits: [test, dev]")
    assert "split 'dev' is not in source.read.splits (test)" in d.message


def test_clr713_join_names_an_unknown_table(tmp_path):
    diagnostics, text = tree(tmp_path, ("join: {table: plans,", "join: {table: plan,"))
    (d,) = with_code(diagnostics, "CLR713")
    assert d.severity == "error" and d.file == DS2 and d.line == line_of(text, "join: {table: plan,")
    assert "join names table 'plan', not in read.tables (plans)" in d.message


def test_clr713_unsafe_file_patterns(tmp_path):
    for pattern, why in [("../../etc/passwd", "climbs out"), ("/etc/passwd", "absolute"),
                         ("data\\plans.csv", "backslash"), ("plans[z-a].csv", "bad character range")]:
        diagnostics, text = tree(tmp_path / why.replace(" ", "_"),
                                 ("plans: {files: plans.csv}", f"plans: {{files: '{pattern}'}}"))
        (d,) = with_code(diagnostics, "CLR713")
        assert d.file == DS2 and d.line == line_of(text, "plans: {files:") and why in d.message


def test_clr713_unsafe_pattern_in_a_list_and_in_lines_files(tmp_path):
    diagnostics, text = tree(
        tmp_path,
        ("plans: {files: plans.csv}", "plans: {format: lines, files: {a: a.tok, b: ../b.tok}}"),
        ("        files: notes/{ward}/*.txt", "        files: ['notes/{ward}/*.txt', /abs/x.txt]"),
    )
    found = sorted((d.line, d.message) for d in with_code(diagnostics, "CLR713"))
    assert [line for line, _ in found] == [line_of(text, "plans: {format: lines"), line_of(text, "files: ['notes/")]
    assert "'../b.tok'" in found[0][1] and "'/abs/x.txt'" in found[1][1]


def test_clr713_unsafe_archive_path(tmp_path):
    diagnostics, text = tree(tmp_path, ("plans: {files: plans.csv}", "plans: {archive: ../../x.zip, files: plans.csv}"))
    (d,) = with_code(diagnostics, "CLR713")
    assert (d.file == DS2 and d.line == line_of(text, "plans: {archive:")
            and "archive '../../x.zip' is unsafe" in d.message)


def test_clr713_where_key_that_no_pattern_has(tmp_path):
    diagnostics, text = tree(tmp_path, ("where: {ward: [icu, general]}", "where: {ward: [icu], unit: [a]}"))
    (d,) = with_code(diagnostics, "CLR713")
    assert d.file == DS2 and d.line == line_of(text, "where: {ward: [icu], unit: [a]}")
    assert "`where` names {unit}, which no file pattern has" in d.message


def test_clr714_extract_pattern_with_nested_repetition(tmp_path):
    step = "          - join: {table: plans, keys: [file], cardinality: one_to_one}\n"
    extract = (step + "          - extract:\n              column: text\n              patterns:\n"
               "                - '(?s)^(?P<note>.*?)PLAN:'\n                - '(?P<plan>(\\w+\\s*)+)END'\n")
    diagnostics, text = tree(tmp_path, (step, extract))
    (d,) = with_code(diagnostics, "CLR714")
    assert d.severity == "error" and d.file == DS2 and d.line == line_of(text, "(?P<plan>")
    assert "repeats `+` inside another repetition" in d.message and "possessive" in d.hint


def test_read_rules_are_explained():
    from clinreg.core.codes import CODES as RULES

    for code in ("CLR711", "CLR712", "CLR713", "CLR714"):
        assert "Bad:" in RULES[code].explanation and "Good:" in RULES[code].explanation


GITHUB = """\
source:
  type: github
  repo: owner/plans
  commit: 0123456789abcdef0123456789abcdef01234567
  paths: [data/plans.csv, notes/*.txt, db/plans.sqlite]
  read:
    tables:
      notes: {files: "notes/{ward}.txt"}
    splits:
      test:
        files: data/plans.csv
"""


def test_clr715_a_github_read_reads_only_files_its_paths_list(tmp_path):
    diagnostics, _ = tree(tmp_path, (READ, GITHUB))
    assert codes(diagnostics, "CLR715") == []  # a glob and a {name} pattern match; paths may list more (the database)
    diagnostics, text = tree(tmp_path / "b", (READ, GITHUB),
                             ("        files: data/plans.csv", "        files: data/plan.csv"))
    (d,) = codes(diagnostics, "CLR715")
    assert (d.file, d.line, d.severity) == (DS2, line_of(text, "files: data/plan.csv"), "error")
    assert "'data/plan.csv'" in d.message and "data/plans.csv" in d.hint


def test_a_github_revision_key_is_pointed_at_commit_not_revision_note(tmp_path):
    github = GITHUB.replace("  commit: ", "  revision: ")
    diagnostics, text = tree(tmp_path, (READ, github))
    (d,) = codes(diagnostics, "CLR101")
    assert d.line == line_of(text, "revision: 0123") and d.hint == "did you mean `commit`?"


def test_an_unquoted_on_in_a_join_is_pointed_at_keys_not_at_quoting_it(tmp_path):
    diagnostics, text = tree(tmp_path, ("keys: [file]", "on: [file]"))
    (d,) = codes(diagnostics, "CLR005")
    assert d.line == line_of(text, "on: [file]") and d.hint == "`on` is not a key here; write `keys:`"
    # Following the hint leaves no error; quoting it, as the old hint said, traded it for CLR101.
    diagnostics, _ = tree(tmp_path / "b", ("keys: [file]", '"on": [file]'))
    (d,) = codes(diagnostics, "CLR101")
    assert d.hint == "did you mean `keys`?"


def test_a_quoted_label_value_key_still_gets_the_quote_hint(tmp_path):
    from trees import DATASET

    root = write_tree(tmp_path / "reg", {"registry/datasets/qa_set.yaml": replace_in(DATASET, 'map: {"yes": A',
                                                                                     "map: {yes: A")})
    (d,) = with_code(validate(root).diagnostics, "CLR005")
    assert d.hint.startswith('quote it: "yes"')
