"""Ratings files, read and written: per-instance ratings (instance_id, rater, axis, score, and optionally model
and benchmark; a rater is a judge model, or a clinician when its name starts `clinician:`) as `clinreg jury
agreement` reads them and `clinreg results ratings` writes them, with HELM's whole-number rule for a judge's
rating defined once, in the scoring every export carries (clinreg.scoring.medhelm)."""

from __future__ import annotations

import csv
import io
import json
import math
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from clinreg.core.diagnostics import Diagnostic, make
from clinreg.errors import ClinregError
from clinreg.scoring import medhelm
from clinreg.text.output import csv_cell, csv_uncell, shown, to_json
from clinreg.text.safeio import open_regular

READ_COLUMNS = ("instance_id", "rater", "axis", "score")  # a ratings file needs these; the others are optional
COLUMNS = ("instance_id", "rater", "rater_kind", "axis", "score", "model", "judge_model", "benchmark")  # written
CLINICIAN = "clinician:"  # the name prefix that marked a clinician in files without a rater_kind column
RATER_KINDS = ("judge", "clinician")  # `rater_kind`: a model of the jury, or a person (written by the human side)
MAX_PROBLEMS = 50
MAX_FIELD = 64 * 1024  # characters in one CSV field: an id or a name, never a document
MAX_LINE = 1024 * 1024  # characters in one JSON line: one rating
MAX_MAGNITUDE = 1e6  # no rating scale reaches past it: a rating beyond, though finite, is out of any scale

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
    limit: int | None = None
    more: int = 0  # problems past `limit`, counted and not kept (a file of a million bad lines stays small)

    def add(self, code: str, file: str | Path, message: str, line: int | None = None, column: int | None = None,
            severity: str = "error") -> None:
        if self.limit is not None and len(self.texts) >= self.limit:
            self.more += 1
            return
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
    clinician: bool = False  # from the row's rater_kind (or, in a file without that column, the name's prefix)


def is_clinician(rater: str) -> bool:
    """Whether a name marks a clinician by the old convention, read only in a file without a `rater_kind` column."""
    return rater.startswith(CLINICIAN)


Target = tuple[str | None, str | None, str, str]  # (model, benchmark, instance_id, axis)


