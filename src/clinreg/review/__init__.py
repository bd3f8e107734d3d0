"""Clinician review: sign-off into taxonomy files, and decisions in and out through spreadsheets and the form."""
