"""Write the review spreadsheet (`clinreg review export`): CSV, or XLSX where openpyxl is installed, never over an
existing file unless asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clinreg.errors import ClinregError


class SheetRefused(ClinregError, ValueError):
    """The spreadsheet was not written; the message says why."""

    default_code = "CLR983"


def write_review_sheet(rows: list[dict[str, Any]], output: Path, fmt: str, force: bool = False) -> None:
    """Write `rows` (`review.exchange.export_rows`) to `output` as `fmt` ("csv" or "xlsx"). Raises SheetRefused."""
    from clinreg.review.exchange import render_csv, write_xlsx
    from clinreg.text.safeio import RefusedOverwrite, atomic_write_text

    if not force and output.exists():
        raise SheetRefused(f"{output} exists; refusing to overwrite it (use --force)")
    try:
        if fmt == "csv":
            atomic_write_text(output, render_csv(rows), overwrite=force)
        else:
            try:
                import openpyxl  # noqa: F401
            except ImportError:
                raise SheetRefused("--format xlsx needs openpyxl: install clinreg with the `review` extra "
                                   "(pip install 'clinreg[review]'), or use --format csv") from None
            write_xlsx(rows, output)
    except RefusedOverwrite as exc:
        raise SheetRefused(str(exc)) from None
    except OSError as exc:
        raise SheetRefused(f"cannot write {output}: {exc.strerror or exc}") from None
