"""Whether the scores on one benchmark can be compared: the same metric, harness, export (prompts and instances),
instance set, MedHELM edition, generation settings and jury. The metric differs where a benchmark has two scores
under two names (HealthBench: MedHELM's health_bench_score and the authors' healthbench_simple_evals_score): such
scores are never comparable, whatever else they share. A leaderboard still ranks scores that differ, but
marks each one that differs from its benchmark's majority and says what differs; `--comparable-only` keeps, per
benchmark, only the largest group of scores that agree on all of them.

An unknown value (a source that does not say) is a value of its own: a score whose instance set is unknown is
not shown to share a known one.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from clinreg.core.store import Registry
from clinreg.instances.figures import contamination_view, overlap_words
from clinreg.results.score import Score

# (key, words): the provenance that makes two scores on one benchmark comparable, in the order they are named.
DIMENSIONS = (("metric", "metric"), ("harness", "harness"), ("export", "export (prompts and instances)"),
              ("instance_set", "instance set"), ("edition", "MedHELM edition"), ("generation", "generation settings"),
              ("jury", "jury"))
WORDS = dict(DIMENSIONS)


def dimension(score: Score, key: str) -> str | None:
    """The score's value on one dimension, as text; None when its source does not say. An instance set is its
    hash where the source gives the ids, else its count (`1,000 instances`) where the source gives it (a
    release's is MedHELM's evaluated count)."""
    if key == "jury":
        return score.jury_key
    if key == "metric":  # always known: the benchmark's main metric unless the score names another
        return score.metric
    value = (score.provenance or {}).get(key)
    # The registry's count is MedHELM's evaluated count: a release's own; for your results that do not say, the
    # set is unknown, never "the same" as the release's.
    counted = score.n_instances_from != "registry" or score.published
    if key == "instance_set" and not value and score.n_instances is not None and counted:
        return f"{score.n_instances:,} instances"
    if value is None or value == {}:
        return None
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def profile(score: Score) -> tuple[str | None, ...]:
    return tuple(dimension(score, key) for key, _ in DIMENSIONS)


def _majority(values: list[Any]) -> Any:
    """The most common value; a tie goes to the known one that sorts first (unknown last)."""
    counts = Counter(values)
    return min(counts, key=lambda v: (-counts[v], v is None, str(v)))


def _where(score: Score) -> str:
    """Where a score was read: its published release id, else its file."""
    return score.published or str(score.source.get("via") or score.source.get("file"))


def side_words(score: Score) -> str:
    """Whose a score is, as a row's mark says it: `your run` or `the release's`."""
    return f"{score.published}'s" if score.published else "your run's"


def _short(value: str | None) -> str:
    if value is None:
        return "unknown"
    return value if len(value) <= 60 else value[:57] + "..."


def differs_words(mark: dict[str, Any], score: Score) -> str:
    """A mark in words, naming which side differs and from what: `your run's jury (mock judged by x) differs from
    medhelm-2025-07-31's (not recorded)`; a value a source does not give is `unknown`, never taken as the same."""
    parts = [f"{WORDS[d]} ({_short(mark['own'][d])} vs {_short(mark['reference'][d])})" for d in mark["dimensions"]]
    verb = "differs" if len(parts) == 1 else "differ"
    return f"{side_words(score)} {'; '.join(parts)} {verb} from {mark['against']}"


def _reference(scores: dict[str, Score], differs: list[str]) -> tuple[dict[str, Any], str]:
    """What a benchmark's scores are compared with: the published release's values where a release is on the
    benchmark (its largest group), else the majority's."""
    published = [s for s in scores.values() if s.published]
    pool = published or list(scores.values())
    reference = {d: _majority([dimension(s, d) for s in pool]) for d in differs}
    if published:
        ids = sorted({s.published for s in published})
        return reference, (f"{ids[0]}'s" if len(ids) == 1 else "the releases' majority")
    return reference, "the benchmark's majority"


