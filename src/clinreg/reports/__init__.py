"""Renderers of coverage data and review documents: terminal table, Markdown, CSV and HTML."""
