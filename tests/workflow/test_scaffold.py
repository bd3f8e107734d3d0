"""`clinreg new dataset`: the skeleton validates apart from its TODO warnings, with flags and with hub features."""

from __future__ import annotations

import json
import textwrap

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from clinreg.contrib.features import read_features
from clinreg.core.model import Dataset
from clinreg.core.yamlsrc import parse_yaml
from clinreg.text.yamltext import yaml_scalar
from trees import write_tree
from workflow.helpers import findings, new_dataset, run

REL = "registry/datasets/new_set.yaml"


@pytest.fixture
def tree(tmp_path):
    """The good tree with release 1.2.0 opened, as a maintainer keeps one open for new records."""
    from clinreg.cli.main import main

    root = write_tree(tmp_path / "reg")
    result = run(main, "new", "release", "1.2.0", "--root", str(root), "--title", "Next records")
    assert result.exit_code == 0, result.output
    return root


def _only_todo_warnings(root, rel=REL) -> list:
    diags = findings(root, rel)
    assert [d for d in diags if d.severity == "error"] == []
    assert {d.code for d in diags} <= {"CLR106", "CLR701"}, [f"{d.code} {d.message}" for d in diags]
    return diags


def _todo_fields(diags) -> set[str]:
    return {d.message.split("`")[1] for d in diags if d.code == "CLR106"}


def _record(root, rel=REL) -> dict:
    doc = parse_yaml((root / rel).read_bytes())
    assert doc.problems == []
    Dataset.model_validate(doc.data)
    return doc.data


def test_skeleton_with_flags_validates_apart_from_todo_warnings(tree):
    result = new_dataset(tree, "new_set", "--name", "New set", "--hf-repo", "owner/new-set", "--access", "gated",
                         "--task", "answer_questions", "--task", "rank_differentials")
    assert result.exit_code == 0, result.output
    text = (tree / REL).read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# yaml-language-server: $schema=../../schemas/dataset.schema.json"
    record = _record(tree)
    assert record["name"] == "New set"
    assert record["version"] == "1.0.0"
    assert record["added_in"] == "1.2.0"  # the tree's open release
    assert record["in_medhelm"] is False
    assert record["access"]["tier"] == "gated"
    assert record["source"]["repo"] == "owner/new-set"
    assert record["mappings"][0]["tasks"] == ["answer_questions", "rank_differentials"]
    todo = _todo_fields(_only_todo_warnings(tree))
    assert {"licence.spdx", "citation.text", "source.revision", "access.instructions", "description"} <= todo
    assert "name" not in todo and "source.repo" not in todo
    # every field carries a comment that explains it
    assert text.count("\n#") + text.count("\n  #") > 20


