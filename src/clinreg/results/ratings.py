"""Each judge's per-instance ratings out of real jury runs, for `clinreg jury agreement`: the exported Inspect
tasks' jury scorer (each sample's score metadata holds `ratings`, {judge: {axis: rating}}, and `jury`, the judges'
models) and HELM run folders (each request state's annotations hold, under the jury annotator's name, every
judge's reply that HELM's annotator kept, {axis: {score, explanation}}).

A row is one rating the jury score counted: instance_id, rater (the judge's name in the jury, e.g. `gpt`), axis,
score, model (the model whose answer was rated), judge_model (the model that judged) and benchmark (the run's
benchmark as the harness names it: Inspect's task, HELM's run name without its model), since two benchmarks'
runs number their instances alike. An instance no judge
rated (an empty answer, or no usable reply) has no row: its jury score is MedHELM's default, not a rating. The
file is written, and a HELM reply's scores are counted, by clinreg.scoring.ratings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from clinreg.core.diagnostics import Diagnostic
from clinreg.errors import ClinregError
from clinreg.results.detect import harness_files
from clinreg.results.helm import run_folders
from clinreg.results.inspect_logs import eval_members, judged_lm_eval
from clinreg.results.jsonstream import NOT_AN_OBJECT, stream_members
from clinreg.results.strictinput import MAX_TEXT_BYTES, Unreadable, finite_number, parse_json, read_text
from clinreg.scoring.ratings import (
    COLUMNS, DUPLICATE, NOT_A_NUMBER, SHAPE, UNREADABLE, Problems, ratings_text, whole_rating,
)

__all__ = ["COLUMNS", "Collected", "collect_ratings", "ratings_text"]

MAX_SCENARIO_STATE = 512 * 1024 * 1024
MAX_RECORD = 64 * 1024 * 1024  # one request state or sample, as text: memory follows the largest one, not the file


@dataclass
class Collected:
    """The ratings read, the runs they came from, and every problem (located) with an input left out: `problems`
    as text, `diagnostics` the same with their catalogue codes."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    found: Problems = field(default_factory=Problems)
    notes: list[str] = field(default_factory=list)
    where: list[str] = field(default_factory=list)  # the file of each row, while reading
    skipped: int = 0  # runs and files found in a folder that hold no jury ratings

    @property
    def problems(self) -> list[str]:
        return self.found.texts

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.found.diagnostics

    def problem(self, code: str, file: str | Path, message: str, line: int | None = None,
                column: int | None = None) -> None:
        """A problem with an input, which is left out: a warning."""
        self.found.add(code, file, message, line, column, severity="warning")


def collect_ratings(sources: list[Path]) -> Collected:
    """The ratings in every SOURCE: an Inspect `.eval` or `.json` log, a HELM run folder or suite folder, or a
    folder holding Inspect logs. A source that holds no jury ratings, or cannot be read, is a problem."""
    out = Collected()
    for source in sources:
        try:
            if source.is_dir():
                folders = run_folders(source)
                for folder in folders:
                    _located(out, _helm_run, folder, scanned=folder != source)
                # Inspect logs beside them, bounded in depth and count (links and hidden entries skipped); the
                # HELM run folders' own JSON files are theirs.
                logs = [p for p in harness_files(source) if not any(f in p.parents for f in folders)]
                if not logs and not folders:
                    out.problem(SHAPE, source, "no HELM run folder and no Inspect log (.eval, .json) in it")
                for log in logs:
                    _located(out, _inspect, log, scanned=True)
            elif source.suffix in (".eval", ".json"):
                _located(out, _inspect, source)
            elif not source.exists():
                out.problem(UNREADABLE, source, "no such file or folder")
            else:
                out.problem(SHAPE, source, "expected an Inspect .eval or .json log, or a HELM run folder")
        except Unreadable as exc:
            out.problem(UNREADABLE, source, str(exc), exc.line, exc.column)
        except OSError as exc:
            out.problem(UNREADABLE, source, f"cannot read it: {exc.strerror or exc}")
    seen: dict[tuple[str, str, str, str, str], str] = {}
    kept = []
    for row, where in zip(out.rows, out.where):
        key = (row["benchmark"], row["instance_id"], row["rater"], row["axis"], row["model"])
        if key in seen:
            out.problem(DUPLICATE, where, f"{row['model']} on {row['benchmark']} instance {row['instance_id']} is "
                        f"rated again by {row['rater']} on {row['axis']} (first in {seen[key]}); the first is kept")
            continue
        seen[key] = where
        kept.append(row)
    out.rows, out.where = kept, []
    if out.skipped:
        out.notes.append(f"{out.skipped} run(s) or file(s) found in the folders given hold no jury ratings; skipped")
    served: dict[str, set[str]] = {}
    for row in out.rows:
        served.setdefault(row["rater"], set()).add(row["judge_model"])
    for rater, models in sorted(served.items()):
        if len(models) > 1:
            out.notes.append(f"judge {rater} is served by {len(models)} models across these runs "
                             f"({', '.join(sorted(models))}); its ratings are read as one rater's")
    return out