def compare(by_key: dict[str, dict[str, Score]]) -> tuple[list[dict[str, Any]], dict[tuple[str, str], dict[str, Any]]]:
    """Per benchmark whose scores differ (or where any is unknown): {benchmark, differs (dimension keys), unknown,
    majority (the reference: the release's values where a release is on it), sources}; and for each (model,
    benchmark) that differs from the reference, {dimensions, own, reference, against}. A dimension is unknown on a
    benchmark where two or more scores are and some score does not say: that is never counted as the same."""
    entries, marks = [], {}
    for key in sorted(by_key):
        scores = by_key[key]
        values = {d: [dimension(s, d) for s in scores.values()] for d, _ in DIMENSIONS}
        differs = [d for d, _ in DIMENSIONS if len(set(values[d])) > 1]
        # every score silent on a dimension, where scores of more than one origin meet: unknown, not the same
        unknown = [d for d, _ in DIMENSIONS if d not in ("jury", "metric") and set(values[d]) == {None}
                   and len({s.published for s in scores.values()}) > 1]
        if not differs and not unknown:
            continue
        majority, against = _reference(scores, differs)
        for model, s in scores.items():
            own = [d for d in differs if dimension(s, d) != majority[d]]
            if own:
                marks[(model, key)] = {"dimensions": own, "own": {d: dimension(s, d) for d in own},
                                       "reference": {d: majority[d] for d in own}, "against": against}
        groups: dict[tuple[str | None, ...], list[Score]] = {}
        for s in scores.values():
            groups.setdefault(tuple(dimension(s, d) for d in differs), []).append(s)
        sources = []
        for values, members in sorted(groups.items(), key=lambda item: (-len(item[1]), str(item[0]))):
            sources.append({**dict(zip(differs, values)), "models": sorted(s.model for s in members),
                            "files": sorted({_where(s) for s in members}),
                            "majority": all(majority[d] == v for d, v in zip(differs, values))})
        entries.append({"benchmark": key, "differs": differs, "what": ", ".join(WORDS[d] for d in differs),
                        "unknown": unknown, "unknown_what": ", ".join(WORDS[d] for d in unknown),
                        "majority": majority, "against": against, "sources": sources})
    return entries, marks


def largest_comparable(scores: list[Score]) -> tuple[list[Score], list[dict[str, Any]]]:
    """Per benchmark, only the scores of its largest comparable group (most models; a tie goes to the group of
    the majority's values) and every published score (filtering never takes a number out of its release's row);
    the others, each with what it differs in, are returned as dropped."""
    by_key: dict[str, list[Score]] = {}
    for s in scores:
        by_key.setdefault(s.key, []).append(s)
    kept, dropped = [], []
    for key, members in by_key.items():
        groups: dict[tuple[str | None, ...], list[Score]] = {}
        for s in members:
            groups.setdefault(profile(s), []).append(s)
        majority = tuple(_majority([p[i] for p in (profile(s) for s in members)]) for i in range(len(DIMENSIONS)))
        best = min(groups, key=lambda p: (-len(groups[p]), p != majority, str(p)))
        for p, group in groups.items():
            kept.extend(s for s in group if p == best or s.published)
            if p == best:
                continue
            what = [d for i, (d, _) in enumerate(DIMENSIONS) if p[i] != best[i]]
            group = [s for s in group if not s.published]
            dropped.extend({"model": s.model, "benchmark": key, "differs": what,
                            "what": ", ".join(WORDS[d] for d in what)} for s in group)
    dropped.sort(key=lambda d: (d["benchmark"], d["model"]))
    return kept, dropped


def board_notes(reg: Registry, keys: list[str], models: list[str]) -> list[dict[str, Any]]:
    """The leaderboard's contamination notes: per record on the board, its declared facts (with the board's
    models each names) and its computed overlap, where either says something."""
    notes = []
    for record_id in sorted({k.split("/", 1)[0] for k in keys}):
        record = reg.datasets.get(record_id)
        if record is None:
            continue
        view = contamination_view(reg, record)
        overlaps = overlap_words(view, found_only=True)
        if not view["declared"] and not overlaps:
            continue
        facts = [{**f, "on_board": sorted(m for m in models if any(_same_model(m, n) for n in f["models"]))}
                 for f in view["declared"]]
        notes.append({"record": record_id, "declared": facts, "overlap": overlaps, "status": view["status"]})
    return notes


def unchecked_records(reg: Registry, keys: list[str]) -> dict[str, int]:
    """How many of the board's records have no computed overlap figures: silence on a board is never 'clean'."""
    ids = sorted({k.split("/", 1)[0] for k in keys if k.split("/", 1)[0] in reg.datasets})
    unchecked = sum(1 for i in ids if contamination_view(reg, reg.datasets[i])["status"] == "not computed")
    return {"not_computed": unchecked, "records": len(ids)}


def _same_model(board: str, declared: str) -> bool:
    """A board's model name against a fact's: equal, or equal after the organisation prefix (`openai/gpt-4`)."""
    a, b = board.casefold(), declared.casefold()
    return a == b or a.rsplit("/", 1)[-1] == b.rsplit("/", 1)[-1]