def test_skeleton_without_answers_marks_everything_todo(tree):
    result = new_dataset(tree, "new_set", "--task", "answer_questions", "--format", "json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)["data"]
    assert payload["path"] == REL
    assert payload["problems"] == []
    todo = _todo_fields(_only_todo_warnings(tree))
    assert set(payload["todo_fields"]) == todo
    assert {"name", "source.repo", "mappings.0.label.column", "mappings.0.input_template"} <= todo


HUB_CARD_MEDMCQA = """\
features:
- {name: id, dtype: string}
- {name: question, dtype: string}
- {name: opa, dtype: string}
- {name: opb, dtype: string}
- {name: opc, dtype: string}
- {name: opd, dtype: string}
- name: cop
  dtype:
    class_label:
      names: {'0': a, '1': b, '2': c, '3': d}
- {name: choice_type, dtype: string}
- {name: exp, dtype: string}
"""

README_PUBMEDQA = """\
---
license: mit
configs:
- config_name: pqa_labeled
  data_files:
  - split: train
    path: pqa_labeled/train-*
dataset_info:
  config_name: pqa_labeled
  features:
  - name: pubid
    dtype: int32
  - name: question
    dtype: string
  - name: context
    sequence:
    - name: contexts
      dtype: string
    - name: labels
      dtype: string
  - name: long_answer
    dtype: string
  - name: final_decision
    dtype: string
---
# PubMedQA
"""

FEATURE_FILES = {
    # name: (file name, content, expected label, expected choices key)
    "medmcqa_card": ("features.yaml", HUB_CARD_MEDMCQA, {"encoding": "index", "column": "cop", "base": 0, "count": 4},
                     "columns"),
    "medqa_mapping": ("features.json", json.dumps({
        "question": "string", "answer": "string",
        "options": {"A": "string", "B": "string", "C": "string", "D": "string"},
        "meta_info": "string", "answer_idx": "string", "metamap_phrases": ["string"]}),
        {"encoding": "letter", "column": "answer_idx", "letters": ["A", "B", "C", "D"]}, "struct"),
    "pubmedqa_readme": ("README.md", README_PUBMEDQA,
                        {"encoding": "string_set", "column": "final_decision",
                         "map": {"yes": "A", "no": "B", "maybe": "C"}}, "fixed"),
    "headqa_card": ("features.yaml", """\
        - {name: qid, dtype: int32}
        - {name: qtext, dtype: string}
        - {name: ra, dtype: int32}
        - name: answers
          list:
          - {name: aid, dtype: int32}
          - {name: atext, dtype: string}
        """, {"encoding": "option_id", "column": "ra", "max_options": 5}, "items"),
    "medcalc_parquet_info": ("features.json", json.dumps({"info": {"features": {
        "Patient Note": {"dtype": "string", "_type": "Value"}, "Question": {"dtype": "string", "_type": "Value"},
        "Ground Truth Answer": {"dtype": "string", "_type": "Value"},
        "Lower Limit": {"dtype": "string", "_type": "Value"},
        "Upper Limit": {"dtype": "string", "_type": "Value"}, "Row Number": {"dtype": "int64", "_type": "Value"}}}}),
        {"encoding": "number", "column": "Ground Truth Answer", "lower_column": "Lower Limit",
         "upper_column": "Upper Limit"}, None),
    "binary_class_label": ("features.yaml", """\
        text: string
        label: {class_label: {names: [negative, positive]}}
        """, {"encoding": "index", "column": "label", "base": 0, "count": 2, "positive": "B"}, "fixed"),
    "open_qa": ("features.yaml", "{question: string, answer: string}", {"encoding": "free_text", "column": "answer"},
                None),
    "no_label_column": ("features.yaml", "{note: string, note_id: string}", {"encoding": "free_text", "column": "TODO"},
                        None),
    "int_label_without_options": ("features.yaml", "{question: string, label: int64}",
                                  {"encoding": "index", "column": "label", "base": 0, "count": 4}, "columns"),
}


@pytest.mark.parametrize("case", sorted(FEATURE_FILES))
def test_skeleton_from_hub_features_guesses_and_validates(tree, tmp_path, case):
    name, content, label, choices_key = FEATURE_FILES[case]
    features = tmp_path / case / name
    features.parent.mkdir()
    features.write_text(textwrap.dedent(content), encoding="utf-8")
    result = new_dataset(tree, "new_set", "--hf-repo", "owner/new_set", "--access", "public", "--task",
                         "answer_questions", "--from-hub-features", features)
    assert result.exit_code == 0, result.output
    assert "guessed from the features" in result.output
    text = (tree / REL).read_text(encoding="utf-8")
    assert "# GUESSED from" in text  # the guess is marked for the contributor to check
    _only_todo_warnings(tree)
    mapping = _record(tree)["mappings"][0]
    assert mapping["label"] == label
    assert (next(iter(mapping["choices"])) if mapping.get("choices") else None) == choices_key
    read = set(mapping["fields_read"])
    if label["column"] != "TODO":
        assert label["column"] in read


def test_features_pre_fill_input_template_and_fields(tree, tmp_path):
    features = tmp_path / "features.yaml"
    features.write_text(HUB_CARD_MEDMCQA, encoding="utf-8")
    assert new_dataset(tree, "new_set", "--task", "answer_questions", "--from-hub-features", features).exit_code == 0
    mapping = _record(tree)["mappings"][0]
    assert mapping["input_template"] == "{{ question }}"  # the explanation `exp` is not model input
    assert mapping["choices"] == {"columns": ["opa", "opb", "opc", "opd"]}
    assert mapping["fields_read"] == ["question", "opa", "opb", "opc", "opd", "cop"]
    assert mapping["metric"] == {"name": "exact_match"}


def test_readme_card_fills_licence_config_and_splits(tree, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(README_PUBMEDQA, encoding="utf-8")
    assert new_dataset(tree, "new_set", "--task", "answer_questions", "--from-hub-features", readme).exit_code == 0
    record = _record(tree)
    assert record["licence"]["spdx"] == "MIT"
    assert record["source"]["config"] == "pqa_labeled"
    assert record["source"]["splits"] == ["train"] == record["mappings"][0]["splits"]
    text = (tree / REL).read_text(encoding="utf-8")
    assert 'map: {"yes": A, "no": B, "maybe": C}' in text  # label values quoted against the YAML 1.1 trap


def test_columns_with_spaces_are_read_through_row(tree, tmp_path):
    features = tmp_path / "f.json"
    features.write_text(json.dumps({"Patient Note": "string", "Question": "string", "Ground Truth": "string"}),
                        encoding="utf-8")
    assert new_dataset(tree, "new_set", "--task", "answer_questions", "--from-hub-features", features).exit_code == 0
    template = _record(tree)["mappings"][0]["input_template"]
    assert 'row["Patient Note"]' in template and "{{ Question }}" in template


def test_existing_file_is_refused_and_left_byte_identical(tree):
    target = tree / "registry/datasets/qa_set.yaml"
    before = target.read_bytes()
    result = new_dataset(tree, "qa_set", "--task", "answer_questions")
    assert result.exit_code == 2
    assert "already exists" in result.output
    assert target.read_bytes() == before


@pytest.mark.parametrize("bad_id", ["MedQA", "med-qa", "1set", "a__b", "x/../y", "abc\n", "a" * 121])
def test_bad_id_is_a_one_line_usage_error(tree, bad_id):
    before = sorted(p.name for p in (tree / "registry/datasets").iterdir())
    result = new_dataset(tree, bad_id, "--task", "answer_questions")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "snake_case" in result.output
    assert "Traceback" not in result.output
    assert sorted(p.name for p in (tree / "registry/datasets").iterdir()) == before


def test_unknown_task_suggests_the_closest(tree):
    result = new_dataset(tree, "new_set", "--task", "answer_question")
    assert result.exit_code == 2
    assert "did you mean 'answer_questions'" in result.output
    assert not (tree / REL).exists()


def test_no_task_without_a_terminal_is_a_usage_error(tree):
    result = new_dataset(tree, "new_set")
    assert result.exit_code == 2 and "--task" in result.output
    assert not (tree / REL).exists()


@pytest.mark.parametrize("content", ["[1, 2", "42", "- {dtype: string}", "{a: {class_label: {}}}", "\x00\x01", ""])
def test_unreadable_features_file_is_a_usage_error(tree, tmp_path, content):
    features = tmp_path / "f.yaml"
    features.write_text(content, encoding="utf-8")
    result = new_dataset(tree, "new_set", "--task", "answer_questions", "--from-hub-features", features)
    assert result.exit_code == 2, result.output
    assert "--from-hub-features" in result.output and "Traceback" not in result.output
    assert not (tree / REL).exists()


def test_bad_hub_repo_is_refused(tree):
    result = new_dataset(tree, "new_set", "--task", "answer_questions", "--hf-repo", "https://huggingface.co/x")
    assert result.exit_code == 2 and "owner/name" in result.output


@pytest.mark.slow
def test_prompts_when_stdin_is_a_terminal(tree, monkeypatch):
    monkeypatch.setattr("clinreg.cli.contrib.interactive", lambda: True)
    answers = "Prompted set\nowner/prompted\nprivate\nanswer_question\nanswer_questions, plan_treatment\n"
    result = new_dataset(tree, "new_set", input=answers)
    assert result.exit_code == 0, result.output
    assert "did you mean 'answer_questions'" in result.output  # a bad task id is asked again
    record = _record(tree)
    assert record["name"] == "Prompted set"
    assert record["source"]["repo"] == "owner/prompted"
    assert record["access"]["tier"] == "private"
    assert record["mappings"][0]["tasks"] == ["answer_questions", "plan_treatment"]
    _only_todo_warnings(tree)


def test_flags_are_not_asked_again(tree, monkeypatch):
    monkeypatch.setattr("clinreg.cli.contrib.interactive", lambda: True)
    result = new_dataset(tree, "new_set", "--name", "N", "--hf-repo", "o/n", "--access", "public",
                         "--task", "answer_questions", input="")
    assert result.exit_code == 0, result.output
    assert "Display name" not in result.output


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
@example("0\u20280")  # found by this test: U+2028 is a YAML line break, which a plain scalar folds
@example("a\x85b")
def test_yaml_scalar_reads_back_as_the_same_string(text):
    rendered = yaml_scalar(text)
    assert yaml.safe_load(f"key: {rendered}") == {"key": text}
    assert yaml.safe_load(f"key: [{rendered}, x]") == {"key": [text, "x"]}
    doc = parse_yaml(f"key: {rendered}\n".encode("utf-8"))
    assert doc.problems == [] and doc.data == {"key": text}


def test_read_features_accepts_both_shapes(tmp_path):
    card = tmp_path / "card.yaml"
    card.write_text(HUB_CARD_MEDMCQA, encoding="utf-8")
    simple = tmp_path / "simple.json"
    simple.write_text(json.dumps({"question": "string", "cop": {"class_label": {"names": ["a", "b"]}}}),
                      encoding="utf-8")
    assert [c.name for c in read_features(card).columns][:3] == ["id", "question", "opa"]
    cop = read_features(simple).columns[1]
    assert (cop.kind, cop.names) == ("class_label", ["a", "b"])


_json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
    | st.sampled_from(["string", "int64", "float32", "bool", "class_label", "question", "cop", "answer_idx",
                       "options"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["name", "dtype", "features", "struct", "sequence", "list", "class_label", "names", "_type",
                         "feature", "configs", "license", "dataset_info", "question", "label", "opa", "opb",
                         "Lower Limit",
                         "Upper Limit", "answer", "ra", "answers", "aid", "atext"]) | st.text(max_size=8),
        inner, max_size=5),
    max_leaves=25,
)


_column_name = st.text(max_size=10) | st.sampled_from(
    ["question", "cop", "answer_idx", "options", "label", "final_decision", "ra", "answers", "Lower Limit",
     "Upper Limit", "opa", "opb", "Ground Truth Answer", "for", "row", 'say "hi"'])
_card_list = st.lists(st.fixed_dictionaries({"name": _column_name,
                                             "dtype": st.sampled_from(["string", "int64",
                                                                       "bool"]) | st.fixed_dictionaries(
    {"class_label": st.fixed_dictionaries({"names": st.lists(st.text(max_size=6), max_size=4)})})}), max_size=8)
_simple_mapping = st.dictionaries(_column_name, st.sampled_from(["string", "int64", "bool", ["string"]])
                                  | st.dictionaries(st.text(max_size=3), st.just("string"), max_size=4), max_size=6)


@pytest.fixture(scope="module")
def scratch_tree(tmp_path_factory):
    from trees import RELEASES

    opened = RELEASES.replace("current: 1.1.0",
                              "current: 1.2.0") + "  - {version: 1.2.0, date: 2025-03-01, title: Next, status: open}\n"
    return write_tree(tmp_path_factory.mktemp("scratch") / "reg", {"registry/releases.yaml": opened})


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_card_list | _simple_mapping | _json_like)
# Found by this test: a 3-class ClassLabel beside two option columns gave `count: 2` and no `positive` (CLR503).
@example(data=[{"name": "OPTION0", "dtype": "string"}] * 2 + [{"name": "0",
                                                               "dtype": {"class_label": {"names": ["", "", ""]}}}])
