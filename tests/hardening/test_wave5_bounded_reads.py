"""Issue 50, class 4: reads without a bound. `results ratings` reads an Inspect log a sample at a time and a HELM
`scenario_state.json` a request state at a time; `jury agreement` holds ratings in a compact table and accumulates
its statistics from sums; the lock file a command is handed is read only when it is a regular file under its cap.
Memory is measured with tracemalloc on generated inputs, against generous bounds: the old readers took ten times
the file (the parsed document whole), or about a kilobyte a rating."""

from __future__ import annotations

import json
import os
import random
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from clirunner import clinreg

from clinreg.core.paths import embedded_root


def _peak(work) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = work()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------------------------------------ jury agreement


RATERS = (("gpt", "judge"), ("claude", "judge"), ("llama", "judge"), ("ana", "clinician"))


def test_jury_agreement_holds_ratings_compactly(tmp_path):
    from clinreg.scoring.jury import jury_agreement
    from clinreg.scoring.ratings import read_ratings

    rng = random.Random(4)
    path = tmp_path / "ratings.csv"
    n = 0
    with path.open("w", encoding="utf-8") as handle:
        handle.write("instance_id,rater,rater_kind,axis,score,model,benchmark\n")
        for model in ("model-a", "model-b"):
            for i in range(3000):
                for axis in ("accuracy", "completeness"):
                    for rater, kind in RATERS:
                        handle.write(f"aci_bench/aci_bench/test/{i},{rater},{kind},{axis},{rng.randint(1, 5)},"
                                     f"{model},aci_bench\n")
                        n += 1
    size = path.stat().st_size
    data, peak = _peak(lambda: jury_agreement(read_ratings(path)))
    assert data["instances"] == 6000 and data["clinicians"] == ["ana"]
    assert data["leave_one_judge_out"]["models"] == 2
    # 48,000 ratings: a few arrays of numbers and each target once. The whole-file reader held the text, a dict per
    # row and a Rating per rating (over a kilobyte each); here about a tenth of that.
    assert peak < 150 * n + size // 4, (peak, n, size)  # measured: about 100 bytes a rating


# ------------------------------------------------------------------------------------------------ HELM and Inspect


def _helm_run(folder: Path, states: int, padding: int) -> Path:
    folder.mkdir(parents=True)
    (folder / "run_spec.json").write_text(json.dumps({
        "name": "aci_bench:model=m/x", "adapter_spec": {"model": "m/x"},
        "annotators": [{"class_name": "jury", "args": {"annotator_models": {
            "gpt": {"model_name": "openai/gpt"}, "llama": {"model_name": "meta/llama"}}}}]}), encoding="utf-8")
    with (folder / "scenario_state.json").open("w", encoding="utf-8") as handle:
        handle.write('{"adapter_spec": {"model": "m/x"}, "request_states": [')
        for i in range(states):
            state = {"instance": {"id": f"id{i}", "input": {"text": "x" * padding}},
                     "result": {"completions": [{"text": "y" * padding}]},
                     "annotations": {"aci_bench": {"gpt": {"accuracy": {"score": 1 + i % 5, "explanation": "e"}},
                                                   "llama": {"accuracy": {"score": 1 + (i + 1) % 5}}}}}
            handle.write(("," if i else "") + json.dumps(state))
        handle.write('], "annotator_specs": []}')
    return folder


def test_a_scenario_state_is_read_a_request_state_at_a_time(tmp_path):
    from clinreg.results.ratings import collect_ratings

    run = _helm_run(tmp_path / "run", states=2000, padding=6000)
    size = (run / "scenario_state.json").stat().st_size
    found, peak = _peak(lambda: collect_ratings([run]))
    assert found.problems == [] and len(found.rows) == 4000 and found.runs[0]["instances"] == 2000
    assert peak < size // 3, (peak, size)  # json.loads of the file alone takes more than the file


