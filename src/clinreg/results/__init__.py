"""Evaluation results: read HELM, lm-eval and Inspect outputs into one normalised file, rank models by them, and
write a results file in another tool's format (`convert`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.results.aliases import AliasError, load_aliases
    from clinreg.results.convert import ExportRefused, export_results
    from clinreg.results.importing import results_document, results_text
    from clinreg.results.intake import read_results
    from clinreg.results.leaderboard import leaderboard_data
    from clinreg.results.ratings import collect_ratings
    from clinreg.results.resolve import resolve_source
    from clinreg.results.summaries import import_summary, published_rows, ratings_summary

    from clinreg.results.aliases import merge_names
_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "AliasError": "clinreg.results.aliases",
    "ExportRefused": "clinreg.results.convert",
    "collect_ratings": "clinreg.results.ratings",
    "export_results": "clinreg.results.convert",
    "import_summary": "clinreg.results.summaries",
    "leaderboard_data": "clinreg.results.leaderboard",
    "load_aliases": "clinreg.results.aliases",
    "published_rows": "clinreg.results.summaries",
    "ratings_summary": "clinreg.results.summaries",
    "read_results": "clinreg.results.intake",
    "resolve_source": "clinreg.results.resolve",
    "results_document": "clinreg.results.importing",
    "results_text": "clinreg.results.importing",
    "merge_names": "clinreg.results.aliases",
}

__all__ = [
    "AliasError", "collect_ratings", "export_results", "ExportRefused", "import_summary", "leaderboard_data",
    "load_aliases", "merge_names", "published_rows", "ratings_summary", "read_results", "resolve_source",
    "results_document", "results_text",
]

__getattr__, __dir__ = _serve(__name__, _API)