@example(data=[{"name": "opa", "dtype": "string"}, {"name": "opb", "dtype": "string"},
               {"name": "opc", "dtype": "string"},
               {"name": "label", "dtype": {"class_label": {"names": ["no", "yes"]}}}])
# Found in MedXpertQA (issue 40): a struct of options beside a string `label` was read as free text with a jury.
@pytest.mark.slow
@example(data={"question": "string", "options": {k: "string" for k in "ABCDEFGHIJ"}, "label": "string"})
@example(data={"question": "string", "options": {"A": "string", "B": "string"}, "long_answer": "string"})
def test_any_features_data_gives_a_valid_skeleton_or_a_features_error(scratch_tree, data):
    from clinreg.contrib.features import FeaturesError, card_from_data
    from clinreg.contrib.scaffold import Answers, render_dataset
    from clinreg.templating.sandbox import InputTemplate

    try:
        card = card_from_data(data)
    except FeaturesError:
        return
    text, guess = render_dataset(Answers(id="x_set", tasks=["answer_questions"], release="1.2.0", card=card))
    doc = parse_yaml(text.encode("utf-8"))
    assert doc.problems == [], (text, doc.problems)
    record = Dataset.model_validate(doc.data)
    mapping = doc.data["mappings"][0]
    # No block contradicts another: options go with a closed scheme and exact match, a jury only with free text,
    # and every guess listed is one the record keeps.
    closed = mapping["label"]["encoding"] not in ("free_text", "number")
    assert ("choices" in mapping) == closed and ("scoring" in mapping) == (mapping["label"]["encoding"] == "free_text")
    assert not closed or mapping["metric"]["name"] == "exact_match"
    assert guess is None or closed or not any(r.startswith("choices:") for r in guess.reasons), guess.reasons
    InputTemplate(record.mappings[0].input_template, "x_set")  # the guessed template compiles
    if card.columns:  # the real rules: warnings only
        (scratch_tree / "registry/datasets/x_set.yaml").write_text(text, encoding="utf-8")
        errors = [d for d in findings(scratch_tree, "registry/datasets/x_set.yaml") if d.severity == "error"]
        assert errors == [], (text, errors)