class _FileProblem(ClinregError):
    """A file of a source that cannot be read (the file, line and column where)."""

    default_code = UNREADABLE


def _read_json(path: Path, limit: int | None = None, constants: bool = False) -> Any:
    try:
        return parse_json(read_text(path, limit) if limit else read_text(path), constants=constants)
    except Unreadable as exc:
        raise _FileProblem(str(exc), file=str(path), line=exc.line, column=exc.column) from None


def _located(out: Collected, read: Any, path: Path, scanned: bool = False) -> None:
    """Run a reader on one run or log; a file it cannot read is a located problem, and the next is read. A run
    found in a folder (`scanned`) that holds no jury ratings is counted as skipped, not a problem."""
    try:
        read(out, path, scanned)
    except _FileProblem as exc:
        out.problem(exc.code or UNREADABLE, exc.file or path, exc.message, exc.line, exc.column)
    except Unreadable as exc:
        out.problem(UNREADABLE, path, str(exc), exc.line, exc.column)


def _add(out: Collected, where: str, benchmark: str, instance: str, model: str, judges: dict[str, str],
         ratings: dict[str, Any], whole: bool = False) -> int:
    """Rows for one instance's {judge: {axis: rating}}; the number added. With `whole`, each rating is a judge's
    score as its reply gives it, counted by HELM's whole-number rule (`whole_rating`) as the jury scorer counts
    it; else a rating the scorer already counted, which must be a number."""
    added = 0
    for judge, by_axis in ratings.items():
        if not isinstance(by_axis, dict):
            continue
        for axis, raw in by_axis.items():
            if whole:
                rating, problem = whole_rating(raw)
                score = None if problem else float(rating)
            else:
                score = None if isinstance(raw, bool) else finite_number(raw)
            if score is None:
                out.problem(NOT_A_NUMBER, where, f"instance {instance}, judge {judge}, axis {axis}: "
                            f"{str(raw)[:40]!r} is not a number; left out")
                continue
            out.rows.append({"instance_id": instance, "rater": str(judge), "rater_kind": "judge", "axis": str(axis),
                             "score": score, "model": model, "judge_model": judges.get(str(judge), str(judge)),
                             "benchmark": benchmark})
            out.where.append(where)
            added += 1
    return added


# ------------------------------------------------------------------------------------------------- Inspect


def _no_jury(out: Collected, scanned: bool, file: str | Path, problem: str) -> None:
    if scanned:
        out.skipped += 1
    else:
        out.problem(SHAPE, file, problem)


def _inspect_members(path: Path) -> Iterator[tuple[str, Any, bool]]:
    """An Inspect log's header members and samples, one at a time: (key, value, False) for the header's members
    (`eval`, `status`, ...) and ("samples", sample, True) for each sample. A `.eval` archive is read a member at a
    time, a `.json` log an element at a time: memory is one sample, not the log."""
    if path.suffix == ".eval":
        for name, value in eval_members(path, whole_samples=True):
            if name == "header.json":
                for key, item in (value.items() if isinstance(value, dict) else ()):
                    yield key, item, False
            else:
                yield "samples", value, True
    else:
        yield from stream_members(path, "samples", MAX_TEXT_BYTES, MAX_RECORD, constants=True)


def _inspect(out: Collected, path: Path, scanned: bool = False) -> None:
    header: dict[str, Any] = {}
    staged = Collected()  # this log's rows and problems, kept apart: its header (the model, the status) may follow
    added, instances, scorer_names = 0, 0, set()
    try:
        for key, value, is_sample in _inspect_members(path):
            if not is_sample:
                if key in ("eval", "status"):  # all of the header this reads; the rest is dropped as it comes
                    header[key] = value
                continue
            sample = value
            if not isinstance(sample, dict):
                continue
            scores = sample.get("scores") if isinstance(sample.get("scores"), dict) else {}
            for scorer, entry in scores.items():
                metadata = entry.get("metadata") if isinstance(entry, dict) else None
                if not (isinstance(metadata, dict) and isinstance(metadata.get("ratings"), dict)
                        and isinstance(metadata.get("jury"), dict)):
                    continue
                scorer_names.add(scorer)
                judges = metadata["jury"].get("judges")
                judges = {str(k): str(v) for k, v in judges.items()} if isinstance(judges, dict) else {}
                epoch = sample.get("epoch")
                instance = str(sample.get("id"))
                if isinstance(epoch, int) and epoch != 1:
                    instance = f"{instance}#epoch{epoch}"
                instances += 1
                added += _add(staged, str(path), "", instance, "", judges, metadata["ratings"])
    except Unreadable as exc:
        if exc.kind == NOT_AN_OBJECT:
            _no_jury(out, scanned, path, "not an Inspect log (not a JSON object)")
            return
        raise _FileProblem(str(exc), file=str(path), line=exc.line, column=exc.column) from None
    info = header.get("eval") if isinstance(header.get("eval"), dict) else None
    if info is None:
        _no_jury(out, scanned, path, "not an Inspect log (no `eval`)")
        return
    model = info.get("model")
    if not isinstance(model, str) or not model.strip():
        out.problem(SHAPE, path, "an Inspect log needs eval.model")
        return
    judged = judged_lm_eval(info)
    model = judged["model"] if judged else model.strip()
    if header.get("status") != "success":
        out.problem(SHAPE, path, f"the log's status is {str(header.get('status'))[:40]!r}, not success; left out")
        return
    if not scorer_names:
        _no_jury(out, scanned, path, "no sample holds a jury scorer's ratings (score metadata `ratings` and "
                 "`jury`): not a jury task exported by clinreg, or a log with no samples")
        return
    benchmark = str(info.get("task") or path.stem)
    for row in staged.rows:
        row["model"], row["benchmark"] = model, benchmark
    out.rows.extend(staged.rows)
    out.where.extend(staged.where)
    out.found.texts.extend(staged.found.texts)
    out.found.diagnostics.extend(staged.found.diagnostics)
    out.runs.append({"file": str(path), "harness": "inspect", "model": model, "task": info.get("task"),
                     "instances": instances, "ratings": added})


