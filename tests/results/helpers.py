"""Small leaderboards and results files written into tmp_path, and a CLI runner that lets exceptions through."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from clirunner import clinreg as invoke  # noqa: F401 - the results tests' name for it

from clinreg.core.paths import embedded_root

ROOT = embedded_root()
DATA = Path(__file__).parent / "data"

# A hand-checked leaderboard on the embedded registry. Columns: MedQA (Clinical Decision Support / Providing
# Clinical Knowledge Support), MedCalc-Bench (Clinical Decision Support / Supporting Diagnostic Decisions),
# MIMIC-BHC (Clinical Note Generation, a 1-5 jury score). A and B tie on MedQA, B and C tie on MIMIC-BHC, and
# C has no MedCalc-Bench score.
BOARD = """\
Model,MedQA - EM,MedCalc-Bench - MedCalc Accuracy,MIMIC-BHC - Jury Score
A,0.80,0.30,4.0
B,0.80,0.25,3.5
C,0.70,-,3.5
D,0.60,0.35,3.0
"""
# Win rates by column (share of the other models with a score that the model beats, ties half):
#   MedQA:     A 2.5/3, B 2.5/3, C 1/3, D 0
#   MedCalc:   D 2/2, A 1/2, B 0      (C has no score: out of the column)
#   MIMIC-BHC: A 3/3, B 1.5/3, C 1.5/3, D 0
EXPECTED_OVERALL = {"A": (2.5 / 3 + 0.5 + 1) / 3, "B": (2.5 / 3 + 0 + 0.5) / 3, "C": (1 / 3 + 0.5) / 2,
                    "D": (0 + 1 + 0) / 3}
EXPECTED_CDS = {"A": (2.5 / 3 + 0.5) / 2, "B": (2.5 / 3 + 0) / 2, "C": 1 / 3, "D": (0 + 1) / 2}
EXPECTED_CNG = {"A": 1.0, "B": 0.5, "C": 0.5, "D": 0.0}
# Macro averages on the 0-1 scale: the jury score x becomes (x - 1) / 4.
EXPECTED_MACRO = {"A": (0.80 + 0.30 + 0.75) / 3, "C": (0.70 + 0.625) / 2}


def needs_zstandard() -> None:
    """Skip unless Zstandard-compressed `.eval` members can be read: Python 3.14's compression.zstd, or else the
    `zstandard` package of the `inspect` extra."""
    if sys.version_info < (3, 14):
        pytest.importorskip("zstandard", reason="reading a Zstandard-compressed Inspect .eval log needs the `inspect` "
                            "extra (zstandard) before Python 3.14")


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def leaderboard_json(*args) -> dict:
    result = invoke("leaderboard", "--root", ROOT, "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["data"]


def rows_by_model(data: dict, group: str | None = None) -> dict[str, dict]:
    return {r["model"]: r for r in data["rows"] if group is None or r["group"] == group}


def lm_eval_results(task: str = "clinreg_med_qa", value=0.7, model: str = "EleutherAI/pythia-14m", **extra) -> dict:
    return {
        "results": {task: {"alias": task, "exact_match,none": value, "exact_match_stderr,none": 0.05}},
        "group_subtasks": {task: []},
        "configs": {task: {"task": task}},
        "versions": {task: 1},
        "n-samples": {task: {"original": 1273, "effective": 100}},
        "config": {"model": "hf", "model_args": f"pretrained={model}", "batch_size": 1},
        **extra,
    }
