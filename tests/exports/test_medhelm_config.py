"""`clinreg export medhelm RECORD`: the files medhelm 0.8.0's configurable benchmark reads, read back the way its
scenario and jury read them (pandas.read_csv, str.format_map, string.Template, the <rubric_criteria> block), and
the records the format cannot express refused. medhelm itself runs the export in tests/interop."""

from __future__ import annotations

import json
import re
import string

import pandas as pd
import pytest
import yaml
from clirunner import invoke

from record_fixtures import hub_folder
from trees import DATASET, DATASET2, replace_in, write_tree
from clinreg.cli.build import build
from clinreg.cli.export import export


@pytest.fixture
def data(tmp_path):
    folder = tmp_path / "data"
    rows = [{"question": f"q{i} {{dose}} costs $5", "answer": ["yes", "no", "maybe"][i % 3]} for i in range(5)]
    hub_folder(folder, "owner/qa_set", {"test": rows})
    (folder / "plans").mkdir(parents=True)
    (folder / "plans" / "plans.csv").write_text("note,plan\nn0 {x} $HOME,rest and fluids\nn1,surgery\n",
                                                encoding="utf-8")
    return folder


def run(*args):
    return invoke(export, ["medhelm", *[str(a) for a in args]])


def filled(out, name):
    """Each instance's prompt as medhelm's MedHELMConfigurableScenario fills it: pandas row, str.format_map."""
    config = yaml.safe_load((out / f"{name}.yaml").read_text())
    template = (out / config["prompt_file"]).read_text()
    frame = pd.read_csv(out / config["dataset_file"])
    fields = [f for _, f, _, _ in string.Formatter().parse(template) if f]
    return config, frame, [template.format_map({f: row.get(f, "") for f in fields}) for _, row in frame.iterrows()]


def test_a_closed_record_runs_clinreg_prompts_scored_by_exact_match(tree, data, tmp_path):
    out = tmp_path / "out"
    result = run("qa_set", "--root", tree, "--data-dir", data, "-o", out)
    assert result.exit_code == 0, result.output
    config, frame, prompts = filled(out, "qa_set")
    assert config["name"] == "qa_set" and config["metrics"] == [{"name": "exact_match"}]
    assert config["max_tokens"] == 1024  # the fixture gives no generation block: named as a difference
    built = [json.loads(line) for line in invoke(build, ["qa_set", "--root", str(tree), "--data-dir", str(data),
                                                         "-q"]).stdout.splitlines()]
    assert prompts == [b["prompt"] for b in built] and "{dose} costs $5" in prompts[0]
    assert list(frame["correct_answer"]) == [b["gold"]["letter"] for b in built]
    assert [json.loads(x) for x in frame["incorrect_answers"]][:2] == [["B", "C"], ["A", "C"]]
    assert not frame.isna().any().any()
    conf = json.loads((out / "run_entries_qa_set.conf").read_text())
    assert conf["entries"][0]["description"] == "medhelm_configurable_benchmark:config_path=qa_set.yaml,model=text"
    readme = (out / "README.md").read_text()
    assert f"cd {out.resolve()}" in readme and "helm-summarize --suite clinreg --auto-generate-schema" in readme
    assert "medhelm-run --conf-paths run_entries_qa_set.conf --suite clinreg" in readme
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["main_metric"] == "exact_match" and manifest["instances"] == 5
    assert any("no generation settings" in d for d in manifest["differs"])


def test_a_jury_record_gets_jury_score_and_a_judge_prompt_medhelm_can_fill(tree, data, tmp_path):
    rubric = "The model wrote a treatment plan; a clinician's plan is the reference. Costs in $ matter."
    text = replace_in(DATASET2, "rubric: The model wrote a treatment plan; a clinician's plan is the reference.",
                      f"rubric: \"{rubric}\"\n        shows: [input, response]")
    text = replace_in(text, "    scoring:", "    generation: {adapter: generation, temperature: 0, max_tokens: 300, "
                      "stop: [\"\\n\\n\"], instructions: \"Write a plan {in full}.\", "
                      "source: The fixture.}\n    scoring:")
    root = write_tree(tmp_path / "reg", {"registry/datasets/plans.yaml": text})
    out = tmp_path / "out"
    result = run("plans", "--root", root, "--data-dir", data, "-o", out, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)["data"]
    config, frame, prompts = filled(out, "plans")
    assert config["max_tokens"] == 300 and [m["name"] for m in config["metrics"]] == ["jury_score"]
    assert prompts[0].startswith("Write a plan {in full}.\n\nn0 {x} $HOME")  # braces doubled in the file, not here
    assert list(frame["correct_answer"]) == ["rest and fluids", "surgery"]
    judges = config["metrics"][0]["judges"]
    assert [j["model_name"] for j in judges] == ["openai/gpt-4o-2024-05-13", "meta/llama-3.3-70b-instruct",
                                                 "anthropic/claude-3-7-sonnet-20250219"]
    assert judges[0]["name"] == "stanfordhealthcare/gpt-4o-2024-05-13"
    judge = (out / config["metrics"][0]["prompt_file"]).read_text()
    assert "{QUESTION}" in judge and "{RESPONSE}" in judge and "{GOLD_RESPONSE}" not in judge  # shows no reference
    criteria = json.loads(re.search(r"<rubric_criteria>\s*(\{.*?\})\s*</rubric_criteria>", judge, re.S).group(1))
    assert criteria == {"accuracy": ["score", "explanation"], "clarity": ["score", "explanation"]}
    # medhelm's LLMAsJuryAnnotator: {QUESTION} etc. become $-placeholders, then string.Template.substitute
    template = judge.replace("{QUESTION}", "$QUESTION").replace("{RESPONSE}", "$RESPONSE")
    sent = string.Template(template).substitute(QUESTION=prompts[0], RESPONSE="Rest. $1", GOLD_RESPONSE="")
    assert "Costs in $ matter." in sent and "n0 {x} $HOME" in sent and "Rest. $1" in sent
    assert report["main_metric"] == "jury_score" and report["instances"] == 2
    differs = " ".join(report["differs"])
    assert "raw mean" in differs and "not a 0-1 score" in differs and 'no stop sequences, not the record' in differs
    assert "raw mean of the criterion scores" in (out / "README.md").read_text()


