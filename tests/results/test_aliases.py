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
def test_your_gpt4o_run_stands_beside_the_published_row_never_merged(tmp_path, release):
    """Aliases join the names of one model; your run of a model the release has is a row of its own, and the
    release's row keeps every one of its scores and its own mean win rate."""
    data, stderr = board(gpt4o_lm_eval(tmp_path), "--with", release)
    gpt = {r["model"]: r for r in data["rows"] if "gpt-4o-2024-05-13" in r["model"] or "GPT-4o (2024" in r["model"]}
    assert sorted(gpt) == ["openai/gpt-4o-2024-05-13", "openai/gpt-4o-2024-05-13 (yours)"]
    assert gpt["openai/gpt-4o-2024-05-13 (yours)"]["source"]["kind"] == "yours"
    published = gpt["openai/gpt-4o-2024-05-13"]
    assert published["source"]["id"] == release
    assert published["mean_win_rate"] == published["reported_mean_win_rate"]
    assert data["aliases"] == [{"model": "openai/gpt-4o-2024-05-13", "names": [
        {"kind": "lm-eval", "name": "openai-chat-completions:gpt-4o-2024-05-13",
         "files": [str(tmp_path / "results_gpt4o.json")]},
        {"kind": "published", "name": "GPT-4o (2024-05-13)", "files": [release]}]}]
    medqa = next(b for b in data["benchmarks"] if b["key"] == "med_qa/med_qa")
    own = {s["model"]: s for s in medqa["scores"] if "gpt-4o-2024-05-13" in s["model"]}
    assert own["openai/gpt-4o-2024-05-13 (yours)"]["value"] == 0.83
    assert own["openai/gpt-4o-2024-05-13 (yours)"]["origin"] == "yours"
    assert "left out" not in stderr
    if release == "medhelm-2025-07-31":  # the release has MedQA too: its score stays in its row
        assert own["openai/gpt-4o-2024-05-13"]["value"] == 0.877
        assert own["openai/gpt-4o-2024-05-13"]["origin"] == release
    # the terminal table reads the same: two rows, each with its source
    table = invoke("leaderboard", "--root", ROOT, str(tmp_path / "results_gpt4o.json"), "--with", release)
    lines = [line for line in table.output.splitlines() if "openai/gpt-4o-2024-05-13" in line]
    assert any("(yours)" in line and " yours " in line for line in lines)
    assert any("(yours)" not in line and release in line for line in lines)


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
    assert [m for m in data["models"] if "gpt-4o-2024" in m.casefold() or "GPT-4o (" in m] == [
        "openai/gpt-4o-2024-05-13", "openai/gpt-4o-2024-05-13 (yours)"]
    assert data["aliases"][0]["names"][0]["kind"] == "inspect"
