"""Untrusted registry content reaches output only made harmless, and history from a pull request is read safely."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from clinreg.core.diagnostics import make
from clinreg.text.output import printable
from trees import write_tree

from .support import run_cli


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("a\nb", "a\\nb"),
        ("\x1b[2J", "\\x1b[2J"),
        ("\r::add-mask::x", "\\r::add-mask::x"),
        ("\u202eevil", "\\u202eevil"),
        ("pub\u200blic", "pub\\u200blic"),
        ("a\u2028b", "a\\u2028b"),
        ("Café, 東京, \U0001f600, עברית", "Café, 東京, \U0001f600, עברית"),  # printable text is left alone
    ],
)
def test_diagnostic_text_is_printable(raw, shown):
    assert printable(raw) == shown
    d = make("CLR101", f"registry/{raw}.yaml", 1, 1, f"unknown key `{raw}`", f"did you mean `{raw}`?")
    assert d.file.isprintable() and d.message.isprintable() and d.hint.isprintable()


def test_diagnostic_text_is_clipped():
    d = make("CLR104", "x.yaml", 1, 1, "value " + "x" * 100_000)
    assert len(d.message) <= 500 and d.message.endswith("...")


def _git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org")
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_of_a_commit_with_an_escaping_link_fails_cleanly(tmp_path):
    """CI runs `clinreg diff "$BASE" HEAD` on every pull request, and a pull request can commit a link."""
    root = write_tree(tmp_path / "repo")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    (root / "registry" / "datasets" / "evil.yaml").symlink_to("/etc/passwd")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "a pull request adds a link out of the tree")
    result = run_cli("diff", "HEAD~1", "HEAD", "--root", str(root))
    assert "Traceback" not in result.stderr
    assert result.returncode in (1, 2)
    assert "root:x:" not in result.stdout  # never the content of the linked file


def test_builder_never_enables_remote_code():
    """`datasets` runs a repo's loading script only when asked (`trust_remote_code=True`); clinreg never asks."""
    from pathlib import Path

    import clinreg

    package = Path(clinreg.__file__).parent
    offenders = [p for p in package.rglob("*.py") if "trust_remote_code=" in p.read_text(encoding="utf-8")]
    assert offenders == []


@pytest.mark.parametrize("repo", [".", "..", "x/.."])
def test_builder_never_reads_outside_the_record_mirror_folder(tmp_path, repo):
    """The schema refuses such a repo; the builder must refuse it too, for a record that skipped validation."""
    from clinreg.core.model import Dataset
    from clinreg.core.builderrors import BuildError
    from clinreg.instances.build import build_instances

    data_dir = tmp_path / "mirrors"
    (data_dir / "private_notes").mkdir(parents=True)
    (data_dir / "private_notes" / "test.jsonl").write_text('{"question": "SECRET", "answer": "yes"}\n')
    record = Dataset.model_validate({
        "id": "harmless", "name": "x", "version": "1.0.0", "added_in": "1.0.0", "in_medhelm": True, "description": "x",
        "access": {"tier": "public"}, "licence": {"spdx": "MIT"}, "citation": {"text": "x"},
        "source": {"type": "huggingface", "repo": "owner/fine", "splits": ["test"]},
        "mappings": [{"id": "m", "tasks": ["t"], "splits": ["test"], "input_template": "{{ question }}",
                      "choices": {"fixed": ["yes", "no"]}, "metric": {"name": "exact_match"},
                      "label": {"encoding": "string_set", "column": "answer", "map": {"yes": "A", "no": "B"},
                                "positive": "yes"}}],
    })
    record.source.repo = repo  # as if the record never went through the schema
    try:
        inputs = [i.input for i in build_instances(record, data_dir=data_dir)]
    except BuildError:
        return
    assert "SECRET" not in inputs


@pytest.mark.parametrize("target", ["own-blob", "other-repo-blob", "outside"])
def test_a_hub_cache_snapshot_reads_links_into_its_own_blobs_only(tmp_path, target):
    """huggingface_hub's snapshot files are links into `<repo folder>/blobs/`; those are read. A link from a snapshot
    into another repository's blobs, or anywhere else, is refused as any link out of a mirror folder is."""
    from clinreg.core.builderrors import SourceUnavailable
    from clinreg.sources.files import match_files

    cache = tmp_path / "hub"
    repo = cache / "datasets--owner--fine"
    snapshot = repo / "snapshots" / ("a" * 40)
    (snapshot / "data").mkdir(parents=True)
    places = {"own-blob": repo / "blobs" / "1234",
              "other-repo-blob": cache / "datasets--owner--other" / "blobs" / "5678",
              "outside": tmp_path / "private" / "notes.jsonl"}
    blob = places[target]
    blob.parent.mkdir(parents=True)
    blob.write_text('{"question": "q", "answer": "yes"}\n')
    (snapshot / "data" / "test.jsonl").symlink_to(os.path.relpath(blob, snapshot / "data"))
    if target == "own-blob":
        [found] = match_files(snapshot, "data/*.jsonl", {}, "rec: split 'test'")
        assert found.path == blob.resolve()
        return
    with pytest.raises(SourceUnavailable, match="leads out of the mirror folder"):
        match_files(snapshot, "data/*.jsonl", {}, "rec: split 'test'")
