"""The MTSamples pair reads two commits of one repository: neither record may silently read the other's copy."""

from __future__ import annotations

from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.main import main
from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.store import load_registry
from clinreg.sources.origin import locate

REPO = Path(__file__).resolve().parents[2]
NOTE = "Medical Specialty:Cardiology\nSample Name: {name}\nHISTORY: Chest pain.\nPLAN: {plan}\nKeywords: x,\n"


@pytest.fixture(scope="module")
def records():
    reg = load_registry(REPO)
    return reg.datasets["mtsamples_replicate"], reg.datasets["mtsamples_procedures"]


def _copy(folder: Path, sub: str, plan: str) -> None:
    (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / sub / "Note.txt").write_text(NOTE.format(name=sub, plan=plan), encoding="utf-8")


def _clone(folder: Path, commit: str) -> None:
    (folder / ".git" / "refs" / "heads").mkdir(parents=True)
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / ".git" / "refs" / "heads" / "main").write_text(commit + "\n")


def test_each_record_reads_the_copy_at_its_own_commit(tmp_path, records):
    replicate, procedures = records
    base = "raulista1997__benchmarkdata"
    _copy(tmp_path / f"{base}@{replicate.source.commit[:12]}", "mtsamples_processed", "replicate's plan")
    _copy(tmp_path / f"{base}@{procedures.source.commit[:12]}", "mtsample_procedure", "procedures' plan")
    _copy(tmp_path / base, "mtsamples_processed", "an unversioned copy")
    assert locate(replicate, tmp_path).folder.name == f"{base}@{replicate.source.commit[:12]}"
    assert locate(procedures, tmp_path).folder.name == f"{base}@{procedures.source.commit[:12]}"
    out = tmp_path / "out.jsonl"
    result = invoke(main, ["build", "mtsamples_replicate", "--root", str(REPO), "--data-dir", str(tmp_path),
                           "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "replicate's plan" in out.read_text() and "unversioned" not in out.read_text()


def test_a_clone_at_the_other_records_commit_is_refused(tmp_path, records):
    replicate, procedures = records
    folder = tmp_path / "raulista1997__benchmarkdata"
    _copy(folder, "mtsamples_processed", "a plan")
    _clone(folder, procedures.source.commit)
    with pytest.raises(SourceUnavailable) as err:
        locate(replicate, tmp_path)
    assert procedures.source.commit[:12] in str(err.value) and replicate.source.commit[:12] in str(err.value)
    assert locate(procedures, tmp_path).folder == folder.resolve()


def test_a_plain_folder_is_read_but_said_to_be_unverified(tmp_path, records):
    replicate, _ = records
    _copy(tmp_path / "raulista1997__benchmarkdata", "mtsamples_processed", "a plan")
    result = invoke(main, ["build", "mtsamples_replicate", "--root", str(REPO), "--data-dir", str(tmp_path),
                           "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0, result.output
    assert f"may hold another commit than {replicate.source.commit[:12]}" in result.stderr
    assert f"raulista1997__benchmarkdata@{replicate.source.commit[:12]}" in result.stderr
