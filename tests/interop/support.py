"""Shared helpers of the interop tests: where things are, and skip-or-fail when a harness is missing."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REALDATA = REPO.parent / "shared" / "realdata"
DATASETS = ["med_qa", "pubmed_qa", "medcalc_bench", "aci_bench"]
REQUIRED = os.environ.get("CLINREG_REQUIRE_INTEROP") == "1"


def need(condition: bool, reason: str) -> None:
    if not condition:
        if REQUIRED:
            pytest.fail(f"{reason} (CLINREG_REQUIRE_INTEROP=1)")
        pytest.skip(reason)


def tool(name: str) -> str:
    """A console script of the running interpreter's environment (the harness venv)."""
    path = Path(sys.executable).parent / name
    need(path.exists(), f"{name} is not installed next to {sys.executable}")
    return str(path)


def have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None
