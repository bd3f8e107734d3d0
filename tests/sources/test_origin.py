"""Source resolution and cache hygiene: never stale or foreign rows, fast offline failure, private data needs a
folder."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from record_fixtures import build, hub_folder, record
from clinreg.core.builderrors import SourceUnavailable
from clinreg.sources.location import content_hash
from clinreg.sources.mirror import folder_name
from clinreg.sources.origin import locate

YES_NO = {"encoding": "string_set", "column": "answer", "map": {"yes": "A", "no": "B"}}


def _rows(*questions):
    return [{"question": q, "answer": "yes"} for q in questions]


def test_rewritten_file_is_not_served_stale(tmp_path):
    folder = hub_folder(tmp_path, "owner/fixture", {"test": _rows("first")}, fmt="jsonl")
    rec = record({"label": YES_NO})
    assert [i.input for i in build(rec, tmp_path)[0]] == ["first"]
    data = folder / "data" / "test.jsonl"
    stat = data.stat()
    data.write_text(json.dumps({"question": "other", "answer": "yes"}) + "\n")  # same size as before
    os.utime(data, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same mtime: only the bytes differ
    assert [i.input for i in build(rec, tmp_path)[0]] == ["other"]


def test_two_folders_with_the_same_name_do_not_share_rows(tmp_path):
    rec = record({"label": YES_NO})
    hub_folder(tmp_path / "one", "owner/fixture", {"test": _rows("from one")}, fmt="jsonl")
    hub_folder(tmp_path / "two", "owner/fixture", {"test": _rows("from two")}, fmt="jsonl")
    assert [i.input for i in build(rec, tmp_path / "one")[0]] == ["from one"]
    assert [i.input for i in build(rec, tmp_path / "two")[0]] == ["from two"]


def test_build_leaves_no_cache_behind(tmp_path, monkeypatch):
    import tempfile

    # A temp folder of this test's own, so that other processes' builds cannot change what it sees.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    hub_folder(tmp_path / "data", "owner/fixture", {"test": _rows("q")})
    seen = []
    real_mkdtemp = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: seen.append(real_mkdtemp(*a, **k)) or seen[-1])
    build(record({"label": YES_NO}), tmp_path / "data")
    assert any(Path(p).name.startswith("clinreg-cache-") for p in seen)  # the build did make its cache here
    assert list(scratch.glob("clinreg-cache-*")) == []


def test_offline_hub_fails_fast_with_one_line(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    asked = []
    monkeypatch.setattr(socket.socket, "connect", lambda *a: asked.append(a))
    with pytest.raises(SourceUnavailable) as err:
        locate(record({"label": YES_NO}), None)
    assert asked == []  # fast because it asks nobody
    message = str(err.value)
    assert "\n" not in message and "fixture" in message and "--data-dir" in message and "owner__fixture" in message


def test_private_and_local_records_need_a_data_dir(tmp_path):
    private = record({"label": YES_NO}, access={"tier": "private", "instructions": "ask"})
    with pytest.raises(SourceUnavailable, match="private.*--data-dir"):
        locate(private, None)
    local = record({"label": YES_NO}, source={"type": "local", "description": "held by a hospital"})
    assert folder_name(local) == "fixture"
    with pytest.raises(SourceUnavailable, match="private"):
        locate(local, tmp_path)
    hub_folder(tmp_path, "fixture", {"test": _rows("q")})
    assert locate(local, tmp_path).folder == (tmp_path / "fixture").resolve()


def test_github_source_reads_its_mirror_folder(tmp_path):
    rec = record({"label": YES_NO}, source={"type": "github", "repo": "someone/repo", "paths": ["x.json"],
                                            "splits": ["test"]})
    with pytest.raises(SourceUnavailable, match="someone__repo"):
        locate(rec, None)
    hub_folder(tmp_path, "someone/repo", {"test": _rows("q")})
    assert [i.input for i in build(rec, tmp_path)[0]] == ["q"]


def test_content_hash_follows_bytes(tmp_path):
    folder = hub_folder(tmp_path, "owner/fixture", {"test": _rows("q")}, fmt="jsonl")
    first = content_hash(folder)
    (folder / ".cache").mkdir()
    (folder / ".cache" / "junk").write_text("ignored")
    assert content_hash(folder) == first
    (folder / "data" / "test.jsonl").write_text(json.dumps({"question": "r", "answer": "yes"}) + "\n")
    assert content_hash(folder) != first


def test_cli_modules_do_not_import_the_data_stack():
    code = (
        "import sys, clinreg.cli.main, clinreg.cli.build, clinreg.sources, clinreg.instances, clinreg.exports, "
        "clinreg.instances.schema;"
        "heavy = [m for m in ('datasets', 'pyarrow', 'pandas') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_gated_hub_dataset_message_never_shows_the_token(monkeypatch):
    import huggingface_hub
    from huggingface_hub.errors import GatedRepoError

    from clinreg.sources import hub

    def gated(self, *args, **kwargs):
        err = GatedRepoError.__new__(GatedRepoError)
        Exception.__init__(err, "403 gated, token hf_secret_value")
        raise err

    monkeypatch.setenv("HF_TOKEN", "hf_secret_value")
    monkeypatch.setattr(hub, "hub_offline_reason", lambda: None)
    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", gated)
    with pytest.raises(SourceUnavailable) as err:
        locate(record({"label": YES_NO}), None)
    assert "gated" in str(err.value) and "hf_secret_value" not in str(err.value) and "--data-dir" in str(err.value)


def test_hub_transport_error_is_one_line(monkeypatch):
    import huggingface_hub

    from clinreg.sources import hub

    def broken(self, *args, **kwargs):
        raise RuntimeError("connection reset\nwith a second line")

    monkeypatch.setattr(hub, "hub_offline_reason", lambda: None)
    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", broken)
    with pytest.raises(SourceUnavailable) as err:
        locate(record({"label": YES_NO}), None)
    assert "\n" not in str(err.value) and "owner/fixture" in str(err.value)


def test_hub_revision_is_resolved(monkeypatch):
    import huggingface_hub

    from clinreg.sources import hub

    class Info:
        sha = "a" * 40

    monkeypatch.setattr(hub, "hub_offline_reason", lambda: None)
    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", lambda self, repo, revision=None, timeout=None: Info())
    location = locate(record({"label": YES_NO}), None)
    assert location.describe() == {"kind": "hub", "repo": "owner/fixture", "revision": "a" * 40}


def test_an_invalid_nested_arrow_column_is_a_located_error_not_an_arrow_crash(monkeypatch):
    """datasets < 5.2 reads a JSON-lines list such as [null, 0] into a list array whose offsets run past its
    values (regressions/builder/crash-jsonl-list-of-nulls.json replays that where those versions run). Here
    the bad array is built by hand, so the check is tested with any datasets."""
    import datasets
    import pyarrow as pa

    from clinreg.sources.splits import _check_nested

    offsets = pa.array([0, 2, 1], pa.int32()).buffers()[1]
    bad = pa.Array.from_buffers(pa.list_(pa.int64()), 2, [None, offsets], children=[pa.array([0, 1])])
    table = pa.table({"q": ["a", "b"], "verdict": bad})
    _check_nested(pa.table({"q": ["a"], "ok": pa.array([[None, 0]])}), "test", "rec")  # a valid list passes
    monkeypatch.setattr(datasets, "__version__", "3.6.0")
    with pytest.raises(SourceUnavailable, match=r"^rec: split 'test': column 'verdict' was read into an invalid Arrow "
                                                r"array \(.*\) by datasets 3\.6\.0; datasets 5\.2 or later reads it "
                                                r"correctly$"):
        _check_nested(table, "test", "rec")
    monkeypatch.setattr(datasets, "__version__", "5.2.0")
    with pytest.raises(SourceUnavailable, match=r"by datasets 5\.2\.0$"):
        _check_nested(table, "test", "rec")
    struct = pa.StructArray.from_arrays([bad], names=["inner"])  # a bad list inside a struct
    with pytest.raises(SourceUnavailable, match=r"column 'wrapped'"):
        _check_nested(pa.table({"wrapped": struct}), "test", "rec")


def test_a_split_the_mirror_lacks_is_a_split_missing_error_with_its_fields(tmp_path):
    from clinreg.core.builderrors import SplitMissing

    hub_folder(tmp_path, "owner/fixture", {"train": [{"question": "q", "answer": "yes"}]})
    with pytest.raises(SplitMissing) as err:
        build(record({"label": YES_NO}), tmp_path)
    assert (err.value.record, err.value.split, err.value.code) == ("fixture", "test", "CLR902")
    assert not str(err.value).endswith("[CLR902]")  # a class's default code is data, not part of the one line
    assert err.value.reason and err.value.reason in str(err.value)
    assert str(err.value).startswith("fixture: cannot read split 'test' of mirror folder ")


def test_a_config_the_mirror_lacks_points_at_source_config(tmp_path):
    hub_folder(tmp_path, "owner/fixture", {"test": [{"question": "q", "answer": "yes"}]})
    rec = record({"label": YES_NO})
    rec.source.config = "other"
    with pytest.raises(SourceUnavailable) as err:
        build(rec, tmp_path)
    assert err.value.path == ("source", "config") and err.value.split == "test"
