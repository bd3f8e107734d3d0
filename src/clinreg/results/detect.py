"""Detect what a SOURCE holds and hand it to its reader: a HELM run folder or CSV, a harness log folder, an Inspect
`.eval`, or a JSON document told apart by its keys; failures become findings.

Every input is untrusted: sizes are capped, JSON is parsed strictly (no NaN, no duplicate keys, bounded depth),
numbers must be finite, and each problem becomes a located, rule-coded finding instead of an exception.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clinreg.results.accumulate import Reading
from clinreg.results.every_eval_ever import is_eee_record, read_every_eval_ever
from clinreg.results.helm import read_helm_csv, read_helm_groups, read_helm_runs, run_folders
from clinreg.results.inspect_logs import read_inspect_eval, read_inspect_log
from clinreg.results.lm_eval import read_lm_eval
from clinreg.results.published import release_by_text
from clinreg.results.resultsfile import read_clinreg_results
from clinreg.results.strictinput import JSON_CONSTANT, Unreadable, parse_json, read_text

__all__ = ["read_source"]


# --------------------------------------------------------------------------------------------- dispatch


def read_source(reading: Reading, path: Path) -> None:
    """Read one SOURCE (file or HELM run folder) into `reading`, adding findings for whatever is wrong."""
    name = str(path)
    try:
        if path.is_dir():
            if run_folders(path):
                read_helm_runs(reading, path)
                return
            found = harness_files(path)
            if not found:
                reading.error("CLR962", name, 1, 1, "no HELM run folder, Inspect log (.eval, .json), lm-eval "
                              "results_*.json or Every Eval Ever record in this folder")
            for file in found:
                read_source(reading, file)
            return
        if path.exists() and not path.is_file():  # a FIFO, a device or a socket: never opened, whatever its name
            raise Unreadable("not a regular file or a folder (a FIFO, a device or a socket); not read")
        suffix = path.suffix.casefold()
        if suffix == ".csv":
            text = read_text(path)
            first, first_reported = len(reading.scores), len(reading.reported)
            read_helm_csv(reading, name, text)
            release = release_by_text(text)
            if release is not None:  # a published leaderboard's CSV as its source holds it: say which release
                mark_published(reading, release, first, first_reported)
        elif suffix == ".eval":
            read_inspect_eval(reading, path)
        elif suffix == ".json":
            text = read_text(path)
            try:
                data = parse_json(text)
            except Unreadable as exc:
                # An Inspect log writes an undefined metric as NaN; only there is a NaN read (as null).
                if exc.kind != JSON_CONSTANT or not _inspect_log_text(text):
                    raise
                data = parse_json(text, constants=True)
            read_json_document(reading, name, text, data)
        elif not path.exists():
            raise Unreadable("no such file or folder")
        else:
            raise Unreadable("unknown kind of results: expected a .csv, .json or .eval file, or a HELM run folder")
    except Unreadable as exc:
        reading.error("CLR961", name, exc.line, exc.column, str(exc))
    except OSError as exc:  # a folder or file that vanished or cannot be listed or opened midway
        reading.error("CLR961", name, 1, 1, f"cannot read it: {exc.strerror or exc}")


def mark_published(reading: Reading, release: dict[str, Any], first: int, first_reported: int) -> None:
    """Tag the scores and win rates read since `first` as the published release's, with its provenance."""
    named = "{repository}@{commit}:{file}".format(**release["source"])
    provenance = {"harness": "helm", "published": {"id": release["id"], "date": release["date"], "source": named}}
    if release.get("edition"):
        provenance["edition"] = release["edition"]
    for score in reading.scores[first:]:
        score.provenance = {**provenance, **(score.provenance or {})}
    for reported in reading.reported[first_reported:]:
        reported.source["published"] = release["id"]


def _inspect_log_text(text: str) -> bool:
    """Whether a JSON text opens as an Inspect log does: a `version` and then an `eval` object near the start."""
    head = text[:2000]
    return '"eval"' in head and '"version"' in head and '"clinreg_results"' not in head


MAX_FOLDER_FILES = 10_000
MAX_FOLDER_DEPTH = 5  # an Every Eval Ever datastore: data/<benchmark>/<developer>/<model>/<uuid>.json
SKIPPED_JSON = {"logs.json", "listing.json"}  # Inspect's log-folder index files, not logs


def harness_files(folder: Path) -> list[Path]:
    """The result files a harness leaves in a folder: Inspect's log folder (`*.eval`, `*.json` logs), lm-eval's
    --output_path (`<model>/results_*.json`) and an Every Eval Ever datastore (`data/.../<uuid>.json`), in path
    order; links and hidden entries are not followed."""
    found: list[Path] = []
    level = [folder]
    for _ in range(MAX_FOLDER_DEPTH):
        below = []
        for directory in level:
            for entry in sorted(directory.iterdir()):
                if entry.name.startswith(".") or entry.is_symlink():
                    continue
                if entry.is_dir():
                    below.append(entry)
                elif entry.suffix == ".eval" or (entry.suffix == ".json" and entry.name not in SKIPPED_JSON
                                                  and not entry.name.startswith("samples_")):
                    found.append(entry)
                if len(found) > MAX_FOLDER_FILES:
                    raise Unreadable(f"more than {MAX_FOLDER_FILES} result files; pass fewer at a time")
        level = below
    return sorted(found)


def read_json_document(reading: Reading, name: str, text: str, data: Any) -> None:
    if isinstance(data, list) and any(isinstance(t, dict) and "header" in t and "rows" in t for t in data):
        read_helm_groups(reading, name, text, data)
    elif isinstance(data, dict) and "clinreg_results" in data:
        read_clinreg_results(reading, name, text, data)
    elif is_eee_record(data):
        read_every_eval_ever(reading, name, text, data)
    elif isinstance(data, dict) and isinstance(data.get("eval"), dict) and "version" in data:
        read_inspect_log(reading, name, text, data, samples=data.get("samples"))
    elif isinstance(data, dict) and isinstance(data.get("results"), dict):
        read_lm_eval(reading, name, text, data)
    else:
        reading.error("CLR962", name, 1, 1, "not a results file clinreg knows: expected a clinreg results file "
                      "(`clinreg_results`), an lm-eval results_*.json (`results`), an Inspect log (`eval`), a "
                      "helm-summarize groups/<group>.json or an Every Eval Ever record (`schema_version`, "
                      "`evaluation_results`)")