class RatingTable:
    """Ratings held compactly, so that millions of them fit in a few hundred megabytes: every rater and target
    (model, benchmark, instance, axis) once, and per rating the target's and the rater's index, the score and the
    line in arrays. Iterating gives each `Rating`; `chains()` links each target's ratings."""

    def __init__(self) -> None:
        self.raters: list[str] = []
        self.clinician: list[bool] = []  # per rater
        self.targets: list[Target] = []
        self.target = array("i")  # per rating: the index of its target, of its rater, its score and line
        self.rater = array("i")
        self.score = array("d")
        self.line = array("i")
        self.benchmarks: set[str] = set()  # every benchmark named in the file, read or not
        self.kinds_from = "rater_kind"  # or "names": a file without a rater_kind column
        self._raters: dict[str, tuple[int, int]] = {}  # name -> (index, first line)
        self._targets: dict[Target, int] = {}
        self._text: dict[str, str] = {}  # one copy of each model, benchmark and axis name
        self._chained: tuple[int, array, array] | None = None

    @classmethod
    def of(cls, ratings: Iterable[Rating]) -> RatingTable:
        table = cls()
        for number, r in enumerate(ratings, 1):
            table.add(r, number)
        return table

    def __len__(self) -> int:
        return len(self.score)

    def __iter__(self) -> Iterator[Rating]:
        for t, r, score in zip(self.target, self.rater, self.score):
            model, benchmark, instance, axis = self.targets[t]
            yield Rating(instance, self.raters[r], axis, score, model, benchmark, self.clinician[r])

    def add(self, rating: Rating, line: int) -> str | None:
        """Add one rating; a problem (the rater was read as the other kind at an earlier line) instead."""
        return self.add_values(rating.instance_id, rating.rater, rating.axis, rating.score, rating.model,
                               rating.benchmark, rating.clinician, line)

    def add_values(self, instance: str, rater: str, axis: str, score: float, model: str | None,
                   benchmark: str | None, clinician: bool, line: int) -> str | None:
        known = self._raters.get(rater)
        if known is None:
            known = self._raters[rater] = (len(self.raters), line)
            self.raters.append(rater)
            self.clinician.append(clinician)
        elif self.clinician[known[0]] != clinician:
            kinds = ("a judge", "a clinician")
            return (f"rater {rater} is {kinds[clinician]} here and {kinds[not clinician]} at line {known[1]}; one "
                    "rater is one kind")
        key = (model, benchmark, instance, axis)
        index = self._targets.get(key)
        if index is None:
            index = self.new_target(key)
        self.target.append(index)
        self.rater.append(known[0])
        self.score.append(score)
        self.line.append(line)
        return None

    def new_target(self, key: Target) -> int:
        """The index of a target read for the first time; its model, benchmark and axis names kept once."""
        intern = self._text.setdefault
        model, benchmark, instance, axis = key
        key = (None if model is None else intern(model, model),
               None if benchmark is None else intern(benchmark, benchmark), instance, intern(axis, axis))
        index = self._targets[key] = len(self.targets)
        self.targets.append(key)
        return index

    def chains(self) -> tuple[array, array]:
        """Each target's ratings chained in two arrays, never copied into one object each: `head[t]` is the latest
        rating of target t, `chain[i]` the rating of the same target read before rating i (-1 ends a chain).
        Built once (8 bytes a rating) and kept until the table changes."""
        if self._chained is not None and self._chained[0] == len(self.score):
            return self._chained[1], self._chained[2]
        head = array("i", [-1]) * len(self.targets)
        chain = array("i", [-1]) * len(self.score)
        for i, t in enumerate(self.target):
            chain[i], head[t] = head[t], i
        self._chained = (len(self.score), head, chain)
        return head, chain

    def duplicates(self) -> Iterator[tuple[int, int]]:
        """(rating, first rating) for each rating of a target by a rater who rated it before."""
        head, chain, rater = *self.chains(), self.rater
        for t in range(len(self.targets)):
            i, seen = head[t], set()
            while i != -1:
                if rater[i] in seen:
                    break
                seen.add(rater[i])
                i = chain[i]
            if i == -1:  # every rater once: the common case, in one walk
                continue
            order = []
            i = head[t]
            while i != -1:
                order.append(i)
                i = chain[i]
            first: dict[int, int] = {}
            for i in reversed(order):
                if first.setdefault(rater[i], i) != i:
                    yield i, first[rater[i]]


# ------------------------------------------------------------------------------------------------- reading


def _row(path: Path, line: int, get: Callable[[str], Any], problems: Problems, has_kind: bool,
         scale: tuple[float, float] | None) -> Rating | None:
    """One row as a Rating, or None with its problems added. `get(column)` is the row's raw value (None when
    absent)."""
    bad = False
    values: dict[str, str] = {}
    for column in READ_COLUMNS[:3]:
        value = get(column)
        if not isinstance(value, str) or not value.strip():
            problems.add(SHAPE, path, f"`{column}` is missing or empty", line)
            bad = True
        else:
            values[column] = value.strip()
    raw = get("score")
    score: float | None = None
    if isinstance(raw, bool) or raw is None or (isinstance(raw, str) and not raw.strip()):
        problems.add(NOT_A_NUMBER, path, "`score` is missing or not a number", line)
    else:
        try:
            score = float(raw)
        except (TypeError, ValueError, OverflowError):  # a whole number past a float's range is no rating either
            problems.add(NOT_A_NUMBER, path, f"`score` {shown(str(raw)[:40])!r} is not a number", line)
        else:
            low, high = scale or (-MAX_MAGNITUDE, MAX_MAGNITUDE)
            if not math.isfinite(score):
                problems.add(NOT_A_NUMBER, path, "`score` must be a finite number", line)
                score = None
            elif not low <= score <= high:
                where = (f"the scale {low:g} to {high:g} (--scale)" if scale else
                         f"any rating scale (none reaches past {MAX_MAGNITUDE:g} either way)")
                problems.add(NOT_A_NUMBER, path, f"`score` {score:g} is outside {where}", line)
                score = None
    optional: dict[str, str | None] = {}
    for column in ("model", "benchmark"):
        value = get(column)
        if value is not None and not (isinstance(value, str) and value.strip()):
            problems.add(SHAPE, path, f"`{column}`, when given, must be a non-empty text", line)
            bad = True
        optional[column] = value.strip() if isinstance(value, str) and value.strip() else None
    if has_kind:
        kind = get("rater_kind")
        kind = kind.strip().lower() if isinstance(kind, str) else kind
        if kind not in RATER_KINDS:
            problems.add(SHAPE, path, f"`rater_kind` must be {' or '.join(RATER_KINDS)} (the sheet of a person "
                         "who rated says clinician; a jury run's conversion says judge)", line)
            bad = True
        clinician = kind == "clinician"
    else:  # an old file: the name's prefix, as written (no space or line break before it), on a row no model judged
        rater, judge_model = get("rater"), get("judge_model")
        clinician = (isinstance(rater, str) and rater.startswith(CLINICIAN) and rater.isprintable()
                     and not (isinstance(judge_model, str) and judge_model.strip()))
    if bad or score is None:
        return None
    return Rating(values["instance_id"], values["rater"], values["axis"], score, optional["model"],
                  optional["benchmark"], clinician)