def _inspect_sample(i: int, padding: int) -> dict:
    return {"id": i, "epoch": 1, "input": "x" * padding, "output": {"completion": "y" * padding},
            "scores": {"jury": {"value": 3.0, "metadata": {
                "ratings": {"gpt": {"accuracy": 1 + i % 5}, "llama": {"accuracy": 1 + (i + 2) % 5}},
                "jury": {"judges": {"gpt": "openai/gpt", "llama": "meta/llama"}}}}}}


HEADER = {"version": 2, "status": "success", "eval": {"task": "aci_bench", "model": "m/x"}}


def test_an_inspect_eval_archive_is_read_a_sample_at_a_time(tmp_path):
    from clinreg.results.ratings import collect_ratings

    path = tmp_path / "log.eval"
    unpacked = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(HEADER))
        for i in range(1500):
            text = json.dumps(_inspect_sample(i, 6000))
            unpacked += len(text)
            archive.writestr(f"samples/{i}_epoch_1.json", text)
    found, peak = _peak(lambda: collect_ratings([path]))
    assert found.problems == [] and len(found.rows) == 3000
    assert peak < unpacked // 3, (peak, unpacked)


def _archive(path: Path, samples: int, padding: int) -> int:
    """An Inspect-shaped .eval archive with no summaries.json (so that its samples are read); its unpacked size."""
    unpacked = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({**HEADER, "results": {"scores": [
            {"name": "jury", "metrics": {"jury_mean": {"name": "jury_mean", "value": 3.0}}}]}}))
        for i in range(samples):
            text = json.dumps(_inspect_sample(i, padding))
            unpacked += len(text)
            archive.writestr(f"samples/{i}_epoch_1.json", text)
    return unpacked


def test_results_import_keeps_only_what_it_reads_of_each_sample(tmp_path):
    def imported(path: Path) -> int:
        out, peak = _peak(lambda: clinreg("results", "import", path, "--root", embedded_root(), "-o",
                                          path.with_suffix(".json"), "--format", "json"))
        assert "Traceback" not in out.output and out.exit_code in (0, 1), out.output
        return peak

    _archive(tmp_path / "small.eval", 10, 6000)
    unpacked = _archive(tmp_path / "big.eval", 1500, 6000)
    imported(tmp_path / "small.eval")  # the registry and the modules, loaded once
    base = imported(tmp_path / "small.eval")
    assert imported(tmp_path / "big.eval") - base < unpacked // 4, unpacked


@pytest.mark.parametrize("samples_first", [False, True])
def test_an_inspect_json_log_is_read_a_sample_at_a_time(tmp_path, samples_first):
    from clinreg.results.ratings import collect_ratings

    path = tmp_path / "log.json"
    with path.open("w", encoding="utf-8") as handle:  # the header may come before or after the samples
        head = json.dumps(HEADER)[1:-1]
        handle.write("{" + ("" if samples_first else head + ", ") + '"samples": [')
        for i in range(1500):
            handle.write(("," if i else "") + json.dumps(_inspect_sample(i, 6000)))
        handle.write("]" + (", " + head if samples_first else "") + "}")
    size = path.stat().st_size
    found, peak = _peak(lambda: collect_ratings([path]))
    assert found.problems == [] and len(found.rows) == 3000 and found.runs[0]["model"] == "m/x"
    assert {r["benchmark"] for r in found.rows} == {"aci_bench"}
    assert peak < size // 3, (peak, size)


def test_a_failed_inspect_log_adds_no_ratings_and_no_problems_of_its_samples(tmp_path):
    from clinreg.results.ratings import collect_ratings

    path = tmp_path / "log.json"
    sample = _inspect_sample(0, 10)
    sample["scores"]["jury"]["metadata"]["ratings"]["gpt"]["accuracy"] = "high"
    path.write_text(json.dumps({"samples": [sample], **HEADER, "status": "error"}), encoding="utf-8")
    found = collect_ratings([path])
    assert found.rows == [] and len(found.problems) == 1 and "not success" in found.problems[0]


