"""`clinreg results import`: gather scores from every SOURCE, check them against the registry, and build the
normalised results document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clinreg.core.store import Registry
from clinreg.results.accumulate import Findings, Reading
from clinreg.results.aliases import load_aliases, merge_names
from clinreg.results.detect import read_source
from clinreg.results.index import BenchmarkIndex
from clinreg.results.provenance import export_of, fill_exports
from clinreg.results.resultsfile import RESULTS_FORMAT
from clinreg.results.score import ReportedWinRate, Score

RANGE_SLACK = 1e-9


def collect(reg: Registry, sources: list[Path], exports: list[Path] | None = None,
            aliases: dict[tuple[str, str], str] | None = None) -> tuple[list[Score], list[ReportedWinRate], Findings]:
    """Every score of every source, each checked: a declared range, a value inside it, one score per model and
    benchmark; each harness score's export found among `exports` (folders with a manifest.json) and those its run
    names."""
    reading = Reading(BenchmarkIndex(reg))
    for path in sources:
        read_source(reading, path)
    findings = reading.findings
    folders = [str(p) for p in exports or []] + sorted(reading.export_folders - {str(p) for p in exports or []})
    found = []
    for folder in folders:
        export = export_of(Path(folder))
        if export is None:
            findings.add("CLR961", folder, 1, 1, "no readable manifest.json: not a folder `clinreg export` wrote")
        else:
            found.append(export)
    fill_exports(reading.scores, found)
    findings.merged = merge_names(reading.scores, reading.reported, aliases if aliases is not None else load_aliases())
    kept: list[Score] = []
    first: dict[tuple[str, str], Score] = {}
    missing_range: set[str] = set()
    for score in reading.scores:
        where = (score.source.get("via") or score.source["file"], score.source.get("line", 1),
                 score.source.get("column", 1))
        if score.range is None or not score.range[0] < score.range[1]:
            if score.key not in missing_range:
                missing_range.add(score.key)
                sf = reg.dataset_files.get(score.record)
                line, column = sf.where("mappings", 0, "metric") if sf else (1, 1)
                findings.add("CLR968", sf.rel if sf else score.record, line, column,
                             f"{score.key} has scores but its metric declares no usable range (min below max), "
                             "so they cannot be rescaled",
                             "add metric.range, e.g. [0, 1] for a share or [1, 5] for a jury score")
            continue
        lo, hi = score.range
        if not lo - RANGE_SLACK <= score.value <= hi + RANGE_SLACK:
            findings.add("CLR966", *where, f"{score.key} for {score.model}: {score.value} is outside the metric's "
                         f"range [{lo:g}, {hi:g}]", "check that the column holds the main metric, not a percentage")
            continue
        seen = first.get((score.model, score.key, score.published))
        if seen is not None:
            findings.add("CLR967", *where, f"{score.model} already has a score for {score.key} "
                         f"(from {seen.source.get('via') or seen.source['file']}:{seen.source.get('line', 1)})")
            continue
        first[(score.model, score.key, score.published)] = score
        kept.append(score)
    kept = keep_releases_apart(kept, reading.reported, findings)
    kept.sort(key=lambda s: (s.model, s.key))
    return kept, reading.reported, findings


YOURS = " (yours)"


def keep_releases_apart(scores: list[Score], reported: list[ReportedWinRate], findings: Findings) -> list[Score]:
    """Keep every origin's numbers in rows of their own: a row holds one published release's scores, or yours.

    - two published releases are two cohorts: every model of a release involved is renamed `<model> [<release id>]`,
      with one CLR967 warning per pair of releases naming both;
    - your result for a model a published release on the board also has (after aliases) is renamed
      `<model> (yours)`: it stands beside the release's row, which keeps exactly the release's numbers.
    """
    origins: dict[tuple[str, str], dict[str | None, Score]] = {}
    for score in scores:
        origins.setdefault((score.model, score.key), {})[score.published] = score
    pairs: dict[tuple[str, str], list[tuple[Score, Score]]] = {}
    for by_origin in origins.values():
        releases = sorted(r for r in by_origin if r is not None)
        for a, b in zip(releases, releases[1:]):
            pairs.setdefault((a, b), []).append((by_origin[a], by_origin[b]))
    renamed = {release for pair in pairs for release in pair}
    for (a, b), both in sorted(pairs.items()):
        sa, sb = both[0]
        where = (sb.source.get("via") or sb.source["file"], sb.source.get("line", 1), sb.source.get("column", 1))
        count = f"{len(both)} score(s) of {len({s.model for s, _ in both})} model(s)"
        file_a, file_b = (sa.source.get("via") or sa.source["file"]), (sb.source.get("via") or sb.source["file"])
        findings.add("CLR967", *where, f"{count} are in both published release {a} ({file_a}) and published release "
                     f"{b} ({file_b}); kept apart: each release's models are named `<model> [<release>]`",
                     severity="warning")
    published_models = {s.model for s in scores if s.published}
    for score in scores:
        if score.published in renamed:
            score.model = f"{score.model} [{score.published}]"
        elif score.published is None and score.model in published_models:
            score.model = f"{score.model}{YOURS}"
    for r in reported:
        release = r.source.get("published")
        if release in renamed:
            r.model = f"{r.model} [{release}]"
    return scores


def results_document(reg: Registry, scores: list[Score], reported: list[ReportedWinRate],
                     stand_ins: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The normalised results file: one entry per model and benchmark, with scale, instances and source. Stand-ins
    (token overlap where the benchmark's metric is a jury's) sit apart, under `stand_ins`, and are never ranked."""
    return {
        "clinreg_results": RESULTS_FORMAT,
        "registry": {"release": reg.current_release},
        "models": sorted({s.model for s in scores}),
        "benchmarks": sorted({s.key for s in scores}),
        "scores": [s.to_dict() for s in scores],
        "reported_win_rates": [r.to_dict() for r in reported],
        "stand_ins": sorted(stand_ins or [], key=lambda x: (x["model"], x["record"], x["mapping"])),
    }


_SCORES = "\u0000scores\u0000"


def results_text(document: dict[str, Any]) -> str:
    """The results file as text: indented JSON with one score per line, so that a file of thousands of models
    stays a fraction of its indented size and each score is still one line to read or edit by hand."""
    from clinreg.text.output import to_json

    scores = document["scores"]
    frame = to_json({**document, "scores": _SCORES})
    lines = ",\n    ".join(to_json(score, indent=None) for score in scores)
    body = f"[\n    {lines}\n  ]" if scores else "[]"
    return frame.replace(to_json(_SCORES), body, 1)