# ---------------------------------------------------------------------------------------------------- HELM


def _helm_run(out: Collected, folder: Path, scanned: bool = False) -> None:
    spec = _read_json(folder / "run_spec.json")
    adapter = spec.get("adapter_spec") if isinstance(spec, dict) else None
    model = adapter.get("model") if isinstance(adapter, dict) else None
    if not isinstance(model, str) or not model.strip():
        out.problem(SHAPE, folder / "run_spec.json", "needs adapter_spec.model")
        return
    judges: dict[str, str] = {}
    for annotator in spec.get("annotators") or [] if isinstance(spec.get("annotators"), list) else []:
        args = annotator.get("args") if isinstance(annotator, dict) else None
        models = args.get("annotator_models") if isinstance(args, dict) else None
        if isinstance(models, dict):
            judges = {str(k): str(v.get("model_name")) for k, v in models.items() if isinstance(v, dict)}
            break
    if not judges:
        _no_jury(out, scanned, folder / "run_spec.json", "no LLM-jury annotator with annotator models: "
                 "not a jury run; left out")
        return
    state_file = folder / "scenario_state.json"
    benchmark, added, states, listed = _helm_benchmark(spec, folder), 0, 0, False
    try:  # a request state at a time: memory is the largest one, not the file (up to MAX_SCENARIO_STATE)
        for key, state, element in stream_members(state_file, "request_states", MAX_SCENARIO_STATE, MAX_RECORD):
            if key != "request_states":
                continue
            listed = element or (isinstance(state, list) and not state)
            if not element:
                continue
            states += 1
            added += _helm_state(out, state_file, state, judges, benchmark, model.strip())
    except Unreadable as exc:
        raise _FileProblem(str(exc), file=str(state_file), line=exc.line, column=exc.column) from None
    if not listed:
        out.problem(SHAPE, state_file, "needs request_states (a list)")
        return
    out.runs.append({"file": str(folder), "harness": "helm", "model": model.strip(),
                     "run": spec.get("name"), "instances": states, "ratings": added})


def _helm_state(out: Collected, state_file: Path, state: Any, judges: dict[str, str], benchmark: str,
                model: str) -> int:
    """The ratings of one request state: each judge's reply that HELM's annotator kept."""
    instance = state.get("instance") if isinstance(state, dict) else None
    annotations = state.get("annotations") if isinstance(state, dict) else None
    if not isinstance(instance, dict) or not isinstance(annotations, dict):
        return 0
    instance_id = str(instance.get("id"))
    trial = state.get("train_trial_index")
    if isinstance(trial, int) and trial:
        instance_id = f"{instance_id}#trial{trial}"
    added = 0
    for annotation in annotations.values():  # the jury annotator's entry holds each judge's reply by name
        if not isinstance(annotation, dict):
            continue
        replies = {j: annotation[j] for j in judges if isinstance(annotation.get(j), dict)}
        # As HELM's metric reads a kept reply: every entry's `score`, as a whole number (whole_rating).
        ratings = {j: {axis: v.get("score") if isinstance(v, dict) else None
                       for axis, v in reply.items()} for j, reply in replies.items()}
        added += _add(out, str(state_file), benchmark, instance_id, model, judges, ratings, whole=True)
    return added


def _helm_benchmark(spec: dict[str, Any], folder: Path) -> str:
    """The run's name without its model: `aci_bench` for MedHELM's `aci_bench:model=…`, `clinreg:mapping=aci_bench`
    for an export's run."""
    name = str(spec.get("name") or folder.name)
    head, _, args = name.partition(":")
    kept = [a for a in args.split(",") if a and not a.startswith(("model=", "model_deployment="))]
    return f"{head}:{','.join(kept)}" if kept else head