# ------------------------------------------------------------------------------------------------ the streaming reader


def test_the_streaming_reader_reads_what_json_loads_reads(tmp_path, monkeypatch):
    from clinreg.results import jsonstream

    monkeypatch.setattr(jsonstream, "CHUNK", 3)  # every token split across reads, multi-byte characters too
    rng = random.Random(50)
    for n in range(30):
        items = [rng.choice([12345.678e-3, -0.0, 10 ** 30, True, None, "é\u2028\"\\", {"a": [1, {"b": "ü"}]},
                             [], {}, "𝄞" * 3]) for _ in range(rng.randint(0, 6))]
        doc = {"before": {"x": 1}, "items": items, "after": "z"}
        path = tmp_path / f"{n}.json"
        path.write_text(json.dumps(doc, ensure_ascii=n % 2 == 0, indent=n % 3 or None), encoding="utf-8")
        got = list(jsonstream.stream_members(path, "items", 10 ** 6, 10 ** 6))
        assert [v for k, v, element in got if element] == items
        assert {k: v for k, v, element in got if not element and k != "items"} == {"before": {"x": 1}, "after": "z"}


@pytest.mark.parametrize("text, expected", [
    ('{"items": [1, 2', "not valid JSON"),
    ('{"items": [1, 2]} x', "extra data"),
    ('{"items": [1 2]}', "expected ',' or ']'"),
    ('{"items": [1], "items": [2]}', "duplicate key"),
    ('{"items": [NaN]}', "not a number JSON allows"),
    ('[1, 2]', "not a JSON object"),
    ('{"items": ["' + "x" * 5000 + '"]}', "over 4,000 characters"),
])
def test_the_streaming_reader_refuses_with_a_place(tmp_path, text, expected):
    from clinreg.results.jsonstream import stream_members
    from clinreg.results.strictinput import Unreadable

    path = tmp_path / "doc.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(Unreadable) as caught:
        list(stream_members(path, "items", 10 ** 6, 4000))
    assert expected in str(caught.value) and caught.value.line >= 1


def test_the_streaming_reader_stops_at_its_byte_limit(tmp_path):
    from clinreg.results.jsonstream import stream_members
    from clinreg.results.strictinput import Unreadable

    path = tmp_path / "doc.json"
    path.write_text('{"items": [' + ",".join(['"' + "x" * 1000 + '"'] * 3000) + "]}", encoding="utf-8")
    with pytest.raises(Unreadable, match="larger than 2 MiB"):
        list(stream_members(path, "items", 2 * 1024 * 1024, 4096))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_never_opened_as_a_scenario_state(tmp_path):
    from clinreg.results.ratings import collect_ratings

    run = _helm_run(tmp_path / "run", states=1, padding=1)
    (run / "scenario_state.json").unlink()
    os.mkfifo(run / "scenario_state.json")
    found = collect_ratings([run])
    assert found.rows == [] and "not a regular file" in found.problems[0]


# ------------------------------------------------------------------------------------------------ the lock file


def test_a_lock_over_its_cap_or_not_a_regular_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from clinreg.instances import lock

    big = tmp_path / "big.json"
    big.write_text(json.dumps({"mappings": {}, "pad": "x" * 5000}), encoding="utf-8")
    monkeypatch.setattr(lock, "MAX_LOCK_BYTES", 4096)
    with pytest.raises(lock.LockUnreadable, match="larger than 4,096 bytes"):
        lock.read_lock(big)
    out = clinreg("export", "croissant", "--root", embedded_root(), "--lock", big, "-o", tmp_path / "out")
    assert out.exit_code == 2 and "not a readable lock file" in out.output and "larger than 4,096 bytes" in out.output
    assert not (tmp_path / "out").exists()
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.json"
        os.mkfifo(fifo)
        out = clinreg("export", "croissant", "--root", embedded_root(), "--lock", fifo, "-o", tmp_path / "out2")
        assert out.exit_code == 2 and "not a regular file" in out.output
