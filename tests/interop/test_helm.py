"""HELM runs the export as its README says, on two test models, and its own output imports back into clinreg.

The whole loop, in HELM's venv (crfm-helm installed beside clinreg, see .ci/run): `clinreg export helm`, the
README's `helm-run` and `helm-summarize` commands on HELM's `simple/model1` and a constant-answer model of our
own (helm_plugin/clinreg_test_models.py), then `clinreg results import` of the run folders and of HELM's own
leaderboard, then `clinreg leaderboard`. Every check reads what HELM itself wrote.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.export import export
from clinreg.cli.main import main
from clinreg.rules.labels import ANSWER_INSTRUCTION

from .support import REPO, export_closed, have, need

pytestmark = pytest.mark.interop

# Closed (med_qa, pubmed_qa), number (medcalc_bench), free text (aci_bench) and a two-variant mapping (medhallu).
DATASETS = ["med_qa", "pubmed_qa", "medcalc_bench", "aci_bench", "medhallu"]
MODELS = ["clinreg-test/constant-a", "clinreg-test/constant-b"]
PLUGIN = Path(__file__).parent / "helm_plugin"
LIMIT = "8"  # instances per mapping
# Three test judges, each giving one set of ratings (accuracy, completeness, clarity) to every `A` answer and another
# to every `B`. MedHELM's jury score is the mean of the nine: for A (4+5+3 + 2+3+4 + 5+4+5) / 9 = 35 / 9, for B
# (3+3+3 + 5+5+5 + 4+4+4) / 9 = 36 / 9. B ranks first; without judge-2, who favours B most, A does (A 26/6, B 21/6).
JUDGES = {"judge-1": {"A": (4, 5, 3), "B": (3, 3, 3)}, "judge-2": {"A": (2, 3, 4), "B": (5, 5, 5)},
          "judge-3": {"A": (5, 4, 5), "B": (4, 4, 4)}}
JURY_MEAN = {"clinreg-test/constant-a": 35 / 9, "clinreg-test/constant-b": 36 / 9}


def _rating(scores: tuple[int, int, int]) -> str:
    return json.dumps({axis: {"score": v, "explanation": "test"}
                       for axis, v in zip(("accuracy", "completeness", "clarity"), scores)})


def _model_files() -> dict[str, str]:
    """Two constant-answer test models (A and B). HELM's simple/model1 would do, but its 2048-token window makes
    HELM cut the long clinical prompts, and its tokenizer makes that cut take minutes."""
    deployments, metadata = ["model_deployments:"], ["models:"]
    clients = {model: ("ConstantClient", {"answer": model[-1].upper()}) for model in MODELS}
    clients.update({f"clinreg-test/{judge}": ("JudgeClient", {"replies": {a: _rating(s) for a, s in by_answer.items()}})
                    for judge, by_answer in JUDGES.items()})
    for model, (client, args) in clients.items():
        deployments += [f"  - name: {model}", f"    model_name: {model}", "    tokenizer_name: simple/tokenizer1",
                        "    max_sequence_length: 1000000", "    client_spec:",
                        f'      class_name: "clinreg_test_models.{client}"', f"      args: {json.dumps(args)}"]
        metadata += [f"  - name: {model}", f"    display_name: {json.dumps(model)}",
                     f"    description: {json.dumps('A clinreg test model (' + client + ')')}",
                     "    creator_organization_name: clinreg", "    access: open", "    release_date: 2026-01-01",
                     "    tags: [TEXT_MODEL_TAG, FULL_FUNCTIONALITY_TEXT_MODEL_TAG]"]
    return {"model_deployments.yaml": "\n".join(deployments) + "\n", "model_metadata.yaml": "\n".join(metadata) + "\n"}


def readme_commands(folder: Path) -> list[str]:
    """The shell commands of the export README's first code block, as a user would copy them."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    block = text.split("```\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def loop(tmp_path_factory, realdata, harness_env):
    need(have("helm"), "crfm-helm is not installed")
    base = tmp_path_factory.mktemp("helm-loop")
    out = base / "export"
    result = invoke(export, ["helm", *DATASETS, "--root", str(REPO), "--data-dir", str(realdata),
                             "--limit", LIMIT, "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    return out, run_readme(out, base / "work", harness_env, MODELS)


@pytest.fixture(scope="module")
def closed_loop(tmp_path_factory, harness_env):
    """Every closed mapping of the registry, from files shaped as distributed, run by HELM on one test model."""
    need(have("helm"), "crfm-helm is not installed")
    base = tmp_path_factory.mktemp("helm-closed")
    out, _ = export_closed("helm", base)
    return out, run_readme(out, base / "work", harness_env, MODELS[:1])


def run_readme(out: Path, work: Path, env: dict[str, str], models: list[str]) -> Path:
    """The export README's helm-run and helm-summarize commands, as written, on `models`; the suite folder."""
    (work / "prod_env").mkdir(parents=True)
    for name, text in _model_files().items():
        (work / "prod_env" / name).write_text(text, encoding="utf-8")
    # The jury's judges, in HELM's judges.yaml format, chosen as the export's README says.
    judges = "judges:\n" + "".join(f"  - {{name: {j}, model: clinreg-test/{j}, model_deployment: clinreg-test/{j}}}\n"
                                   for j in JUDGES)
    (work / "judges.yaml").write_text(judges, encoding="utf-8")
    env = {**env, "PYTHONPATH": str(PLUGIN), "CLINREG_HELM_JUDGES": str(work / "judges.yaml")}
    commands = readme_commands(out)
    assert commands[0].startswith(f"PYTHONPATH={out} helm-run ") and "MODEL" in commands[0]
    for command in commands[:2]:
        argv = shlex.split(command.replace("MODEL", " ".join(models)))
        if argv[0].startswith("PYTHONPATH="):
            env["PYTHONPATH"] = f"{argv.pop(0).split('=', 1)[1]}{os.pathsep}{PLUGIN}"
        if argv[0] == "helm-run":  # our test models' client is a second plugin, with its model files
            argv[argv.index("--plugins") + 1:argv.index("--plugins") + 2] = ["clinreg_helm", "clinreg_test_models"]
            argv += ["--local-path", "prod_env"]
        argv[0] = str(Path(sys.executable).parent / argv[0])
        done = subprocess.run(argv, env=env, cwd=work, capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return work / "benchmark_output" / "runs" / "clinreg"


def _manifest(out: Path) -> dict[str, dict]:
    return {m["mapping"]: m for m in json.loads((out / "manifest.json").read_text())["mappings"]}


def _runs(suite: Path) -> dict[tuple[str, str], Path]:
    runs = {}
    for folder in suite.iterdir():
        spec = folder / "run_spec.json"
        if spec.is_file():
            data = json.loads(spec.read_text())
            mapping = re.search(r"mapping=([^,]+)", data["name"]).group(1)
            runs[(data["adapter_spec"]["model"], mapping)] = folder
    return runs


LETTER = "Answer with the letter of the correct option."


@pytest.mark.parametrize("which", ["loop", "closed_loop"])
def test_every_closed_prompt_holds_one_instruction_and_a_line_break_before_the_options(which, request):
    out, suite = request.getfixturevalue(which)
    manifest = _manifest(out)
    closed = [m for m, entry in manifest.items() if entry["kind"] == "choice"]
    assert closed
    runs = _runs(suite)
    assert {m for _, m in runs} >= set(closed)
    for (_model, mapping), folder in runs.items():
        if mapping not in closed:
            continue
        states = json.loads((folder / "scenario_state.json").read_text())["request_states"]
        assert len(states) == manifest[mapping]["instances"]
        for state in states:
            prompt = state["request"]["prompt"]
            # MedHELM's instructions, once (clinreg's letter instruction where a record gives none, or where
            # MedHELM's adapter is not multiple choice), and no other answer instruction beside them; the record's
            # settings on the request.
            g = manifest[mapping].get("generation") or {}
            said = g["instructions"] if g.get("adapter") == "multiple_choice" and g.get("instructions") else LETTER
            assert prompt.count(said) == 1, prompt[:300]
            assert len(ANSWER_INSTRUCTION.findall(prompt)) == len(ANSWER_INSTRUCTION.findall(said)), prompt[-500:]
            assert "\nA. " in prompt and not re.search(r"[^\n]A\. ", prompt.split("\n\n")[-1]), prompt[-300:]
            request = state["request"]
            # HELM's joint multiple-choice adapter sends one completion and no stop sequence whatever the spec says;
            # the spec's num_outputs becomes top_k_per_token. The other exports send what these requests carry
            # (clinreg.exports.contents.sent_generation).
            assert (request["temperature"], request["max_tokens"], request["stop_sequences"],
                    request["num_completions"], request["top_k_per_token"]) == (
                        g["temperature"], g["max_tokens"], [], 1, g["num_outputs"])


def test_number_prompts_hold_their_instruction_once(loop):
    out, suite = loop
    for (_model, mapping), folder in _runs(suite).items():
        if _manifest(out)[mapping]["kind"] != "number":
            continue
        for state in json.loads((folder / "scenario_state.json").read_text())["request_states"]:
            assert state["request"]["prompt"].count("Give only the value, without units or explanation.") == 1


def test_import_of_the_run_folders_matches_helm_scores_and_counts(loop, tmp_path):
    out, suite = loop
    manifest = _manifest(out)
    target = tmp_path / "results.json"
    result = invoke(main, ["results", "import", str(suite), "--root", str(REPO), "-o", str(target),
                           "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["data"]["refused"] == []
    scores = {(s["model"], s["mapping"]): s for s in json.loads(target.read_text())["scores"]}
    runs = _runs(suite)
    assert set(runs) == set(scores)
    for (model, mapping), score in scores.items():
        folder = runs[(model, mapping)]
        metric = "exact_match" if manifest[mapping]["kind"] == "choice" else manifest[mapping]["metric"]
        if manifest[mapping]["scoring"]:  # HELM's own jury metric over the test judges' nine ratings
            assert score["value"] == pytest.approx(JURY_MEAN[model])
            assert score["jury"] == {"rubric": "helm.benchmark.annotation.aci_bench_annotator.ACIBenchAnnotator",
                                     "judges": {j: f"clinreg-test/{j}" for j in JUDGES}}
        stats = json.loads((folder / "stats.json").read_text())
        helm_mean = next(s["mean"] for s in stats if s["name"] == {"name": metric, "split": "test"})
        helm_n = next(s["mean"] for s in stats if s["name"] == {"name": "num_instances", "split": "test"})
        assert score["value"] == pytest.approx(helm_mean)
        assert score["n_instances"] == helm_n == manifest[mapping]["instances"]
    assert any(s["value"] > 0 for s in scores.values()), "a constant model gets some closed answers right"


def test_helms_own_leaderboard_imports_to_the_same_scores(loop, tmp_path):
    out, suite = loop
    board = suite / "groups" / "clinreg.json"
    from_runs = invoke(main, ["results", "import", str(suite), "--root", str(REPO)])
    from_board = invoke(main, ["results", "import", str(board), "--root", str(REPO)])
    assert from_board.exit_code == 0, from_board.output
    runs = {(s["mapping"], round(s["value"], 9)) for s in json.loads(from_runs.stdout)["scores"]}
    shown = {(s["mapping"], round(s["value"], 9)) for s in json.loads(from_board.stdout)["scores"]}
    assert shown == runs


def test_the_leaderboard_ranks_both_models_with_real_intervals(loop, tmp_path):
    _, suite = loop
    out = loop[0]
    result = invoke(main, ["leaderboard", str(suite), "--root", str(REPO), "--by", "subcategory",
                           "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["data"]["rows"]
    assert {r["model"] for r in rows} == set(MODELS)
    for row in rows:
        low, high = row["macro_interval"]["low"], row["macro_interval"]["high"]
        assert low <= row["macro_average"] <= high
    # The test judges give every response the same nine ratings, so a row on the jury benchmark alone has no
    # spread; every row with a closed or number benchmark has a real interval.
    juried = {m for m, e in _manifest(out).items() if e["scoring"]}
    spread = [r for r in rows if any(k.split("/")[1] not in juried for k in r["benchmarks"])]
    assert spread and all(r["macro_interval"]["high"] > r["macro_interval"]["low"] for r in spread)


def test_the_jury_run_gives_each_judges_ratings_and_a_leave_one_judge_out_ranking(loop, tmp_path):
    """`clinreg results ratings` on HELM's own run folders, then `clinreg jury agreement` on what it wrote: every
    rating HELM's annotator kept, by judge, and how the ranking of the two models moves with each judge left out."""
    out, suite = loop
    juried = {m for m, e in _manifest(out).items() if e["scoring"]}
    runs = [folder for (model, mapping), folder in _runs(suite).items() if mapping in juried]
    assert len(runs) == len(MODELS)
    ratings = tmp_path / "ratings.csv"
    # The whole suite folder, as HELM left it: its other runs and helm-summarize's files hold no jury ratings.
    done = invoke(main, ["results", "ratings", str(suite), "-o", str(ratings), "--format", "json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)["data"]
    assert sorted(r["file"] for r in summary["runs"]) == sorted(map(str, runs))
    assert summary["raters"] == sorted(JUDGES) and summary["models"] == MODELS
    n = int(LIMIT)
    assert summary["ratings"] == len(MODELS) * n * len(JUDGES) * 3 and summary["problems"] == []
    # Each row is a rating HELM's annotator stored for that judge and answer.
    rows = list(csv.DictReader(ratings.open(encoding="utf-8")))
    axes = ("accuracy", "completeness", "clarity")
    for row in rows:
        answer = row["model"][-1].upper()
        assert float(row["score"]) == JUDGES[row["rater"]][answer][axes.index(row["axis"])]
        assert row["judge_model"] == f"clinreg-test/{row['rater']}"
    done = invoke(main, ["jury", "agreement", str(ratings), "--format", "json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)["data"]
    assert data["judges"] == sorted(JUDGES) and data["clinicians"] == [] and data["axes"] == sorted(axes)
    loo = data["leave_one_judge_out"]
    assert loo["models"] == len(MODELS)
    assert loo["scores"] == pytest.approx(JURY_MEAN)  # the ratings' means are HELM's jury scores here
    taus = {j["judge"]: j["kendall_tau"] for j in loo["left_out"]}
    assert taus == {"judge-1": 1.0, "judge-2": -1.0, "judge-3": 1.0}
