"""Dispatch a coverage format name to its renderer; every format renders the same `coverage_data` dict."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BY = ("category", "subcategory", "task")


def _markdown(data: dict[str, Any], by: str) -> str:
    from clinreg.reports.markdown import render_coverage_markdown

    return render_coverage_markdown(data, by=by)


def _csv(data: dict[str, Any], by: str) -> str:
    from clinreg.reports.csvout import render_coverage_csv

    return render_coverage_csv(data, by=by)


def _html(data: dict[str, Any], by: str) -> str:
    # The HTML report always shows every level (map, subcategories, tasks, datasets), so `by` does not apply.
    from clinreg.reports.html import render_coverage_html

    return render_coverage_html(data)


RENDERERS: dict[str, Callable[[dict[str, Any], str], str]] = {"markdown": _markdown, "csv": _csv, "html": _html}


def render(fmt: str, data: dict[str, Any], by: str = "subcategory") -> str:
    """Render coverage data in `fmt` (markdown, csv or html), grouped `by` category, subcategory or task."""
    if fmt not in RENDERERS:
        raise ValueError(f"unknown coverage format {fmt!r}; expected one of {', '.join(RENDERERS)}")
    if by not in BY:
        raise ValueError(f"unknown grouping {by!r}; expected one of {', '.join(BY)}")
    return RENDERERS[fmt](data, by)
