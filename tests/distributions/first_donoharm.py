"""As-distributed fixture for `first_donoharm`: none can be written, because the layout is not public.

SHAPE: unknown. The 100 cases (electronic consultations, their management options and the specialists'
annotations) are a private test set that the ARISE network runs on submitted models (HealthRex/mast
docs/submission_agreement.md at commit 96c29fd7; ARISENetwork/mast README at commit 33eb5e28). The only public
files are one example case per MAST release (benchmarks/noharm/inputs/test_001.txt, benchmarks/donoharm/inputs/
test_001.txt), which show the prompt a model receives, not how the test set is stored, and no gold. The terms
forbid reconstructing the test set, so this writer lays out nothing and says why.
"""
import pathlib

FILLED_IN = True


def write(folder: pathlib.Path) -> dict:
    return {"unbuildable": "the cases are a private test set run by the ARISE team; their file layout is not public"}
