"""The validate cache: a warm run gives the same report, and nothing stale, corrupt or from another version is
trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from clirunner import clinreg as run

from clinreg.rules import cache
from clinreg.rules.engine import validate
from trees import GOOD_TREE, replace_in, write_tree

DATASET = "registry/datasets/qa_set.yaml"


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


@pytest.fixture
def warned(tmp_path) -> Path:
    """A tree with one warning (an unpinned revision) and one TODO, so a report has something in it."""
    text = replace_in(GOOD_TREE[DATASET], "revision: 0123456789abcdef0123456789abcdef01234567", "revision: main")
    text = replace_in(text, "description: Yes/no/maybe questions.", "description: TODO")
    return write_tree(tmp_path / "reg", {DATASET: text})


def cached(root: Path, **options):
    """(report, whether it came from the cache)."""
    run = cache.validate_cached(root, **options)
    assert run.root == root and run.files >= {"taxonomy/taxonomy.yaml", DATASET}
    return run.report, run.from_cache


def rendered(report) -> list[tuple]:
    return [(d.code, d.severity, d.file, d.line, d.column, d.message, d.hint) for d in report.sorted()]


def entries(home: Path) -> list[Path]:
    return sorted((home / "clinreg").glob("validate-*.json"))


def test_warm_run_gives_the_same_report(warned, cache_home):
    cold, hit_cold = cached(warned)
    warm, hit_warm = cached(warned)
    assert (hit_cold, hit_warm) == (False, True)
    assert rendered(warm) == rendered(cold) == rendered(validate(warned))
    assert {d.code for d in warm.diagnostics} >= {"CLR701", "CLR106"}
    assert warm.files == cold.files
    assert len(entries(cache_home)) == 1  # under $XDG_CACHE_HOME, nowhere else


@pytest.mark.parametrize("fmt", ["json", "text", "github"])
def test_cli_output_is_byte_identical_warm_cold_and_uncached(warned, fmt):
    args = ["validate", "--root", str(warned), "--format", fmt, "--show-info"]
    cold, warm, uncached = run(*args), run(*args), run(*args, "--no-cache")
    assert cold.output == warm.output == uncached.output
    assert cold.exit_code == warm.exit_code == uncached.exit_code == 0


def test_a_changed_file_invalidates(warned):
    cached(warned)
    path = warned / DATASET
    path.write_text(path.read_text(encoding="utf-8").replace("revision: main",
                                                             "revision: 0123456789abcdef0123456789abcdef01234567"),
                    encoding="utf-8")
    report, hit = cached(warned)
    assert not hit
    assert "CLR701" not in {d.code for d in report.diagnostics}
    assert rendered(report) == rendered(validate(warned))


def test_an_added_or_removed_file_invalidates(warned):
    cached(warned)
    (warned / "registry" / "stray.yaml").write_text("a: 1\n", encoding="utf-8")
    report, hit = cached(warned)
    assert not hit and "CLR305" in {d.code for d in report.diagnostics}
    (warned / "registry" / "stray.yaml").unlink()
    report, hit = cached(warned)  # one entry per tree: the stray file's run replaced it
    assert not hit and "CLR305" not in {d.code for d in report.diagnostics}
    assert cached(warned)[1]


def poison(cache_home: Path) -> None:
    """Keep the entry's key but replace its diagnostics: a run that serves this is using the cache."""
    [entry] = entries(cache_home)
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["diagnostics"] = [{"code": "CLR001", "severity": "error", "file": "poisoned.yaml", "line": 1, "column": 1,
                            "message": "from the cache", "hint": None}]
    entry.write_text(json.dumps(data), encoding="utf-8")


def test_no_cache_bypasses_reading_and_writing(warned, cache_home):
    result = run("validate", "--root", str(warned), "--no-cache")
    assert result.exit_code == 0 and entries(cache_home) == []
    run("validate", "--root", str(warned))
    poison(cache_home)
    assert "poisoned.yaml" in run("validate", "--root", str(warned)).output  # the cache is used...
    result = run("validate", "--root", str(warned), "--no-cache")
    assert "poisoned.yaml" not in result.output and result.exit_code == 0  # ...and --no-cache ignores it


@pytest.mark.parametrize("garbage", [b"", b"{", b"\xff\xfe\x00", b"[1, 2]", b'{"key": 1}', b"null"])
def test_a_corrupt_cache_file_is_ignored_and_replaced(warned, cache_home, garbage):
    cold, _ = cached(warned)
    [entry] = entries(cache_home)
    entry.write_bytes(garbage)
    report, hit = cached(warned)
    assert not hit and rendered(report) == rendered(cold)
    assert cached(warned)[1]  # rewritten, and good again