def test_a_list_of_option_texts_becomes_items_choices(tree, tmp_path):
    features = tmp_path / "f.yaml"
    features.write_text("question: string\noptions: [string]\nanswer_idx: string\n", encoding="utf-8")
    result = new_dataset(tree, "new_set", "--task", "answer_questions", "--from-hub-features", features)
    assert result.exit_code == 0, result.output
    mapping = _record(tree)["mappings"][0]
    assert mapping["choices"] == {"items": "options"} and mapping["label"]["column"] == "answer_idx"
    assert "CLR505" not in {d.code for d in _only_todo_warnings(tree)}


def test_a_hub_card_and_a_column_description_together(tree, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("---\nlicense: mit\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n"
                      "    path: data/test.parquet\n---\n# a card without features\n", encoding="utf-8")
    columns = tmp_path / "columns.yaml"
    columns.write_text("question: string\noptions: [string]\nanswer_idx: string\n", encoding="utf-8")
    result = new_dataset(tree, "new_set", "--task", "answer_questions",
                         "--from-hub-features", readme, "--from-hub-features", columns)
    assert result.exit_code == 0, result.output
    record = _record(tree)
    assert record["licence"]["spdx"] == "MIT" and record["source"]["splits"] == ["test"]  # from the card
    assert record["mappings"][0]["choices"] == {"items": "options"}  # from the column description
    _only_todo_warnings(tree)


def test_new_release_opens_the_next_release_and_refuses_a_second(tmp_path):
    from clinreg.cli.main import main
    from clinreg.core.store import load_registry

    root = write_tree(tmp_path / "reg")
    before = (root / "registry" / "releases.yaml").read_text(encoding="utf-8")
    for args, words in [(("1.1.0",), "does not come after the newest release, 1.1.0"),
                        (("1.0.5",), "does not come after"), (("v2",), "not a semantic version")]:
        result = run(main, "new", "release", *args, "--root", str(root), "--title", "X")
        assert result.exit_code == 2 and words in result.output, result.output
    assert (root / "registry" / "releases.yaml").read_text(encoding="utf-8") == before
    result = run(main, "new", "release", "1.5.0", "--root", str(root), "--title", "Five: new records", "--format",
                 "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["data"] == {"path": "registry/releases.yaml", "version": "1.5.0", "status": "open"}
    reg = load_registry(root)
    assert (reg.releases.current, reg.open_release) == ("1.5.0", "1.5.0")
    assert reg.releases.releases[-1].title == "Five: new records"
    assert [d for d in findings(root, "registry/releases.yaml") if d.severity == "error"] == []
    result = run(main, "new", "release", "1.6.0", "--root", str(root), "--title", "Six")
    assert result.exit_code == 2 and "1.5.0 is still open" in result.output


def test_new_release_adds_its_row_to_the_readme_release_table(tmp_path):
    # Issue 40, item 5: opening a release as CONTRIBUTING says left tests/test_readme_releases.py failing.
    from clinreg.cli.main import main
    from clinreg.contrib.releases import README_TABLE_HEADER

    root = write_tree(tmp_path / "reg")
    (root / "README.md").write_text(f"# x\n\n{README_TABLE_HEADER}\n|---|---|---|---|---|\n"
                                    "| 1.0.0 | 2025-01-01 | 1 | 1 / 0 / 0 | qa_set |\n"
                                    "| 1.1.0 | 2025-02-01 | 2 | 1 / 0 / 1 | plans |\n\nAfter.\n", encoding="utf-8")
    result = run(main, "new", "release", "1.2.0", "--root", str(root), "--title", "Next records")
    assert result.exit_code == 0, result.output
    text = (root / "README.md").read_text(encoding="utf-8")
    row = text.splitlines()[6]
    assert row.startswith("| 1.2.0 | ") and row.endswith(" | 2 | 1 / 0 / 1 | none yet (open): Next records |")
    assert text.endswith(row + "\n\nAfter.\n") and row in result.output
    coverage = json.loads(run(main, "coverage", "--root", str(root), "--release", "1.2.0", "--format", "json").output)
    assert coverage["data"]["totals"]["datasets"] == 2
    (root / "README.md").unlink()
    root2 = write_tree(tmp_path / "reg2")
    result = run(main, "new", "release", "1.2.0", "--root", str(root2), "--title", "Next")
    assert "needs its row" in result.output and "| 1.2.0 |" in result.output


def test_without_an_open_release_nothing_is_written_and_the_command_to_open_one_is_named(tmp_path):
    # Issue 40, item 4: a skeleton naming the published release would fail validate (CLR604).
    root = write_tree(tmp_path / "reg")
    result = new_dataset(root, "new_set", "--task", "answer_questions")
    assert result.exit_code == 2, result.output
    assert "no release is open" in result.output and "clinreg new release 1.2.0 --title" in result.output
    assert not (root / REL).exists()
    from clinreg.cli.main import main
    from clinreg.rules.engine import validate

    assert run(main, "new", "release", "1.2.0", "--root", str(root), "--title", "New").exit_code == 0
    result = new_dataset(root, "new_set", "--task", "answer_questions")
    assert result.exit_code == 0, result.output
    assert [d for d in validate(root).diagnostics if d.severity == "error"] == []


def test_in_a_clone_the_skeleton_comes_with_a_test_writer_that_fails_until_filled(tree):
    import importlib.util

    writers = tree / "tests" / "distributions"
    writers.mkdir(parents=True)
    result = new_dataset(tree, "new_set", "--task", "answer_questions", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["data"]["writer"] == "tests/distributions/new_set.py"
    spec = importlib.util.spec_from_file_location("writer_new_set", writers / "new_set.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(NotImplementedError, match="The test writer"):
        module.write(tree / "data")
    # Filled in (here: just switched on), it writes its file and returns expectations in the documented shape.
    module.FILLED_IN = True
    expected = module.write(tree / "data")
    assert (tree / "data" / "data" / "test.jsonl").is_file() and set(expected) == {"splits", "dropped"}
    # A writer already there is the contributor's: a second scaffold (of another id) leaves it alone.
    (writers / "other_set.py").write_text("# mine\n")
    assert new_dataset(tree, "other_set", "--task", "answer_questions").exit_code == 0
    assert (writers / "other_set.py").read_text() == "# mine\n"


def test_outside_a_clone_no_writer_is_written(tree):
    result = new_dataset(tree, "new_set", "--task", "answer_questions", "--format", "json")
    assert json.loads(result.output)["data"]["writer"] is None and not (tree / "tests").exists()


@pytest.mark.parametrize("source", ["huggingface", "github", "url", "physionet", "local"])
def test_every_source_type_gives_a_skeleton_with_only_todo_warnings(tree, source):
    rel = f"registry/datasets/new_{source}.yaml"
    extra = {"github": ("--repo", "owner/new-set"), "url": ("--url", "https://example.org/data.zip"),
             "huggingface": ("--hf-repo", "owner/new-set")}.get(source, ())
    result = new_dataset(tree, f"new_{source}", "--source", source, *extra, "--task", "answer_questions")
    assert result.exit_code == 0, result.output
    record = _record(tree, rel)
    assert record["source"]["type"] == source and "read" in record["source"]
    _only_todo_warnings(tree, rel)
    if source == "github":
        assert (record["source"]["repo"] == "owner/new-set" and "commit" in record["source"]
                and "revision" not in record["source"])
        assert record["source"]["paths"] and "CLR715" in (tree / rel).read_text()
    if source == "url":
        assert record["source"]["url"] == "https://example.org/data.zip"


def test_source_flags_that_do_not_fit_the_source_are_refused(tree):
    result = new_dataset(tree, "new_set", "--source", "github", "--hf-repo", "owner/x", "--task", "answer_questions")
    assert result.exit_code == 2 and "--hf-repo is for --source huggingface" in result.output
    result = new_dataset(tree, "new_set", "--source", "url", "--url", "http://example.org/x", "--task",
                         "answer_questions")
    assert result.exit_code == 2 and "not an https URL" in result.output
    assert not (tree / REL).exists()


CARD_CONFIGS = """\
---
license:
  - cc-by-4.0
configs:
  - config_name: english
    data_files: [{split: train, path: en/train.csv}, {split: test, path: en/test.csv}]
  - config_name: spanish
    data_files: [{split: dev, path: es/dev.csv}]
---
"""


def test_config_picks_one_of_several_and_a_licence_list_is_read(tree, tmp_path):
    card = tmp_path / "README.md"
    card.write_text(CARD_CONFIGS, encoding="utf-8")
    result = new_dataset(tree, "new_set", "--from-hub-features", str(card), "--config", "spanish", "--task",
                         "answer_questions")
    assert result.exit_code == 0, result.output
    record = _record(tree)
    assert record["source"]["config"] == "spanish" and record["source"]["splits"] == ["dev"]
    assert record["licence"]["spdx"] == "CC-BY-4.0"
    result = new_dataset(tree, "other_set", "--from-hub-features", str(card), "--config", "spanis", "--task",
                         "answer_questions")
    assert result.exit_code == 2 and "did you mean 'spanish'" in result.output


def test_a_card_listing_several_licences_leaves_the_choice_to_the_contributor(tree, tmp_path):
    card = tmp_path / "README.md"
    card.write_text(CARD_CONFIGS.replace("  - cc-by-4.0\n", "  - cc-by-4.0\n  - mit\n"), encoding="utf-8")
    assert new_dataset(tree, "new_set", "--from-hub-features", str(card), "--task", "answer_questions").exit_code == 0
    licence = _record(tree)["licence"]
    assert licence["spdx"] == "TODO" and "cc-by-4.0, mit" in licence["note"]


def test_the_skeleton_writer_holds_a_cards_names_as_text_never_as_code():
    import ast

    from clinreg.contrib.writer import render_writer

    hostile = 'x"""; import os; os.system("echo owned"); """'
    source = render_writer("x_set", hostile, ['train"]; import os; x = ["'])
    tree = ast.parse(source)  # still one module: nothing in the names ended a string
    assert not any(isinstance(node, (ast.Import, ast.ImportFrom)) and any(a.name == "os" for a in node.names)
                   for node in ast.walk(tree))
    assert "train\"]; import os; x = [" in source  # the split is there, as a string literal
