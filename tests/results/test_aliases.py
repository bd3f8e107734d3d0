"""One model, one row: the shipped alias table (and --aliases FILE) merges each harness's name for a model."""

from __future__ import annotations

import json

import pytest

from results.helpers import DATA, ROOT, invoke, lm_eval_results, write


def gpt4o_lm_eval(tmp_path, task="clinreg_med_qa", value=0.83):
    """lm-eval's results for gpt-4o-2024-05-13 through its `openai-chat-completions` model type."""
    results = lm_eval_results(task, value)
    results["config"].update({"model": "openai-chat-completions", "model_args": "model=gpt-4o-2024-05-13"})
    return write(tmp_path / "results_gpt4o.json", json.dumps(results))


def board(*args):
    result = invoke("leaderboard", "--root", ROOT, *map(str, args), "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["data"], result.stderr


@pytest.mark.parametrize("release", ["medhelm-2025-05-04", "medhelm-2025-07-31"])
def test_lm_eval_and_the_published_results_give_gpt4o_one_row(tmp_path, release):
    data, stderr = board(gpt4o_lm_eval(tmp_path), "--with", release)
    gpt = [r for r in data["rows"] if "gpt-4o-2024-05-13" in r["model"] or "GPT-4o (2024" in r["model"]]
    assert [r["model"] for r in gpt] == ["openai/gpt-4o-2024-05-13"]
    assert data["aliases"] == [{"model": "openai/gpt-4o-2024-05-13", "names": [
        {"kind": "lm-eval", "name": "openai-chat-completions:gpt-4o-2024-05-13",
         "files": [str(tmp_path / "results_gpt4o.json")]},
        {"kind": "published", "name": "GPT-4o (2024-05-13)", "files": [release]}]}]
    medqa = next(b for b in data["benchmarks"] if b["key"] == "med_qa/med_qa")
    (own,) = [s for s in medqa["scores"] if s["model"] == "openai/gpt-4o-2024-05-13"]
    assert own["value"] == 0.83  # the run given stands for the model
    if release == "medhelm-2025-07-31":  # the release has MedQA too: its score there is left out, and said so
        assert "CLR967" in stderr and "medhelm-2025-07-31's score(s) there are left out" in stderr
        assert own["provenance"]["harness"] == "lm-eval"
        assert own["provenance"]["model_name"] == "gpt-4o-2024-05-13"
    other = next(b for b in data["benchmarks"] if b["key"] == "pubmed_qa/pubmed_qa")
    (published,) = [s for s in other["scores"] if s["model"] == "openai/gpt-4o-2024-05-13"]
    assert published["provenance"]["published"]["id"] == release  # each score keeps its own provenance


def test_names_the_table_does_not_list_are_never_merged(tmp_path):
    results = lm_eval_results("clinreg_med_qa", 0.5)
    results["config"].update({"model": "openai-chat-completions", "model_args": "model=gpt-4o"})  # no date: unlisted
    data, _ = board(write(tmp_path / "r.json", json.dumps(results)), "--with", "medhelm-2025-07-31")
    assert "gpt-4o" in data["models"] and "GPT-4o (2024-05-13)" in data["models"]
    assert "aliases" not in data


def test_a_board_of_one_source_keeps_its_names():
    data, _ = board("--with", "medhelm-2025-07-31", DATA / "inspect_mockllm_med_qa.json")
    assert "GPT-4o (2024-05-13)" in data["models"] and "aliases" not in data


def test_aliases_file_extends_the_table(tmp_path):
    results = lm_eval_results("clinreg_med_qa", 0.5)
    results["config"].update({"model": "openai-chat-completions", "model_args": "model=gpt-4o"})
    extra = write(tmp_path / "aliases.json", json.dumps({"clinreg_aliases": 1, "models": [
        {"id": "openai/gpt-4o-2024-05-13", "lm-eval": ["openai-chat-completions:gpt-4o"]}]}))
    data, _ = board(write(tmp_path / "r.json", json.dumps(results)), "--with", "medhelm-2025-05-04",
                    "--aliases", extra)
    assert "openai/gpt-4o-2024-05-13" in data["models"] and "gpt-4o" not in data["models"]


def test_an_alias_file_giving_one_name_two_ids_is_a_usage_error(tmp_path):
    extra = write(tmp_path / "aliases.json", json.dumps({"clinreg_aliases": 1, "models": [
        {"id": "someone/else", "published": ["GPT-4o (2024-05-13)"]}]}))
    result = invoke("leaderboard", "--root", ROOT, str(DATA / "inspect_mockllm_med_qa.json"), "--aliases", str(extra))
    assert result.exit_code == 2
    assert "GPT-4o (2024-05-13)" in result.output and "someone/else" in result.output


def test_inspect_and_helm_names_merge(tmp_path):
    """An Inspect log of openai/gpt-4o-2024-05-13 (the recorded log, its model renamed) beside the published board."""
    log = json.loads((DATA / "inspect_mockllm_med_qa.json").read_text(encoding="utf-8"))
    log["eval"]["model"] = "openai/gpt-4o-2024-05-13"
    data, _ = board(write(tmp_path / "log.json", json.dumps(log)), "--with", "medhelm-2025-05-04")
    assert [m for m in data["models"] if "gpt-4o-2024" in m.casefold()
            or "GPT-4o (" in m] == ["openai/gpt-4o-2024-05-13"]
    assert data["aliases"][0]["names"][0]["kind"] == "inspect"
