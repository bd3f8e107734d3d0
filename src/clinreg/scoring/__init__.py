"""Scoring: MedHELM's scoring as every export carries it (`medhelm`, standard library only: the exports copy its
source as `scoring.py`), the agreement statistics (`agreement`), how a benchmark is graded (`grader`), ratings
files read and written with HELM's whole-number rule (`ratings`), and a jury checked against clinicians (`jury`)."""

from clinreg.scoring import medhelm
from clinreg.scoring.agreement import icc2, kendall_tau, krippendorff_alpha, pairable, percent_agreement
from clinreg.scoring.grader import (
    AUTOMATIC, EXECUTION, GRADER_KINDS, JURY, NOT_EXPRESSIBLE, Grader, grader_of,
)
from clinreg.scoring.jury import jury_agreement, leave_one_judge_out, medhelm_jury_agreement
from clinreg.scoring.ratings import (
    CLINICIAN, COLUMNS, READ_COLUMNS, Problems, Rating, RatingsError, is_clinician, ratings_text, read_ratings,
    whole_rating,
)

__all__ = [
    "AUTOMATIC", "CLINICIAN", "COLUMNS", "EXECUTION", "GRADER_KINDS", "JURY", "NOT_EXPRESSIBLE", "READ_COLUMNS",
    "Grader", "Problems", "Rating", "RatingsError",
    "grader_of", "icc2", "is_clinician", "jury_agreement", "kendall_tau", "krippendorff_alpha", "leave_one_judge_out",
    "medhelm", "medhelm_jury_agreement", "pairable", "percent_agreement", "ratings_text", "read_ratings",
    "whole_rating",
]