def test_an_entry_with_the_right_key_but_a_broken_body_is_ignored(warned, cache_home):
    cached(warned)
    [entry] = entries(cache_home)
    data = json.loads(entry.read_text(encoding="utf-8"))
    good = data["diagnostics"][0]
    for broken in ({"code": "CLR001"}, {**good, "severity": "fatal"}, {**good, "line": "1"}, {**good, "message": None}):
        data["diagnostics"] = [broken]
        entry.write_text(json.dumps(data), encoding="utf-8")
        report, hit = cached(warned)
        assert not hit and rendered(report) == rendered(validate(warned))


def test_another_clinreg_version_is_not_trusted(warned, cache_home, monkeypatch):
    cached(warned)
    poison(cache_home)
    monkeypatch.setattr(cache, "__version__", cache.__version__ + ".post1")
    report, hit = cached(warned)
    assert not hit and "poisoned.yaml" not in {d.file for d in report.diagnostics}


def test_changed_rules_source_is_not_trusted(warned, cache_home, monkeypatch):
    cached(warned)
    poison(cache_home)
    monkeypatch.setattr(cache, "_source_hash", "0" * 64)  # as if a rule's code had changed
    report, hit = cached(warned)
    assert not hit and "poisoned.yaml" not in {d.file for d in report.diagnostics}


def test_source_hash_covers_the_rules():
    rules = cache._PACKAGE / "rules"
    assert any(p.name == "sources.py" for p in rules.iterdir())
    assert len(cache.source_hash()) == 64


def test_release_filter_is_part_of_the_key(warned):
    whole, _ = cached(warned)
    filtered, hit = cached(warned, release="1.0.0")
    assert not hit
    assert rendered(filtered) == rendered(validate(warned, release="1.0.0"))


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks here")
def test_a_relinked_local_folder_invalidates(tmp_path):
    """CLR703 resolves `source.path` through links; the cache notices when the link changes."""
    local = replace_in(GOOD_TREE[DATASET], """source:
  type: huggingface
  repo: owner/qa_set
  splits: [test]
  revision: 0123456789abcdef0123456789abcdef01234567""", """source:
  type: local
  description: Fixture files.
  path: fixtures/qa""")
    root = write_tree(tmp_path / "reg", {DATASET: local})
    (root / "fixtures" / "qa").mkdir(parents=True)
    clean, _ = cached(root)
    assert "CLR703" not in {d.code for d in clean.diagnostics}
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "fixtures" / "qa").rmdir()
    (root / "fixtures" / "qa").symlink_to(outside, target_is_directory=True)
    report, hit = cached(root)
    assert not hit and "CLR703" in {d.code for d in report.diagnostics}


def test_an_unwritable_cache_folder_does_not_fail_validate(warned, cache_home):
    cache_home.mkdir()
    (cache_home / "clinreg").write_text("a file where the folder should be", encoding="utf-8")
    report, hit = cached(warned)
    assert not hit and rendered(report) == rendered(validate(warned))


def test_paths_filter_works_on_a_warm_run(warned):
    args = ["validate", "--root", str(warned), "--format", "json", str(warned / DATASET)]
    cold, warm = run(*args), run(*args)
    assert cold.output == warm.output
    assert {d["file"] for d in json.loads(warm.output)["data"]["diagnostics"]} == {DATASET}
    bad = run("validate", "--root", str(warned), str(warned / "nope.yaml"))
    assert bad.exit_code == 2


def test_a_diagnostic_round_trips_through_its_dict_with_every_field():
    """to_dict is written out by hand for speed; a field added to Diagnostic must not be left out of it
    (the cache stores these dicts and rebuilds diagnostics with Diagnostic(**d))."""
    import dataclasses

    from clinreg.core.diagnostics import Diagnostic

    d = Diagnostic("CLR705", "warning", "registry/datasets/x.yaml", 18, 9, "a message", "a hint", ("licence", "spdx"))
    assert d.to_dict() == {**dataclasses.asdict(d), "key_path": ["licence", "spdx"]}
    assert Diagnostic(**d.to_dict()) == d
    unplaced = dataclasses.replace(d, key_path=None)  # a key path is written only when known
    assert unplaced.to_dict() == {k: v for k, v in dataclasses.asdict(unplaced).items() if k != "key_path"}
    assert Diagnostic(**unplaced.to_dict()) == unplaced
