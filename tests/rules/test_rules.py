"""One minimal broken variant of the good tree per rule code: each must yield that code at the right file and line."""

from __future__ import annotations

import pytest

from clinreg.core.hashing import review_hash

from clinreg.rules.engine import validate
from trees import GOOD_TREE, line_of, replace_in, write_tree

DS = "registry/datasets/qa_set.yaml"
DS2 = "registry/datasets/plans.yaml"
CAT = "taxonomy/care.yaml"
TAX = "taxonomy/taxonomy.yaml"
REL = "registry/releases.yaml"

# (case id, file, [(old, new), ...], expected code, text on the expected line, expected severity)
_RANK = review_hash("Rank differentials", "Rank candidate diagnoses.", None, "diagnosis")

CASES = [
    ("tab", DS, [("  repo: owner/qa_set", "\trepo: owner/qa_set")], "CLR001", "repo: owner", "error"),
    ("duplicate-key", DS, [("name: QA set\n", "name: QA set\nname: Other\n")], "CLR003", "name: Other", "error"),
    ("python-tag", DS, [("description: Yes/no/maybe questions.", "description: !!python/object/apply:os.system [ls]")],
     "CLR004", "description:", "error"),
    ("unquoted-yes-key", DS, [('map: {"yes": A', "map: {yes: A")], "CLR005", "map: {yes", "error"),
    ("unquoted-yes-choice", DS, [('fixed: ["yes", "no"', 'fixed: [yes, "no"')], "CLR005", "fixed: [yes", "error"),
    ("octal-id", CAT, [("id: plan_treatment", "id: 012")], "CLR005", "id: 012", "error"),
    ("comment-cuts-note", DS,
     [("description: Yes/no/maybe questions.", "description: Yes/no/maybe questions (PR #12).")],
     "CLR010", "description: Yes/no", "error"),
    ("merge-key", DS, [("access: {tier: public}", "access: {<<: {tier: public}}")], "CLR008", "access:", "error"),
    ("unknown-key", DS, [("licence: {spdx: MIT}", "licence: {spdx: MIT, notes: x}")], "CLR101", "licence:", "error"),
    ("wrong-type", DS, [("    splits: [test]", "    splits: test")], "CLR102", "    splits: test", "error"),
    ("missing-field", DS, [("access: {tier: public}\n", "")], "CLR103", "id: qa_set", "error"),
    ("bad-enum", DS, [("tier: public", "tier: publc")], "CLR104", "tier: publc", "error"),
    ("bad-union-tag", DS, [("encoding: string_set", "encoding: string_sets")], "CLR104", "encoding: string_sets",
     "error"),
    ("empty-list", DS, [("tasks: [answer_questions]", "tasks: []")], "CLR105", "tasks: []", "error"),
    ("todo", DS, [("description: Yes/no/maybe questions.", "description: TODO describe")], "CLR106",
     "description: TODO", "warning"),
    ("no-header", DS, [("# yaml-language-server: $schema=../../schemas/dataset.schema.json\n", "")], "CLR107",
     "id: qa_set", "warning"),
    ("id-format", DS, [("  - id: qa_set", "  - id: QA-set")], "CLR202", "- id: QA-set", "error"),
    ("duplicate-task", CAT, [("id: rank_differentials", "id: answer_questions")], "CLR203",
     "id: answer_questions\n        name: Rank", "error"),
    ("dangling-task", DS, [("tasks: [answer_questions]", "tasks: [answer_question]")], "CLR301",
     "tasks: [answer_question]", "error"),
    ("unknown-category", TAX, [("categories: [care]", "categories: [care, cure]")], "CLR302", "categories:", "error"),
    ("unknown-release", DS, [("added_in: 1.0.0", "added_in: 1.4.0")], "CLR303", "added_in: 1.4.0", "error"),
    ("dangling-compare-with", DS, [("compare_with: [{id: plans,", "compare_with: [{id: plan,")], "CLR306",
     "compare_with: [{id: plan,", "error"),
    ("compare-with-itself", DS, [("compare_with: [{id: plans,", "compare_with: [{id: qa_set,")], "CLR306",
     "compare_with: [{id: qa_set,", "error"),
    ("incomplete-card", DS2, [("maintainer: {value: unknown, reason: No source names one.}\n", "")], "CLR108",
     "description: Treatment", "warning"),
    ("unknown-without-reason", DS2,
     [("maintainer: {value: unknown, reason: No source names one.}", "maintainer: {value: unknown}")],
     "CLR105", "maintainer:", "error"),
    ("known-without-source", DS,
     [("first_released: {value: \"2019\", source: The paper.}", "first_released: {value: \"2019\"}")],
     "CLR105", "first_released:", "error"),
    ("subcategory-no-tasks", CAT, [("""    tasks:
      - id: plan_treatment
        name: Plan treatment
        definition: Write a treatment plan.
        provenance: {kind: drafted}
        review: {status: proposed}
""", "    tasks: []\n")], "CLR401", "- id: treatment", "error"),
    ("subcategory-no-datasets", DS2, [("tasks: [plan_treatment]", "tasks: [rank_differentials]")], "CLR402", None,
     "error"),
    ("task-total", TAX, [("task_total: 3", "task_total: 4")], "CLR405", "task_total: 4", "warning"),
    ("map-not-one-to-one", DS,
     [('"maybe": C}', '"maybe": B}'), ('fixed: ["yes", "no", "maybe"]', 'fixed: ["yes", "no"]')],
     "CLR501", "map:", "error"),
    ("letters-gap", DS, [('"maybe": C}', '"maybe": D}')], "CLR502", "map:", "error"),
    ("binary-no-positive", DS, [(', "maybe": C}', "}"), ('fixed: ["yes", "no", "maybe"]', 'fixed: ["yes", "no"]')],
     "CLR503", "label:", "error"),
    ("unlabeled-collides", DS, [("""    label:
      encoding: string_set
      column: answer
      map: {"yes": A, "no": B, "maybe": \
C}""", """    label: {encoding: index, column: cop, base: 0, count: 3, unlabeled: 0}""")],
     "CLR504", "label: {encoding: index", "error"),
    ("choices-count", DS, [('fixed: ["yes", "no", "maybe"]', 'fixed: ["yes", "no"]')], "CLR505", "fixed:", "error"),
    ("number-no-tolerance", DS2,
     [("label: {encoding: free_text, column: plan}", "label: {encoding: number, column: plan}")],
     "CLR506", "label: {encoding: number", "error"),
    ("variants-free-text", DS2,
     [("    metric: {name: jury, range: [1, 5]}",
       "    variants: [{id: a, columns: {x: y}, label: '0'}]\n    metric: {name: jury, range: [1, 5]}")],
     "CLR507", "variants:", "error"),
    ("variant-without-label-or-column", DS, [("      column: answer\n", ""),
                                             ("    metric: {name: exact_match}",
                                              "    variants: [{id: a, columns: {x: y}}]\n    metric: {name: "
                                              "exact_match}")],
     "CLR507", "variants:", "error"),
    ("task-count", CAT, [("    definition: Deciding what to do.\n",
                          "    definition: Deciding what to do.\n    tasks_expected: {count: 2, citation: {text: A "
                          "figure}}\n")],
     "CLR406", "tasks_expected: {count: 2", "warning"),
    ("closed-instruction", DS,
     [('input_template: "{{ question }}"', 'input_template: "{{ question }} Answer yes or no."')],
     "CLR508", "input_template:", "error"),
    ("closed-instruction-field", DS,
     [('input_template: "{{ question }}"', 'input_template: "{{ question }}"\n    instruction: Say A or B.')],
     "CLR508", "instruction:", "error"),
    ("free-text-without-scoring", DS2,
     [("    scoring:\n      method: jury\n      jury:\n        rubric: The model wrote a treatment plan; a clinician's "
       "plan is the reference.\n        axes: [{id: accuracy, question: \"Is it right?\"}, {id: clarity, question: "
       "\"Is it clear?\"}]\n", "")],
     "CLR510", "label: {encoding: free_text", "warning"),
    ("jury-scale-off-range", DS2, [("metric: {name: jury, range: [1, 5]}", "metric: {name: jury, range: [0, 1]}")],
     "CLR509", "metric: {name: jury, range: [0, 1]}", "error"),
    ("jury-axis-twice", DS2,
     [("{id: clarity, question: \"Is it clear?\"}", "{id: accuracy, question: \"Is it clear?\"}")],
     "CLR509", "axes:", "error"),
    ("not-semver", DS, [("version: 1.0.0\n", "version: v1\n")], "CLR601", "version: v1", "error"),
    ("release-order", REL, [("current: 1.1.0", "current: 1.0.0")], "CLR602", "current: 1.0.0", "error"),
    ("published-release-gains-a-record", DS2, [("added_in: 1.1.0", "added_in: 1.0.0")], "CLR604", "added_in: 1.0.0",
     "error"),
    ("unpinned", DS, [("revision: 0123456789abcdef0123456789abcdef01234567", "revision: main")], "CLR701",
     "revision: main", "warning"),
    ("remote-code", DS, [("  revision: 0123", "  trust_remote_code: true\n  revision: 0123")], "CLR702",
     "trust_remote_code", "error"),
    ("path-escape", DS2, [("source: {type: local, description: Held by a hospital.,",
                           "source: {type: local, description: Held by a hospital., path: ../../etc,")], "CLR703",
     "source: {type: local", "error"),
    ("http-url", DS, [("citation: {text: A paper}", "citation: {text: A paper, url: 'http://example.org'}")], "CLR704",
     "citation:", "error"),
    ("licence-unknown", DS2,
     [("licence: {spdx: unknown, note: Private data.}", "licence: {spdx: other, note: Own terms.}")],
     "CLR705", "licence:", "warning"),
    ("licence-no-note", DS2, [("licence: {spdx: unknown, note: Private data.}", "licence: {spdx: unknown}")], "CLR708",
     "licence:", "error"),
    ("no-instructions", DS2, [("access: {tier: private, instructions: Ask the holder.}", "access: {tier: private}")],
     "CLR706", "access:", "error"),
    ("sourced-no-citation", CAT,
     [("provenance: {kind: published, quote: \"A name\", citation: {text: A paper}}",
       "provenance: {kind: derived, benchmarks: [x]}")],
     "CLR707", "provenance: {kind: derived", "error"),
    ("derived-from-unmapped", CAT, [("provenance: {kind: published, quote: \"A name\", citation: {text: A paper}}",
                                     "provenance: {kind: derived, benchmarks: [x], citation: {text: A paper}}")],
     "CLR709", "provenance: {kind: derived", "warning"),
    ("stale-approval", CAT, [("""        definition: Rank candidate diagnoses.
        provenance: {kind: drafted}
        review: {status: proposed}""", """        definition: Rank candidate diagnoses.
        provenance: {kind: drafted}
        review: {status: approved, content_hash: "sha256:00", reviewers: [{name: Dr Who, decision: approved}]}""")],
     "CLR801", "definition: Rank candidate", "warning"),
    ("conflicting-review", CAT, [("""        definition: Rank candidate diagnoses.
        provenance: {kind: drafted}
        review: {status: proposed}""", """        definition: Rank candidate diagnoses.
        provenance: {kind: drafted}
        review: {status: rejected, reviewers: [{name: A, decision: approved, content_hash: "%s"},
                                               {name: B, decision: rejected, content_hash: \
"%s"}]}""" % (_RANK, _RANK))],
     "CLR802", "review: {status: rejected", "warning"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_broken_variant_reports_code_file_and_line(tmp_path, case):
    _, rel, replacements, code, needle, severity = case
    text = GOOD_TREE[rel]
    for old, new in replacements:
        text = replace_in(text, old, new)
    root = write_tree(tmp_path / "reg", {rel: text})
    found = [d for d in validate(root).diagnostics if d.code == code]
    assert found, f"expected {code}; got {[(d.code, d.message) for d in validate(root).diagnostics]}"
    d = found[0]
    assert d.severity == severity
    if needle is None:  # coverage rules point at the subcategory in the category file
        assert d.file == CAT and d.line == line_of(GOOD_TREE[CAT], "- id: treatment")
        return
    assert d.file == rel
    expected_line = line_of(text, needle.split("\n")[0]) if "\n" not in needle else _line_of_block(text, needle)
    assert d.line == expected_line, (d, expected_line)


def _line_of_block(text: str, block: str) -> int:
    return text[: text.index(block)].count("\n") + 1


def test_every_rule_code_has_a_broken_variant():
    from clinreg.core.codes import CODES as RULES
    import clinreg.rules.engine  # noqa: F401

    # CLR9xx are check-data's codes, tested against data in tests/instances/
    # CLR711-714 (read steps) are tested in tests/rules/test_reads.py
    tested = {c[3] for c in CASES} | {f"CLR90{i}" for i in range(1, 10)} | {"CLR711", "CLR712", "CLR713", "CLR714",
                                                                            "CLR715"} | {
        "CLR002", "CLR006", "CLR007", "CLR009", "CLR201", "CLR204", "CLR304", "CLR305", "CLR403", "CLR404", "CLR603"
    }
    tested |= {f"CLR96{i}" for i in range(1, 9)}  # results import and leaderboard codes, tested in tests/results/
    tested |= {"CLR307", "CLR308"}  # MedHELM's editions, tested in tests/reports/test_medhelm_editions.py
    tested |= {"CLR914", "CLR915"}  # check-data's duplicates and overlaps: tests/instances/test_splitoverlap.py
    tested |= {"CLR803"}  # a split panel needs a policy in taxonomy.yaml too: tested in tests/workflow/test_panel.py
    # raised as clinreg errors, not found by a check: tested in tests/core/test_errors.py (and review files' CLR804
    # and CLR805 in tests/workflow/test_review_io.py)
    tested |= {"CLR804", "CLR805", "CLR806", "CLR910", "CLR911"} | {f"CLR98{i}" for i in range(1, 9)}
    tested |= {"CLR912"}  # an export format that cannot express the record: tests/exports/test_medhelm_config.py
    assert set(RULES) <= tested, f"rules without a test: {sorted(set(RULES) - tested)}"


def test_unknown_key_hint_suggests_the_closest_key(tmp_path):
    text = replace_in(GOOD_TREE[DS], "licence: {spdx: MIT}", "licence: {spdx: MIT, notes: x}")
    [d] = [d for d in validate(write_tree(tmp_path, {DS: text})).diagnostics if d.code == "CLR101"]
    assert d.hint == "did you mean `note`?"
    assert d.column == text.splitlines()[d.line - 1].index("notes") + 1


def test_bad_enum_hint_suggests_the_closest_value(tmp_path):
    text = replace_in(GOOD_TREE[DS], "tier: public", "tier: publc")
    [d] = [d for d in validate(write_tree(tmp_path, {DS: text})).diagnostics if d.code == "CLR104"]
    assert d.hint == "did you mean `public`?"


def test_unquoted_yes_names_the_trap_and_the_fix(tmp_path):
    text = replace_in(GOOD_TREE[DS], 'map: {"yes": A', "map: {yes: A")
    [d] = [d for d in validate(write_tree(tmp_path, {DS: text})).diagnostics if d.code == "CLR005"]
    assert "boolean true" in d.message
    assert d.hint.startswith('quote it: "yes"')


def test_all_problems_are_reported_not_only_the_first(tmp_path):
    text = GOOD_TREE[DS]
    for old, new in [("tier: public", "tier: publc"), ("licence: {spdx: MIT}", "licence: {spdx: MIT, notes: x}"),
                     ("    splits: [test]", "    splits: test")]:
        text = replace_in(text, old, new)
    cat = replace_in(GOOD_TREE[CAT], "id: rank_differentials", "id: Rank")
    codes = sorted(d.code for d in validate(write_tree(tmp_path, {DS: text, CAT: cat})).diagnostics
                   if d.severity == "error")
    assert codes == ["CLR101", "CLR102", "CLR104", "CLR202"]


def test_empty_file(tmp_path):
    root = write_tree(tmp_path, {DS: ""})
    [d] = [d for d in validate(root).diagnostics if d.code == "CLR002"]
    assert (d.file, d.line) == (DS, 1)


def test_non_utf8_is_located(tmp_path):
    root = write_tree(tmp_path)
    (root / DS).write_bytes(GOOD_TREE[DS].encode().replace(b"QA set", b"Caf\xe9 set"))
    [d] = [d for d in validate(root).diagnostics if d.code == "CLR006"]
    assert (d.file, d.line, d.column) == (DS, line_of(GOOD_TREE[DS], "QA set"), len("name: Caf") + 1)


def test_deep_nesting_is_a_resource_error(tmp_path):
    root = write_tree(tmp_path, {DS: "id: x\nnotes: " + "[" * 5000 + "]" * 5000 + "\n"})
    [d] = [d for d in validate(root).diagnostics if d.code == "CLR007"]
    assert d.file == DS and d.line == 2


def test_alias_bomb_is_rejected_quickly(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 10) + "]")
    root = write_tree(tmp_path, {DS: "\n".join(lines) + "\n"})
    [d] = [d for d in validate(root).diagnostics if d.code == "CLR007"]
    assert d.file == DS


def test_duplicate_dataset_id_and_file_name(tmp_path):
    root = write_tree(tmp_path, {"registry/datasets/other.yaml": GOOD_TREE[DS]})
    diags = validate(root).diagnostics
    # files load in name order: other.yaml claims the id first, and is also misnamed; qa_set.yaml is the duplicate
    assert [d.file for d in diags if d.code == "CLR201"] == [DS]
    assert [d.file for d in diags if d.code == "CLR204"] == ["registry/datasets/other.yaml"]
    root2 = write_tree(tmp_path / "b", {DS: None, "registry/datasets/renamed.yaml": GOOD_TREE[DS]})
    [d] = [d for d in validate(root2).diagnostics if d.code == "CLR204"]
    assert d.file == "registry/datasets/renamed.yaml" and d.line == line_of(GOOD_TREE[DS], "id: qa_set")


def test_missing_releases_and_unlisted_category(tmp_path):
    root = write_tree(tmp_path, {REL: None, "taxonomy/extra.yaml": GOOD_TREE[CAT].replace("id: care", "id: extra")
                                 .replace("answer_questions", "aq2").replace("rank_differentials", "rd2")
                                 .replace("plan_treatment", "pt2").replace("id: diagnosis", "id: d2")
                                 .replace("id: treatment", "id: t2")})
    diags = validate(root).diagnostics
    assert {(d.file, d.line) for d in diags if d.code == "CLR304"} == {
        (REL, 1), ("taxonomy/extra.yaml", line_of(GOOD_TREE[CAT], "id: care"))}


def test_unrecognised_yaml_file_is_reported(tmp_path):
    root = write_tree(tmp_path, {"registry/stray.yaml": "a: 1\n"})
    [d] = [d for d in validate(root).diagnostics if d.code == "CLR305"]
    assert d.file == "registry/stray.yaml"


def test_symlink_out_of_the_root_is_refused(tmp_path):
    outside = tmp_path / "secret.yaml"
    outside.write_text("id: secret\n")
    root = write_tree(tmp_path / "reg")
    (root / "registry/datasets/secret.yaml").symlink_to(outside)
    [d] = [d for d in validate(root).diagnostics if d.code == "CLR009"]
    assert d.file == "registry/datasets/secret.yaml"


def _errors(root, code):
    return [d for d in validate(root).diagnostics if d.code == code]


def test_published_release_must_list_what_it_added_and_only_the_newest_may_be_open(tmp_path):
    rel = GOOD_TREE[REL]
    unlisted = write_tree(tmp_path / "a", {REL: replace_in(rel, ", datasets_added: [plans]", "")})
    (d,) = _errors(unlisted, "CLR604")
    assert (d.file, d.line) == (REL, line_of(GOOD_TREE[REL], "version: 1.1.0")) and "datasets_added: [plans]" in d.hint
    ghost = write_tree(tmp_path / "b", {REL: replace_in(rel, "datasets_added: [plans]",
                                                        "datasets_added: [plans, gone]")})
    (d,) = _errors(ghost, "CLR604")
    assert d.file == REL and "`gone`" in d.message and "no record" in d.message
    open_old = write_tree(tmp_path / "c", {REL: replace_in(rel, "title: First, datasets_added: [qa_set]",
                                                           "title: First, status: open")})
    assert any("is not the newest" in d.message for d in _errors(open_old, "CLR604"))
    # An open release takes new records; the hint of a record naming a published release points at it.
    opened = rel + "  - {version: 1.2.0, date: 2025-03-01, title: Third, status: open}\n"
    opened = replace_in(opened, "current: 1.1.0", "current: 1.2.0")
    newer = replace_in(replace_in(replace_in(GOOD_TREE[DS2], "id: plans", "id: plans_two"), "- id: plans",
                                  "- id: plans_two"),
                       "added_in: 1.1.0", "added_in: 1.2.0")
    root = write_tree(tmp_path / "d", {REL: opened, "registry/datasets/plans_two.yaml": newer})
    assert _errors(root, "CLR604") == []
    root = write_tree(tmp_path / "e", {REL: replace_in(opened, "title: Second, datasets_added: [plans]",
                                                       "title: Second, datasets_added: []"),
                                       DS2: GOOD_TREE[DS2]})
    (d,) = _errors(root, "CLR604")
    assert d.file == DS2 and d.hint == "name the open release: `added_in: 1.2.0`"


def test_a_release_newer_than_every_release_is_one_to_open_not_a_typo_of_an_old_one(tmp_path):
    root = write_tree(tmp_path / "a", {DS: replace_in(GOOD_TREE[DS], "added_in: 1.0.0", "added_in: 1.5.0")})
    (d,) = _errors(root, "CLR303")
    assert ("1.0.0" not in d.hint
            and d.hint == "1.5.0 is newer than every release: open it with `clinreg new release 1.5.0 --title ...`")
    between = write_tree(tmp_path / "b", {DS: replace_in(GOOD_TREE[DS], "added_in: 1.0.0", "added_in: 1.0.5")})
    (d,) = _errors(between, "CLR303")
    assert d.hint == "known releases: 1.0.0, 1.1.0"


def test_release_option_names_the_way_to_open_a_newer_release(tmp_path):
    from clirunner import invoke

    from clinreg.cli.main import main

    root = write_tree(tmp_path / "reg")
    result = invoke(main, ["coverage", "--root", str(root), "--release", "1.5.0"])
    assert (result.exit_code == 2 and "newer than every release" in result.output
            and "clinreg new release 1.5.0" in result.output)