@pytest.mark.parametrize("change, message", [
    (("metric: {name: jury, range: [1, 5]}\n    scoring:\n      method: jury\n      jury:\n        rubric: The model "
      "wrote a treatment plan; a clinician's plan is the reference.\n        axes: [{id: accuracy, question: \"Is it "
      "right?\"}, {id: clarity, question: \"Is it clear?\"}]\n", "metric: {name: overall_score}\n"),
     "cannot express"),
    (("n0 {x} $HOME,rest and fluids", "n0,NA"), "reads as missing"),
    (("    metric: {name: jury, range: [1, 5]}\n", "    generation: {adapter: agent, temperature: 0, max_tokens: 1, "
      "stop: [], source: a run spec}\n    metric: {name: jury, range: [1, 5]}\n"), "agent adapter"),
])
def test_what_the_format_cannot_express_is_refused_and_nothing_written(change, message, tree, data, tmp_path):
    root = tree
    if change[0].lstrip().startswith("metric"):
        root = write_tree(tmp_path / "reg2", {"registry/datasets/plans.yaml": replace_in(DATASET2, *change)})
    else:
        path = data / "plans" / "plans.csv"
        path.write_text(replace_in(path.read_text(), *change), encoding="utf-8")
    out = tmp_path / "out"
    result = run("plans", "--root", root, "--data-dir", data, "-o", out, "--format", "json")
    assert result.exit_code == 1, result.output
    error = json.loads(result.stderr)["data"]
    assert error["code"] == "CLR912" and message in error["message"]
    assert not out.exists() and not list(tmp_path.glob(".out.*"))


def test_usage_errors(tree, data, tmp_path):
    assert run("qa_sett", "--root", tree, "--data-dir", data, "-o", tmp_path / "a").exit_code == 2
    both = run("qa_set", "plans", "--root", tree, "--data-dir", data, "-o", tmp_path / "a")
    assert both.exit_code == 2 and "exactly one" in both.stderr
    assert run("qa_set", "--root", tree, "--data-dir", data, "-o", tmp_path / "a").exit_code == 0
    again = run("qa_set", "--root", tree, "--data-dir", data, "-o", tmp_path / "a", "--format", "json")
    assert again.exit_code == 2 and json.loads(again.stderr)["data"]["code"] == "CLR983"
    other = invoke(export, ["lm-eval", "qa_set", "--mapping", "qa_set", "--root", str(tree), "-o", str(tmp_path / "b")])
    assert other.exit_code == 2 and "--mapping applies only" in other.stderr
    assert DATASET  # the closed fixture is the tree's qa_set


def test_a_closed_task_names_medhelms_instructions_and_outputs_it_does_not_send(tmp_path):
    """Review finding: the closed prompt keeps clinreg's letter instruction; that, and one output where MedHELM asks
    for five, are named among what differs, as every setting a format cannot send is."""
    from clinreg.exports.medhelm_config import MedhelmExport, _generation_differs

    report = MedhelmExport(record="r", mapping="m", name="r", output=tmp_path)
    _generation_differs({"temperature": 0, "max_tokens": 1, "stop": [], "instructions": "Answer A to D.",
                         "num_outputs": 5, "adapter": "multiple_choice"}, "choice", report)
    differs = " ".join(report.differs)
    assert "not MedHELM's instructions" in differs and "Answer A to D." in differs
    assert "one output per instance, not the record's 5" in differs
    quiet = MedhelmExport(record="r", mapping="m", name="r", output=tmp_path)
    _generation_differs({"temperature": 0, "max_tokens": 1, "stop": [], "num_outputs": 1}, "choice", quiet)
    assert quiet.differs == []
