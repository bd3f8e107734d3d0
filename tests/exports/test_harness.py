"""`clinreg export`: the folder's files parse, place every mapping in its subcategory and category, and score right.

The real harnesses run these exports in tests/interop; these tests need neither of them.
"""

from __future__ import annotations

import ast
import json

import pytest
import yaml
from clirunner import invoke

from record_fixtures import hub_folder
from clinreg.cli.build import build
from clinreg.cli.export import export
from clinreg.instances.stamp import canary_guid
from clinreg.scoring import medhelm


@pytest.fixture
def data(tmp_path):
    folder = tmp_path / "data"
    hub_folder(folder, "owner/qa_set",
               {"test": [{"question": f"q{i}", "answer": ["yes", "no", "maybe"][i % 3]} for i in range(7)]})
    (folder / "plans").mkdir(parents=True)  # the tree's private record reads plans.csv as distributed
    (folder / "plans" / "plans.csv").write_text("note,plan\nn0,rest and fluids\nn1,surgery\n", encoding="utf-8")
    return folder


def run(*args):
    return invoke(export, [str(a) for a in args])


class _FunctionLoader(yaml.SafeLoader):
    pass


_FunctionLoader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))


def test_lm_eval_tasks_and_groups(tree, data, tmp_path):
    out = tmp_path / "lm"
    result = run("lm-eval", "--root", tree, "--data-dir", data, "-o", out)
    assert result.exit_code == 0, result.stderr
    assert "exported 2 mapping(s), 9 instance(s)" in result.stdout
    qa = yaml.load((out / "tasks" / "clinreg_qa_set.yaml").read_text(), Loader=_FunctionLoader)
    # a closed task generates its letter (MedHELM's way), read by a regex filter, scored on the gold letter
    assert qa["dataset_path"] == "json" and qa["output_type"] == "generate_until"
    assert qa["dataset_kwargs"]["data_files"]["test"] == str((out / "data" / "qa_set" / "qa_set.jsonl").resolve())
    assert qa["doc_to_target"] == "{{gold.letter}}" and qa["process_results"] == ("function", "utils.process_letter")
    assert qa["filter_list"][0]["name"] == "none" and qa["metadata"]["medhelm_comparable"] is True
    plans = yaml.load((out / "tasks" / "clinreg_plans.yaml").read_text(), Loader=_FunctionLoader)
    assert plans["output_type"] == "generate_until" and plans["doc_to_target"] == "{{gold.value}}"
    groups = {p.stem: yaml.safe_load(p.read_text()) for p in (out / "groups").glob("*.yaml")}
    assert {k: v["task"] for k, v in groups.items()} == {
        "clinreg_diagnosis": ["clinreg_qa_set"], "clinreg_treatment": ["clinreg_plans"],
        "clinreg_care": ["clinreg_plans", "clinreg_qa_set"],
    }
    assert all(g["aggregate_metric_list"][0]["metric"] == "score" for g in groups.values())
    text = (out / "tasks" / "clinreg_qa_set.yaml").read_text()
    assert canary_guid("mini") in text and "release 1.1.0" in text
    built = invoke(build, ["qa_set", "--root", str(tree), "--data-dir", str(data), "-q"]).stdout
    assert (out / "data" / "qa_set" / "qa_set.jsonl").read_text() == built


def test_lm_eval_loglikelihood_variant_is_an_option_marked_not_medhelm_comparable(tree, data, tmp_path):
    out = tmp_path / "lm"
    result = run("lm-eval", "--root", tree, "--data-dir", data, "-o", out, "--choice-scoring", "loglikelihood")
    assert result.exit_code == 0, result.stderr
    text = (out / "tasks" / "clinreg_qa_set.yaml").read_text()
    qa = yaml.load(text, Loader=_FunctionLoader)
    assert qa["output_type"] == "multiple_choice" and qa["doc_to_target"] == "{{gold.index}}"
    assert qa["process_results"] == ("function", "utils.process_choice") and "NOT MedHELM-comparable" in text
    manifest = {m["name"]: m for m in json.loads((out / "manifest.json").read_text())["mappings"]}
    assert manifest["clinreg_qa_set"]["medhelm_comparable"] is False
    assert manifest["clinreg_plans"]["medhelm_comparable"] is True  # a free-text task generates either way
    assert "not MedHELM-comparable" in (out / "README.md").read_text()
    other = run("inspect", "--root", tree, "--data-dir", data, "-o", tmp_path / "i", "--choice-scoring",
                "loglikelihood")
    assert other.exit_code == 2 and "--choice-scoring applies only to `export lm-eval`" in other.stderr
    assert not (tmp_path / "i").exists()


