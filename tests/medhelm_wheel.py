"""The real medhelm 0.8.0 wheel, for tests that read MedHELM's own files (`pip download medhelm==0.8.0 --no-deps`,
which .ci/run caches and points CLINREG_MEDHELM_WHEEL at). Tests skip where it is absent, unless
CLINREG_REQUIRE_MEDHELM_WHEEL is set. Changed copies are made from the wheel's own files, never hand-written."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest


def medhelm_wheel() -> Path:
    """The wheel's path, or the test is skipped (failed, under CLINREG_REQUIRE_MEDHELM_WHEEL)."""
    path = os.environ.get("CLINREG_MEDHELM_WHEEL")
    if not path or not Path(path).is_file():
        if os.environ.get("CLINREG_REQUIRE_MEDHELM_WHEEL"):
            pytest.fail("CLINREG_MEDHELM_WHEEL must name the medhelm 0.8.0 wheel here")
        pytest.skip("the medhelm 0.8.0 wheel is not here (set CLINREG_MEDHELM_WHEEL; .ci/run does)")
    return Path(path)


def unpack_medhelm_files(wheel: Path, out: Path) -> Path:
    """The wheel's helm/benchmark files that `medhelm diff` reads, unpacked as they are into `out`."""
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if (name.startswith("helm/benchmark/")
                    and (name.endswith((".yaml", ".conf")) or name.endswith("medhelm_run_specs.py"))):
                archive.extract(name, out)
    return out
