"""Scoring: MedHELM's scoring as every export carries it (`medhelm`, standard library only: the exports copy its
source as `scoring.py`), the agreement statistics (`agreement`), how a benchmark is graded (`grader`), ratings
files read and written with HELM's whole-number rule (`ratings`), and a jury checked against clinicians (`jury`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.scoring import medhelm
    from clinreg.scoring.agreement import icc2, kendall_tau, krippendorff_alpha, pairable, percent_agreement
    from clinreg.scoring.grader import AUTOMATIC, EXECUTION, GRADER_KINDS, JURY, NOT_EXPRESSIBLE, Grader, grader_of
    from clinreg.scoring.jury import jury_agreement, leave_one_judge_out, medhelm_jury_agreement
    from clinreg.scoring.requirement import (
        NOT_PORTABLE, PORTABILITY_LEVELS, PORTABLE, SAME_MODELS_ELSEWHERE, SUBSTITUTES, JudgeRequirement, judge_calls,
        judge_requirement,
    )
    from clinreg.scoring.ratings import (
        CLINICIAN, COLUMNS, DUPLICATE, NOT_A_NUMBER, RATER_KINDS, READ_COLUMNS, SHAPE, UNREADABLE, Problems, Rating,
        RatingsError, RatingTable, is_clinician, ratings_text, read_ratings, whole_rating,
    )

_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "NOT_PORTABLE": "clinreg.scoring.requirement",
    "PORTABILITY_LEVELS": "clinreg.scoring.requirement",
    "PORTABLE": "clinreg.scoring.requirement",
    "SAME_MODELS_ELSEWHERE": "clinreg.scoring.requirement",
    "SUBSTITUTES": "clinreg.scoring.requirement",
    "JudgeRequirement": "clinreg.scoring.requirement",
    "judge_calls": "clinreg.scoring.requirement",
    "judge_requirement": "clinreg.scoring.requirement",
    "AUTOMATIC": "clinreg.scoring.grader",
    "CLINICIAN": "clinreg.scoring.ratings",
    "COLUMNS": "clinreg.scoring.ratings",
    "DUPLICATE": "clinreg.scoring.ratings",
    "EXECUTION": "clinreg.scoring.grader",
    "GRADER_KINDS": "clinreg.scoring.grader",
    "JURY": "clinreg.scoring.grader",
    "NOT_A_NUMBER": "clinreg.scoring.ratings",
    "NOT_EXPRESSIBLE": "clinreg.scoring.grader",
    "RATER_KINDS": "clinreg.scoring.ratings",
    "READ_COLUMNS": "clinreg.scoring.ratings",
    "SHAPE": "clinreg.scoring.ratings",
    "UNREADABLE": "clinreg.scoring.ratings",
    "Grader": "clinreg.scoring.grader",
    "Problems": "clinreg.scoring.ratings",
    "Rating": "clinreg.scoring.ratings",
    "RatingTable": "clinreg.scoring.ratings",
    "RatingsError": "clinreg.scoring.ratings",
    "grader_of": "clinreg.scoring.grader",
    "icc2": "clinreg.scoring.agreement",
    "is_clinician": "clinreg.scoring.ratings",
    "jury_agreement": "clinreg.scoring.jury",
    "kendall_tau": "clinreg.scoring.agreement",
    "krippendorff_alpha": "clinreg.scoring.agreement",
    "leave_one_judge_out": "clinreg.scoring.jury",
    "medhelm": "clinreg.scoring.medhelm",
    "medhelm_jury_agreement": "clinreg.scoring.jury",
    "pairable": "clinreg.scoring.agreement",
    "percent_agreement": "clinreg.scoring.agreement",
    "ratings_text": "clinreg.scoring.ratings",
    "read_ratings": "clinreg.scoring.ratings",
    "whole_rating": "clinreg.scoring.ratings",
}

__all__ = [
    "AUTOMATIC", "CLINICIAN", "COLUMNS", "DUPLICATE", "EXECUTION", "GRADER_KINDS", "Grader", "JURY", "JudgeRequirement",
    "NOT_A_NUMBER", "NOT_EXPRESSIBLE", "NOT_PORTABLE", "PORTABILITY_LEVELS", "PORTABLE", "Problems", "RATER_KINDS",
    "READ_COLUMNS", "Rating", "RatingTable", "RatingsError", "SAME_MODELS_ELSEWHERE", "SHAPE", "SUBSTITUTES",
    "UNREADABLE", "grader_of", "icc2", "is_clinician", "judge_calls", "judge_requirement", "jury_agreement",
    "kendall_tau", "krippendorff_alpha", "leave_one_judge_out", "medhelm", "medhelm_jury_agreement", "pairable",
    "percent_agreement", "ratings_text", "read_ratings", "whole_rating",
]

__getattr__, __dir__ = _serve(__name__, _API)
