"""`clinreg results export`: a results file in another tool's format, written as a folder, all at once (the files
are staged beside the folder and moved into place only when every one is written)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from clinreg.core.store import Registry
from clinreg.errors import ClinregError
from clinreg.results.score import ReportedWinRate, Score

FORMATS = ("every-eval-ever", "hf-eval-results")


class ExportRefused(ClinregError):
    """The output cannot be written (it exists without --force, or a record breaks the schema); nothing was written."""

    default_code = "CLR983"


def export_results(reg: Registry, fmt: str, scores: list[Score], reported: list[ReportedWinRate],
                   stand_ins: list[dict[str, Any]], output: Path, force: bool = False, organization: str = "unknown",
                   aliases: dict[tuple[str, str], str] | None = None, retrieved: str | None = None) -> dict[str, Any]:
    """Write `scores` in format `fmt` into the folder `output`; the summary: {"format", "output", "files",
    "scores", "left_out"}. Every Every Eval Ever record is checked against the shipped 0.3.0 schema first."""
    if output.exists() and not force:
        raise ExportRefused(f"{output} exists; refusing to overwrite it (use --force)")
    if output.exists() and not output.is_dir():
        raise ExportRefused(f"{output} is not a folder")
    if output.exists():
        foreign = _not_written_by(fmt, output)
        if foreign:
            raise ExportRefused(f"{output} holds {foreign}, which no {fmt} export writes; --force replaces only a "
                                "folder an earlier export wrote (choose an empty or new folder)")
    if fmt == "every-eval-ever":
        from clinreg.results.every_eval_ever import eee_records, schema_errors

        records, left = eee_records(reg, scores, reported, stand_ins, retrieved or str(int(time.time())),
                                    organization, aliases)
        for path, record in records.items():
            problems = schema_errors(record)
            if problems:  # a defect of the export, never of the input: say where and stop
                raise ExportRefused(f"{path}: the record breaks the Every Eval Ever 0.3.0 schema at "
                                    f"{problems[0][0]}: {problems[0][1]}")
        files = {path: json.dumps(record, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
                 for path, record in records.items()}
    elif fmt == "hf-eval-results":
        from clinreg.results.hf_eval_results import hf_files

        files, left = hf_files(reg, scores, reported, stand_ins, aliases)
    else:
        raise ValueError(f"unknown format {fmt!r}")
    _write_folder(files, output)
    return {"format": fmt, "output": str(output), "files": sorted(files), "scores": len(scores), "left_out": left}


def _write_folder(files: dict[str, str], output: Path) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}.", dir=output.parent))
    try:
        staged = work / "out"
        staged.mkdir()
        for rel, text in files.items():
            target = staged / rel
            if ".." in Path(rel).parts or Path(rel).is_absolute():
                raise ExportRefused(f"{rel}: a file would land outside the output folder")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        old = work / "old"
        if output.exists():
            os.replace(output, old)
        try:
            os.replace(staged, output)
        except OSError:
            if old.exists():  # put the earlier export back before the work folder goes
                os.replace(old, output)
            raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _not_written_by(fmt: str, output: Path) -> str | None:
    """The first entry of `output` (relative path) that an export in `fmt` does not write, or None."""
    for path in sorted(output.rglob("*")):
        rel = path.relative_to(output)
        if path.is_dir() and not path.is_symlink():
            continue
        parts = rel.parts
        if fmt == "every-eval-ever" and parts[0] == "data" and rel.suffix == ".json" and path.is_file():
            continue
        if fmt == "hf-eval-results" and len(parts) >= 3 and parts[-2] == ".eval_results" and rel.suffix == ".yaml" \
                and path.is_file():
            continue
        return rel.as_posix()
    return None