def test_inspect_module_defines_one_task_per_mapping_and_the_group_lists(tree, data, tmp_path):
    out = tmp_path / "inspect"
    assert run("inspect", "--root", tree, "--data-dir", data, "-o", out).exit_code == 0
    source = (out / "clinreg_tasks.py").read_text()
    module = ast.parse(source)
    tasks = [f.name for f in module.body if isinstance(f, ast.FunctionDef) and any(
        isinstance(d, ast.Name) and d.id == "task" for d in f.decorator_list)]
    # One task per mapping, and, as clinreg_plans is jury-scored, the task judging an lm-eval run's samples file.
    assert tasks == ["clinreg_plans", "clinreg_qa_set", "clinreg_lm_eval_judged"]
    values = {t.id: ast.literal_eval(n.value) for n in module.body if isinstance(n, ast.Assign) for t in n.targets
              if isinstance(t, ast.Name) and t.id in ("SUBCATEGORIES", "CATEGORIES", "MAPPINGS")}
    assert values["SUBCATEGORIES"] == {"diagnosis": ["clinreg_qa_set"], "treatment": ["clinreg_plans"]}
    assert values["CATEGORIES"] == {"care": ["clinreg_plans", "clinreg_qa_set"]}
    assert (values["MAPPINGS"]["clinreg_qa_set"]["kind"] == "choice"
            and values["MAPPINGS"]["clinreg_plans"]["kind"] == "text")
    assert "clinreg" not in {n.names[0].name.split(".")[0] for n in module.body
                             if isinstance(n, (ast.Import, ast.ImportFrom))
                             and isinstance(n, ast.Import)}


def test_helm_run_entries_per_tier_and_schema_placement(tree, data, tmp_path):
    out = tmp_path / "helm"
    assert run("helm", "--root", tree, "--data-dir", data, "-o", out).exit_code == 0
    public = yaml.safe_load((out / "run_entries_clinreg_public.conf").read_text())
    private = yaml.safe_load((out / "run_entries_clinreg_private.conf").read_text())
    assert public == {"entries": [{"description": "clinreg:mapping=qa_set,model=text", "priority": 1}]}
    assert private["entries"][0]["description"] == "clinreg:mapping=plans,model=text"
    groups = {g["name"]: g for g in yaml.safe_load((out / "schema_clinreg.yaml").read_text())["run_groups"]}
    assert groups["clinreg"]["subgroups"] == ["clinreg_care"]
    assert groups["clinreg_care"]["subgroups"] == ["clinreg_diagnosis", "clinreg_treatment"]
    assert groups["clinreg_diagnosis"]["subgroups"] == ["clinreg_qa_set"]
    assert groups["clinreg_qa_set"]["environment"]["main_split"] == "test"
    compile((out / "clinreg_helm.py").read_text(), "clinreg_helm.py", "exec")


def test_records_without_data_are_named_and_exit_1_unless_named(tree, data, tmp_path):
    (data / "plans").rename(tmp_path / "elsewhere")
    result = run("inspect", "--root", tree, "--data-dir", data, "-o", tmp_path / "a", "--format", "json")
    assert result.exit_code == 1  # the folder holds what could be built; the record left out is named, not dropped
    report = json.loads(result.stdout)["data"]
    assert [m["name"] for m in report["mappings"]] == ["clinreg_qa_set"] and list(report["skipped"]) == ["plans"]
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["skipped"] == report["skipped"]
    named = run("inspect", "plans", "--root", tree, "--data-dir", data, "-o", tmp_path / "b")
    assert named.exit_code == 2 and named.stderr.count("\n") == 1 and "plans is private" in named.stderr
    assert not (tmp_path / "b").exists()


def test_usage_errors(tree, data, tmp_path):
    typo = run("lm-eval", "qa_sett", "--root", tree, "--data-dir", data, "-o", tmp_path / "x")
    assert typo.exit_code == 2 and "did you mean 'qa_set'?" in typo.stderr
    assert run("lm-eval", "--root", tree, "--data-dir", data, "-o", tmp_path / "x").exit_code == 0
    again = run("lm-eval", "--root", tree, "--data-dir", data, "-o", tmp_path / "x")
    assert again.exit_code == 2 and "--force" in again.stderr
    assert run("lm-eval", "--root", tree, "--data-dir", data, "-o", tmp_path / "x", "--force").exit_code == 0
    only_public = run("helm", "--root", tree, "--data-dir", data, "--access", "public", "-o", tmp_path / "p",
                      "--format", "json")
    assert [m["dataset"] for m in json.loads(only_public.stdout)["data"]["mappings"]] == ["qa_set"]
    old = run("helm", "--root", tree, "--data-dir", data, "--release", "1.0.0", "-o", tmp_path / "r", "--format",
              "json")
    assert json.loads(old.stdout)["data"]["release"] == "1.0.0" and len(json.loads(old.stdout)["data"]["mappings"]) == 1


@pytest.mark.parametrize("completion, gold, expected", [
    ("12.4", {"value": "12.5", "lower": "11.875", "upper": "13.125"}, True),
    ("The score is 14 points.", {"value": "12.5", "lower": "11.875", "upper": "13.125"}, False),
    ("about 1,250 mL", {"value": "1250", "lower": "1200", "upper": "1300"}, True),
    ("no idea", {"value": "3", "lower": "3", "upper": "3"}, False),
    ("7", {"value": "7", "lower": None, "upper": None}, True),
    ("03/04/2021", {"value": "03/04/2021", "lower": "03/04/2021", "upper": "03/04/2021"}, True),
    ("04/03/2021", {"value": "03/04/2021", "lower": "03/04/2021", "upper": "03/04/2021"}, False),
    ("('4 weeks', '2 days')", {"value": "('4 weeks', '2 days')", "lower": None, "upper": None}, True),
])
def test_number_scoring(completion, gold, expected):
    assert medhelm.in_range(completion, gold) is expected


def test_reference_overlap():
    f1 = medhelm.token_f1
    assert f1("Rest and fluids.", "rest and fluids") == 1.0
    assert f1("surgery", "rest and fluids") == 0.0
    assert f1("rest only", "rest and fluids") == pytest.approx(0.4)
