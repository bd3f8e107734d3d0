"""Clinician review: sign-off into taxonomy files, and decisions in and out through spreadsheets and the form."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.review.exchange import ReviewFileError, apply_decisions, describe_rows, export_rows, read_decisions
    from clinreg.review.sheet import SheetRefused, write_review_sheet
    from clinreg.review.signoff import SignOffError, sign_off

_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "ReviewFileError": "clinreg.review.exchange",
    "SheetRefused": "clinreg.review.sheet",
    "SignOffError": "clinreg.review.signoff",
    "apply_decisions": "clinreg.review.exchange",
    "describe_rows": "clinreg.review.exchange",
    "export_rows": "clinreg.review.exchange",
    "read_decisions": "clinreg.review.exchange",
    "sign_off": "clinreg.review.signoff",
    "write_review_sheet": "clinreg.review.sheet",
}

__all__ = [
    "ReviewFileError", "SheetRefused", "SignOffError", "apply_decisions", "describe_rows", "export_rows",
    "read_decisions", "sign_off", "write_review_sheet",
]

__getattr__, __dir__ = _serve(__name__, _API)
