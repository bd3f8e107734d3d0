"""Instance schema 2 through `clinreg build`: provenance and canary, parquet shards, and a saved DatasetDict."""

from __future__ import annotations

import json

import pytest
from clirunner import invoke

from record_fixtures import hub_folder, record_dict, write_root
from clinreg.cli.build import build
from clinreg.instances.stamp import CANARY_SENTENCE, canary_guid
from clinreg.sources.location import content_hash

MCQ = {
    "input_template": "{{ question }}\nA. {{ opa }}\nB. {{ opb }}",
    "choices": {"columns": ["opa", "opb"]},
    "label": {"encoding": "index", "column": "cop", "base": 0, "count": 2, "positive": "B"},
}


def run(*args):
    return invoke(build, [str(a) for a in args])


@pytest.fixture
def setup(tmp_path):
    data = tmp_path / "data"
    rows = [{"question": f"q{i}", "opa": f"x{i}", "opb": f"y{i}", "cop": i % 2} for i in range(25)]
    hub_folder(data, "owner/fixture", {"test": rows[:20], "validation": rows[20:]})
    root = write_root(tmp_path, [record_dict(MCQ, splits=["test", "validation"], version="2.1.0")])
    return root, data


def test_provenance_names_record_source_and_canary(setup):
    root, data = setup
    result = run("fixture", "--root", root, "--data-dir", data, "-q")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    prov = rows[0]["provenance"]
    assert prov["record"] == "fixture" and prov["record_version"] == "2.1.0" and prov["instance_schema"] == 2
    assert prov["source"] == {"kind": "mirror", "repo": "owner/fixture", "revision": None,
                              "content_sha256": content_hash(data / "owner__fixture")}
    from clinreg import __version__

    assert prov["clinreg_version"] == __version__
    # The fixture root has no taxonomy file: the canary still derives from a fixed name, and is the same everywhere.
    assert prov["canary"] == f"{CANARY_SENTENCE} canary GUID {canary_guid('unnamed')}"
    assert all(r["provenance"] == prov for r in rows)


def test_canary_is_stable_and_differs_per_registry():
    assert canary_guid("medhelm") == canary_guid("medhelm") != canary_guid("other")
    import uuid

    assert uuid.UUID(canary_guid("medhelm")).version == 5


def test_stem_leaves_out_the_option_lines(setup):
    root, data = setup
    row = json.loads(run("fixture", "--root", root, "--data-dir", data, "-q", "--limit", "1").stdout.splitlines()[0])
    # The question alone in `input`; the plain prompt lists the options after a blank line, then asks for a letter.
    assert row["input"] in {f"q{i}" for i in range(25)}, row["input"]
    assert row["prompt"] == (f"{row['input']}\n\nA. {row['choices'][0]}\nB. {row['choices'][1]}\n\n"
                             "Answer with the letter of the correct option (A or B).")


def test_parquet_shards_are_bounded_and_read_as_one_dataset(setup, tmp_path):
    import pyarrow.dataset as ds

    root, data = setup
    out = tmp_path / "shards"
    assert run("fixture", "--root", root, "--data-dir", data, "--format", "parquet", "--shard-rows", 7, "-o",
               out).exit_code == 0
    files = sorted(p.name for p in out.iterdir())
    assert files == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet", "part-00003.parquet"]
    dataset = ds.dataset(out, format="parquet")
    assert [f.metadata.num_rows for f in dataset.get_fragments()] == [7, 7, 7, 4]
    table = dataset.to_table()
    lines = [json.loads(line) for line in run("fixture", "--root", root, "--data-dir", data, "-q").stdout.splitlines()]
    assert table.column("id").to_pylist() == [r["id"] for r in lines]
    assert table.column("gold").to_pylist() == [r["gold"] for r in lines]
    again = run("fixture", "--root", root, "--data-dir", data, "--format", "parquet", "-o", out)
    assert again.exit_code == 2 and "--force" in again.stderr


def test_hf_has_one_split_per_source_split_and_the_record_info(setup, tmp_path):
    import datasets

    root, data = setup
    out = tmp_path / "hf"
    assert run("fixture", "--root", root, "--data-dir", data, "--format", "hf", "-o", out, "-q").exit_code == 0
    saved = datasets.load_from_disk(str(out))
    assert sorted(saved) == ["test", "validation"] and (saved["test"].num_rows, saved["validation"].num_rows) == (20, 5)
    info = saved["test"].info
    assert info.license == "MIT" and info.citation == "A paper" and info.description == "A test fixture."
    assert saved["validation"][0]["id"] == "fixture/fixture/validation/0"
    assert saved["validation"][0]["gold"]["letter"] == "A"