def _first_character(handle: Any) -> str:
    """The first character other than whitespace, reading in chunks; the handle is left at the start."""
    while True:
        chunk = handle.read(65536)
        if not chunk or chunk.strip():
            handle.seek(0)
            return chunk.strip()[:1]


class _Reader:
    """One file being read: where its ratings go, its problems, and what to keep."""

    def __init__(self, path: Path, benchmark: str | None, scale: tuple[float, float] | None) -> None:
        self.path, self.benchmark, self.scale = path, benchmark, scale
        self.low, self.high = scale or (-MAX_MAGNITUDE, MAX_MAGNITUDE)
        self.problems = Problems(limit=MAX_PROBLEMS)
        self.table = RatingTable()
        self.has_kind: bool | None = None

    def keep(self, line: int, instance: str, rater: str, axis: str, score: float, model: str | None,
             benchmark: str | None, clinician: bool) -> None:
        if benchmark:
            self.table.benchmarks.add(benchmark)
        if self.benchmark is not None and benchmark != self.benchmark:
            return
        clash = self.table.add_values(instance, rater, axis, score, model, benchmark, clinician, line)
        if clash:
            self.problems.add(SHAPE, self.path, clash, line)

    def putter(self) -> Callable[[int, str, str, str, float, str | None, str | None, bool], None]:
        """`keep` for a plain row, in a few steps when its rater is known and of the same kind (the table's own
        lists, held in the closure); a new rater or a clash of kinds goes through `keep` and its checks."""
        table, keep, wanted = self.table, self.keep, self.benchmark
        raters, kinds, targets, benchmarks = table._raters, table.clinician, table._targets, table.benchmarks
        add_target, add_rater, add_score, add_line = (table.target.append, table.rater.append, table.score.append,
                                                      table.line.append)

        def put(line: int, instance: str, rater: str, axis: str, score: float, model: str | None,
                bench: str | None, clinician: bool) -> None:
            known = raters.get(rater)
            if known is None or kinds[known[0]] != clinician:
                keep(line, instance, rater, axis, score, model, bench, clinician)
                return
            if bench:
                benchmarks.add(bench)
            if wanted is None or bench == wanted:
                key = (model, bench, instance, axis)
                at = targets.get(key)
                add_target(table.new_target(key) if at is None else at)
                add_rater(known[0])
                add_score(score)
                add_line(line)

        return put

    def row(self, line: int, get: Callable[[str], Any]) -> None:
        """A row read field by field, every problem located."""
        rating = _row(self.path, line, get, self.problems, bool(self.has_kind), self.scale)
        if rating is not None:
            self.keep(line, rating.instance_id, rating.rater, rating.axis, rating.score, rating.model,
                      rating.benchmark, rating.clinician)

    def json_lines(self, handle: Any) -> None:
        path, problems, low, high, loads, put = self.path, self.problems, self.low, self.high, json.loads, self.putter()
        for number, line in enumerate(iter(lambda: handle.readline(MAX_LINE + 1), ""), 1):
            if len(line) > MAX_LINE and not line.endswith("\n"):
                problems.add(UNREADABLE, path, f"a line over {MAX_LINE:,} characters; no rating is that long", number)
                while line and not line.endswith("\n"):  # the rest of the line, a chunk at a time
                    line = handle.readline(MAX_LINE + 1)
                continue
            if not line.strip():
                continue
            try:
                obj = loads(line)
            except RecursionError:
                problems.add(UNREADABLE, path, "not a rating (nested too deep)", number)
                continue
            except ValueError as exc:
                problems.add(UNREADABLE, path, f"not a JSON object ({getattr(exc, 'msg', exc)})", number)
                continue
            if not isinstance(obj, dict):
                problems.add(SHAPE, path, "not a JSON object", number)
                continue
            if self.has_kind is None:  # the first object decides for the file
                self.has_kind = "rater_kind" in obj
            elif not self.has_kind and "rater_kind" in obj:  # who rated is never read from a name beside a kind
                problems.add(SHAPE, path, "rater_kind is given here but not on the file's first line: give it on "
                             "every line, or on none (then a `clinician:` name marks a clinician)", number)
                continue
            # The plain row, kept at once (as in csv_rows); anything else is read field by field by `row`.
            get = obj.get
            instance, rater, axis, score, model, bench = (get("instance_id"), get("rater"), get("axis"),
                                                          get("score"), get("model"), get("benchmark"))
            if (type(instance) is str and type(rater) is str and type(axis) is str and type(score) in (int, float)
                    and (model is None or type(model) is str) and (bench is None or type(bench) is str)
                    and low <= score <= high):
                instance, rater, axis = instance.strip(), rater.strip(), axis.strip()
                model = model.strip() if model is not None else None
                bench = bench.strip() if bench is not None else None
                if instance and rater and axis and model != "" and bench != "":
                    if self.has_kind:
                        kind = get("rater_kind")
                        clinician, plain = kind == "clinician", kind in RATER_KINDS
                    else:
                        raw, judge_model = obj["rater"], get("judge_model")
                        clinician = (raw.startswith(CLINICIAN) and raw.isprintable()
                                     and not (isinstance(judge_model, str) and judge_model.strip()))
                        plain = True
                    if plain:
                        put(number, instance, rater, axis, float(score), model, bench, clinician)
                        continue
            self.row(number, get)

    def csv_rows(self, handle: Any) -> None:
        path, problems, table = self.path, self.problems, self.table
        reader = csv.reader(handle)
        try:
            header = [h.strip() for h in next(reader, [])]
        except csv.Error as exc:
            problems.add(UNREADABLE, path, f"the header cannot be read: {shown(exc)}", 1)
            return
        missing = [c for c in READ_COLUMNS if c not in header]
        if missing:
            problems.add(SHAPE, path, f"the header lacks {', '.join(missing)} (it needs {', '.join(READ_COLUMNS)})",
                         1)
            return
        index = {name: i for i, name in reversed(list(enumerate(header)))}  # a repeated column: its first
        self.has_kind = "rater_kind" in index
        table.kinds_from = "rater_kind" if self.has_kind else "names"
        i_id, i_rater, i_axis, i_score, i_model, i_bench, i_kind, i_judge = (index.get(c) for c in (
            "instance_id", "rater", "axis", "score", "model", "benchmark", "rater_kind", "judge_model"))
        width = max(i for i in index.values()) + 1
        low, high, put = self.low, self.high, self.putter()
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:  # a field over MAX_FIELD, or a quote left open: nothing after it can be trusted
                problems.add(UNREADABLE, path, f"cannot read on from here: {shown(exc)} (a field holds at most "
                             f"{MAX_FIELD:,} characters)", reader.line_num)
                return
            if not row:
                continue
            line = reader.line_num
            # The plain row, read at once: every required field there, none escaped, the score a number in range
            # and the rater's kind one of the two. Anything else goes the long way, which says what is wrong.
            if len(row) >= width:
                instance, rater, axis = row[i_id].strip(), row[i_rater].strip(), row[i_axis].strip()
                model = row[i_model].strip() if i_model is not None else None
                bench = row[i_bench].strip() if i_bench is not None else None
                if (instance and rater and axis and model != "" and bench != "" and "'" not in (
                        instance[0], rater[0], axis[0], (model or "_")[0], (bench or "_")[0])):
                    try:
                        score = float(row[i_score])
                    except ValueError:
                        score = math.nan
                    if low <= score <= high:
                        if i_kind is not None:
                            kind = row[i_kind].strip().lower()
                            clinician, plain = kind == "clinician", kind in RATER_KINDS
                        else:
                            raw = row[i_rater]
                            clinician = (raw.startswith(CLINICIAN) and raw.isprintable()
                                         and not (i_judge is not None and row[i_judge].strip()))
                            plain = True
                        if plain:
                            put(line, instance, rater, axis, score, model, bench, clinician)
                            continue

            def get(column: str, row: list[str] = row) -> Any:
                i = index.get(column)
                return csv_uncell(row[i]) if i is not None and i < len(row) else None

            self.row(line, get)


