"""Ratings files, read and written: per-instance ratings (instance_id, rater, axis, score, and optionally model
and benchmark; a rater is a judge model, or a clinician when its name starts `clinician:`) as `clinreg jury
agreement` reads them and `clinreg results ratings` writes them, with HELM's whole-number rule for a judge's
rating defined once, in the scoring every export carries (clinreg.scoring.medhelm)."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinreg.core.diagnostics import Diagnostic, make
from clinreg.errors import ClinregError
from clinreg.scoring import medhelm
from clinreg.text.safeio import open_regular

READ_COLUMNS = ("instance_id", "rater", "axis", "score")  # a ratings file needs these; model and benchmark optional
COLUMNS = ("instance_id", "rater", "axis", "score", "model", "judge_model", "benchmark")  # what is written
CLINICIAN = "clinician:"
MAX_PROBLEMS = 50

# Catalogue codes of the problems in ratings files (the results family: a ratings file is results input).
UNREADABLE, SHAPE, NOT_A_NUMBER, DUPLICATE = "CLR961", "CLR962", "CLR966", "CLR967"


def whole_rating(score: Any) -> tuple[int | None, str | None]:
    """(rating, problem) of one judge's score as HELM's LLM-jury metric counts it: int() of the score, or a problem
    when int() cannot read it or the whole number is too large for a float. The jury scorer every export carries
    reads a reply's scores by this rule, and `results ratings` writes exactly the ratings it keeps."""
    return medhelm._whole(score)


@dataclass
class Problems:
    """Problems found in a ratings file or a jury run: each a located line of text, as the commands print it, and
    the same problem as a `Diagnostic` with its catalogue code, for programs, `explain` and `--format github`."""

    texts: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def add(self, code: str, file: str | Path, message: str, line: int | None = None, column: int | None = None,
            severity: str = "error") -> None:
        where = f"{file}:{line}:{column}" if column is not None else f"{file}:{line}" if line is not None else f"{file}"
        self.texts.append(f"{where}: {message}")
        self.diagnostics.append(make(code, str(file), line or 1, column or 1, message, severity=severity))


class RatingsError(ClinregError, ValueError):
    """The ratings file cannot be read: every problem, each with its line (`problems`, the text; `diagnostics`,
    the same as diagnostics). The code is the first problem's."""

    default_code = "CLR962"  # SHAPE

    def __init__(self, found: Problems):
        first = found.diagnostics[0] if found.diagnostics else None
        super().__init__(found.texts[0] if found.texts else "bad ratings file",
                         code=first.code if first else None, file=first.file if first else None,
                         line=first.line if first else None)
        self.problems = found.texts
        self.diagnostics = found.diagnostics


@dataclass(frozen=True)
class Rating:
    instance_id: str
    rater: str
    axis: str
    score: float
    model: str | None = None
    benchmark: str | None = None


def is_clinician(rater: str) -> bool:
    return rater.startswith(CLINICIAN)


# ------------------------------------------------------------------------------------------------- reading


def _row(path: Path, line: int, row: dict[str, Any], problems: Problems) -> Rating | None:
    bad = False
    values: dict[str, str] = {}
    for column in READ_COLUMNS[:3]:
        value = row.get(column)
        if not isinstance(value, str) or not value.strip():
            problems.add(SHAPE, path, f"`{column}` is missing or empty", line)
            bad = True
        else:
            values[column] = value.strip()
    raw = row.get("score")
    score: float | None = None
    if isinstance(raw, bool) or raw is None or (isinstance(raw, str) and not raw.strip()):
        problems.add(NOT_A_NUMBER, path, "`score` is missing or not a number", line)
    else:
        try:
            score = float(raw)
        except (TypeError, ValueError, OverflowError):  # a whole number past a float's range is no rating either
            problems.add(NOT_A_NUMBER, path, f"`score` {str(raw)[:40]!r} is not a number", line)
        else:
            if not math.isfinite(score):
                problems.add(NOT_A_NUMBER, path, "`score` must be a finite number", line)
                score = None
    optional: dict[str, str | None] = {}
    for column in ("model", "benchmark"):
        value = row.get(column)
        if value is not None and not (isinstance(value, str) and value.strip()):
            problems.add(SHAPE, path, f"`{column}`, when given, must be a non-empty text", line)
            bad = True
        optional[column] = value.strip() if isinstance(value, str) and value.strip() else None
    if bad or score is None:
        return None
    return Rating(values["instance_id"], values["rater"], values["axis"], score, optional["model"],
                  optional["benchmark"])


def read_ratings(path: Path) -> list[Rating]:
    """The ratings in a CSV file (a header with the columns instance_id, rater, axis, score and optionally
    model and benchmark) or a JSON lines file (one object per line with those keys). Raises RatingsError with every
    problem located by line."""
    problems = Problems()
    try:
        with open_regular(path) as handle:  # a FIFO or a device is refused before it is opened
            text = handle.read().decode("utf-8-sig")
    except OSError as exc:
        problems.add(UNREADABLE, path, f"cannot read it: {exc.strerror or exc}")
        raise RatingsError(problems) from None
    except UnicodeDecodeError:
        problems.add(UNREADABLE, path, "not UTF-8 text")
        raise RatingsError(problems) from None
    ratings: list[Rating] = []
    rows: list[tuple[int, dict[str, Any]]] = []
    if text.lstrip().startswith("{"):
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                problems.add(UNREADABLE, path, f"not a JSON object ({exc.msg})", number)
                continue
            if not isinstance(obj, dict):
                problems.add(SHAPE, path, "not a JSON object", number)
                continue
            rows.append((number, obj))
    else:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [h.strip() for h in reader.fieldnames or []]
        missing = [c for c in READ_COLUMNS if c not in header]
        if missing:
            problems.add(SHAPE, path, f"the header lacks {', '.join(missing)} (it needs {', '.join(READ_COLUMNS)})", 1)
            raise RatingsError(problems)
        reader.fieldnames = header
        for row in reader:
            rows.append((reader.line_num, row))
    seen: dict[tuple[str | None, str, str, str, str | None], int] = {}
    for number, row in rows:
        rating = _row(path, number, row, problems)
        if rating is None:
            continue
        key = (rating.benchmark, rating.instance_id, rating.rater, rating.axis, rating.model)
        if key in seen:
            problems.add(DUPLICATE, path, f"a second score by {rating.rater} for instance {rating.instance_id}, "
                         f"axis {rating.axis} (the first is at line {seen[key]})", number)
            continue
        seen[key] = number
        ratings.append(rating)
    if not problems.texts and not ratings:
        problems.add(SHAPE, path, "no ratings")
    if problems.texts:
        raise RatingsError(problems)
    return ratings


# ------------------------------------------------------------------------------------------------- writing


def ratings_text(rows: list[dict[str, Any]], fmt: str) -> str:
    """The ratings file: CSV with a header, or JSON lines; rows in (model, instance, rater, axis) order."""
    ordered = sorted(rows, key=lambda r: (r["benchmark"], r["model"], r["instance_id"], r["rater"], r["axis"]))
    if fmt == "jsonl":
        return "".join(json.dumps({c: r[c] for c in COLUMNS}, ensure_ascii=False) + "\n" for r in ordered)
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in ordered:
        writer.writerow({**row, "score": _number(row["score"])})
    return buffer.getvalue()


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)
