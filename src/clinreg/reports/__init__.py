"""What the commands show: the coverage data and its renderers (terminal table, Markdown, CSV, HTML, SVG charts),
the static site, review documents, release diffs (`diff`, on registries `clinreg.core.gitref` opens), the
leaderboard's renderers, the jury agreement report and the text of `clinreg medhelm diff`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.reports import formats, leaderboard
    from clinreg.reports.contamination import helm_points
    from clinreg.reports.coverage import coverage_data, edition_summary
    from clinreg.reports.csvout import render_coverage_csv_metadata
    from clinreg.reports.diff import diff_registries
    from clinreg.reports.jury_text import jury_agreement_lines
    from clinreg.reports.leaderboard_diff import render_diff_table
    from clinreg.reports.markdown import escape, render_diff_markdown
    from clinreg.reports.panel import review_agreement
    from clinreg.reports.problems import problem_lines
    from clinreg.reports.results_text import (
        export_summary_lines, import_summary_text, published_lines, ratings_summary_text,
    )
    from clinreg.reports.review import UnknownCategory, review_document, status_rows
    from clinreg.reports.review_text import (
        adjudication_line, decision_line, import_lines, render_agreement, render_review, render_status,
    )
    from clinreg.reports.site import SiteError, build_site, default_previous, write_site
    from clinreg.reports.table import render_table

    from clinreg.reports.record import record_index
    from clinreg.reports.record import record_view
    from clinreg.reports.record import render_record
_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "SiteError": "clinreg.reports.site",
    "UnknownCategory": "clinreg.reports.review",
    "adjudication_line": "clinreg.reports.review_text",
    "build_site": "clinreg.reports.site",
    "coverage_data": "clinreg.reports.coverage",
    "decision_line": "clinreg.reports.review_text",
    "default_previous": "clinreg.reports.site",
    "diff_registries": "clinreg.reports.diff",
    "edition_summary": "clinreg.reports.coverage",
    "escape": "clinreg.reports.markdown",
    "export_summary_lines": "clinreg.reports.results_text",
    "formats": "clinreg.reports.formats",
    "helm_points": "clinreg.reports.contamination",
    "import_lines": "clinreg.reports.review_text",
    "import_summary_text": "clinreg.reports.results_text",
    "jury_agreement_lines": "clinreg.reports.jury_text",
    "leaderboard": "clinreg.reports.leaderboard",
    "problem_lines": "clinreg.reports.problems",
    "published_lines": "clinreg.reports.results_text",
    "ratings_summary_text": "clinreg.reports.results_text",
    "render_agreement": "clinreg.reports.review_text",
    "render_coverage_csv_metadata": "clinreg.reports.csvout",
    "render_diff_markdown": "clinreg.reports.markdown",
    "render_diff_table": "clinreg.reports.leaderboard_diff",
    "render_review": "clinreg.reports.review_text",
    "render_status": "clinreg.reports.review_text",
    "render_table": "clinreg.reports.table",
    "review_agreement": "clinreg.reports.panel",
    "review_document": "clinreg.reports.review",
    "status_rows": "clinreg.reports.review",
    "write_site": "clinreg.reports.site",
    "record_index": "clinreg.reports.record",
    "record_view": "clinreg.reports.record",
    "render_record": "clinreg.reports.record",
}

__all__ = [
    "adjudication_line", "build_site", "coverage_data", "decision_line", "default_previous", "diff_registries",
    "edition_summary", "escape", "export_summary_lines", "formats", "helm_points", "import_lines",
    "import_summary_text",
    "jury_agreement_lines", "leaderboard", "problem_lines", "published_lines", "ratings_summary_text", "record_index",
    "record_view", "render_agreement", "render_coverage_csv_metadata", "render_diff_markdown", "render_diff_table",
    "render_record", "render_review", "render_status", "render_table", "review_agreement", "review_document",
    "SiteError", "status_rows", "UnknownCategory", "write_site",
]

__getattr__, __dir__ = _serve(__name__, _API)