def read_ratings(path: Path, benchmark: str | None = None, scale: tuple[float, float] | None = None) -> RatingTable:
    """The ratings in a CSV file (a header with the columns instance_id, rater, axis, score and optionally
    rater_kind, model, judge_model and benchmark) or a JSON lines file (one object per line with those keys), read
    a line at a time; with `benchmark`, only that benchmark's ratings are kept (`benchmarks` names every one). A
    score must be finite and inside `scale` (or, without it, within MAX_MAGNITUDE either way). Raises RatingsError
    with every problem located by line (the first MAX_PROBLEMS of them, and a count of the rest)."""
    reader = _Reader(path, benchmark, scale)
    problems, table = reader.problems, reader.table
    previous_limit = csv.field_size_limit(MAX_FIELD)
    try:
        # a FIFO or a device is refused before it is read (open_regular), a folder too
        with io.TextIOWrapper(open_regular(path), encoding="utf-8-sig", newline="") as handle:
            if _first_character(handle) == "{":
                reader.json_lines(handle)
                table.kinds_from = "rater_kind" if reader.has_kind else "names"
            else:
                reader.csv_rows(handle)
    except OSError as exc:
        problems.add(UNREADABLE, path, f"cannot read it: {exc.strerror or exc}")
    except UnicodeDecodeError:
        problems.add(UNREADABLE, path, "not UTF-8 text")  # decoded a chunk at a time: the line is not known
    finally:
        csv.field_size_limit(previous_limit)
    if not problems.texts:
        for i, first in table.duplicates():
            _, _, instance, axis = table.targets[table.target[i]]
            problems.add(DUPLICATE, path, f"a second score by {table.raters[table.rater[i]]} for instance {instance}, "
                         f"axis {axis} (the first is at line {table.line[first]})", table.line[i])
    if not problems.texts and not len(table) and benchmark is None:
        problems.add(SHAPE, path, "no ratings")
    if problems.more:
        problems.add(SHAPE, path, f"{problems.more} more problem(s) not listed")
    if problems.texts:
        raise RatingsError(problems)
    return table


# ------------------------------------------------------------------------------------------------- writing


def ratings_text(rows: list[dict[str, Any]], fmt: str) -> str:
    """The ratings file: CSV with a header, or JSON lines; rows in (model, instance, rater, axis) order. Names and
    ids come from the runs read, which anyone can write: a CSV cell is one line and never a formula (the reversible
    escape `read_ratings` undoes), and a JSON line escapes every non-printable character."""
    ordered = sorted(rows, key=lambda r: (r["benchmark"], r["model"], r["instance_id"], r["rater"], r["axis"]))
    if fmt == "jsonl":
        return "".join(to_json({c: r[c] for c in COLUMNS}, indent=None) + "\n" for r in ordered)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in ordered:
        writer.writerow([_number(row[c]) if c == "score" else csv_cell(row[c], reversible=True) for c in COLUMNS])
    return buffer.getvalue()


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)
