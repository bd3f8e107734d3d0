"""The fast YAML reader and the reference reader give the same result, value for value and location for location."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinreg.core import yamlsrc
from clinreg.core.yamlsrc import parse_yaml
from hardening.support import doc_fields
from trees import GOOD_TREE

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parents[1] / "hardening" / "corpus"
REGRESSIONS = Path(__file__).parents[1] / "hardening" / "regressions"
TREE_FILES = sorted([*(REPO / "taxonomy").glob("*.yaml"), *(REPO / "registry").rglob("*.yaml")])


def assert_readers_agree(raw: bytes) -> yamlsrc.YamlDoc:
    fast, reference = parse_yaml(raw), parse_yaml(raw, reader="reference")
    assert doc_fields(fast) == doc_fields(reference), raw[:300]
    return fast


@pytest.mark.parametrize("path", TREE_FILES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_embedded_registry_files_read_alike(path):
    raw = path.read_bytes()
    assert yamlsrc.read_fast(raw.decode("utf-8"),
                             yamlsrc.DEFAULT_LIMITS) is not None, "an ordinary file took the slow path"
    doc = assert_readers_agree(raw)
    assert not doc.problems
    # CRLF line endings move no location
    assert doc_fields(parse_yaml(raw.replace(b"\n", b"\r\n")))["values"] == doc_fields(doc)["values"]


@pytest.mark.parametrize("path", sorted([*CORPUS.glob("*.yaml"), *REGRESSIONS.glob("*.yaml")]), ids=lambda p: p.name)
def test_hostile_files_read_alike(path):
    assert_readers_agree(path.read_bytes())


@pytest.mark.parametrize("rel", sorted(GOOD_TREE))
def test_good_tree_files_read_alike(rel):
    assert_readers_agree(GOOD_TREE[rel].encode("utf-8"))


EDGE_CASES = [
    b"",
    b"# only a comment\n",
    b"---\n",
    b"plain scalar\n",
    b"a: 1\nb: [1, 2.5, .inf, .nan, ~, null, true, yes, No, off, 0x1F, 012, 1:30, 1_000, 2025-01-01]\n",
    b"a: {yes: A, no: B, 1: c, 2025-01-01: d, ~: e}\n",
    b"a: !!str 12\nb: !!int '12'\n",
    b"a: !foo x\n",
    b"a: &x [1, 2]\nb: *x\n",
    b"a: 1\na: 2\n",
    b"a: 1\n1: 2\ntrue: 3\n1.0: 4\n",
    b"<<: {a: 1}\n",
    b"a: =\n",
    b"[1, [2, [3, {a: [4]}]]]\n",
    b"a: 1\n---\nb: 2\n",
    b"? [a]\n: 1\n",
    b"a:\n  - b: 1\n    c:\n      - - x\n        - y\n  - []\n  - {}\nd: ''\ne: \"\"\n",
    b"a: 99999999999999999999999999999999999999\nb: 1e400\nc: -0.0\n",
    b"a: 2025-13-45\n",
    b"a: 1" + b"0" * 1200 + b"\n",
    b"a: [" + b"[" * 45 + b"]" * 45 + b"]\n",
    b"a: b\n  c: d\n",
    b"key: value\ttab\n",
]


@pytest.mark.parametrize("raw", EDGE_CASES)
def test_edge_cases_read_alike(raw):
    assert_readers_agree(raw)


def test_paths_with_equal_but_different_keys_are_not_shared_between_files():
    # (False,) == (0,) == (0.0,): a path from one file must never stand in for an equal one of another type.
    for first, second in [(b"false: x\n", b"- x\n"), (b"0: x\n", b"false: x\n"), (b"- [a]\n", b"false: [a]\n"),
                          (b"1.0: {a: 1}\n", b"1: {a: 1}\n"), (b"true: [x]\n", b"- - x\n")]:
        assert_readers_agree(first)
        assert_readers_agree(second)
        assert_readers_agree(first)


def test_limits_other_than_the_default_use_the_reference_reader():
    tight = yamlsrc.Limits(max_depth=2)
    raw = b"a: {b: {c: 1}}\n"
    assert parse_yaml(raw, tight).problems[0].code == "CLR007"
    assert doc_fields(parse_yaml(raw, tight)) == doc_fields(parse_yaml(raw, tight, reader="reference"))


def _cloned_tree(dest: Path, copies: int) -> Path:
    """The embedded registry with every dataset record cloned under new ids (as bench/bench_validate.py does)."""
    import shutil

    shutil.copytree(REPO / "taxonomy", dest / "taxonomy")
    shutil.copytree(REPO / "registry", dest / "registry")
    datasets = dest / "registry" / "datasets"
    for path in sorted(datasets.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        for n in range(1, copies):
            (datasets / f"{path.stem}_x{n}.yaml").write_text(text.replace(f"id: {path.stem}\n",
                                                                          f"id: {path.stem}_x{n}\n"),
                                                              encoding="utf-8")
    return dest


def test_validate_reports_are_byte_identical_with_either_reader(tmp_path, monkeypatch):
    from clinreg.core.diagnostics import render_json, render_text
    from clinreg.rules.engine import validate

    root = _cloned_tree(tmp_path / "reg", 3)
    fast = validate(root)
    monkeypatch.setattr(yamlsrc, "read_fast", lambda text, limits: None)  # every file through the reference reader
    reference = validate(root)
    assert fast.files == reference.files > 100
    assert render_json(fast) == render_json(reference)
    assert render_text(fast, show_info=True) == render_text(reference, show_info=True)


def test_lookups_alternating_between_packed_files_answer_for_their_own_file():
    """A packed file keeps one path index, of the last file looked up; switching files must never answer
    with the other file's locations."""
    first = parse_yaml(b"a: 1\nb:\n  c: 2\n")
    second = parse_yaml(b"# comment\n\nb:\n  c: 2\na: 1\n")
    assert first._packed is not None and second._packed is not None, "both should take the fast reader"
    for _ in range(3):
        assert first.where(("b", "c")) == (3, 6) and second.where(("b", "c")) == (4, 6)
        assert first.where_key(("a",)) == (1, 1) and second.where_key(("a",)) == (5, 1)
        assert first.where(("b",)) == (2, 1) and second.where(("b",)) == (3, 1)  # a mapping: at its key
        assert first.where(("b", "c", "x")) == (3, 6)  # the nearest located ancestor


def test_the_lookup_index_does_not_keep_a_file_alive():
    import gc
    import weakref

    doc = parse_yaml(b"a: 1\nb:\n  c: 2\n")
    assert doc.where(("b", "c")) == (3, 6) and doc.where(("b", "x")) == (2, 1)  # a scan, then an index
    alive = weakref.ref(doc)
    del doc
    gc.collect()
    assert alive() is None
