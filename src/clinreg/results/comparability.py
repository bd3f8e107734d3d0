"""Whether the scores on one benchmark can be compared: the same harness, export (prompts and instances),
instance set, MedHELM edition, generation settings and jury. A leaderboard still ranks scores that differ, but
marks each one that differs from its benchmark's majority and says what differs; `--comparable-only` keeps, per
benchmark, only the largest group of scores that agree on all of them.

An unknown value (a source that does not say) is a value of its own: a score whose instance set is unknown is
not shown to share a known one.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from clinreg.results.score import Score

# (key, words): the provenance that makes two scores on one benchmark comparable, in the order they are named.
DIMENSIONS = (("harness", "harness"), ("export", "export (prompts and instances)"), ("instance_set", "instance set"),
              ("edition", "MedHELM edition"), ("generation", "generation settings"), ("jury", "jury"))
WORDS = dict(DIMENSIONS)


def dimension(score: Score, key: str) -> str | None:
    """The score's value on one dimension, as text; None when its source does not say."""
    if key == "jury":
        return score.jury_key
    value = (score.provenance or {}).get(key)
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


def compare(by_key: dict[str, dict[str, Score]]) -> tuple[list[dict[str, Any]], dict[tuple[str, str], list[str]]]:
    """Per benchmark whose scores differ: {benchmark, differs (dimension keys), majority, sources}; and for each
    (model, benchmark) that differs from its benchmark's majority, the dimensions it differs on."""
    entries, marks = [], {}
    for key in sorted(by_key):
        scores = by_key[key]
        differs = [d for d, _ in DIMENSIONS if len({dimension(s, d) for s in scores.values()}) > 1]
        if not differs:
            continue
        majority = {d: _majority([dimension(s, d) for s in scores.values()]) for d in differs}
        for model, s in scores.items():
            own = [d for d in differs if dimension(s, d) != majority[d]]
            if own:
                marks[(model, key)] = own
        groups: dict[tuple[str | None, ...], list[Score]] = {}
        for s in scores.values():
            groups.setdefault(tuple(dimension(s, d) for d in differs), []).append(s)
        sources = []
        for values, members in sorted(groups.items(), key=lambda item: (-len(item[1]), str(item[0]))):
            sources.append({**dict(zip(differs, values)), "models": sorted(s.model for s in members),
                            "files": sorted({_where(s) for s in members}),
                            "majority": all(majority[d] == v for d, v in zip(differs, values))})
        entries.append({"benchmark": key, "differs": differs, "what": ", ".join(WORDS[d] for d in differs),
                        "majority": majority, "sources": sources})
    return entries, marks


def largest_comparable(scores: list[Score]) -> tuple[list[Score], list[dict[str, Any]]]:
    """Per benchmark, only the scores of its largest comparable group (most models; a tie goes to the group of
    the majority's values); the others, each with what it differs in, are returned as dropped."""
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
            if p == best:
                kept.extend(group)
                continue
            what = [d for i, (d, _) in enumerate(DIMENSIONS) if p[i] != best[i]]
            dropped.extend({"model": s.model, "benchmark": key, "differs": what,
                            "what": ", ".join(WORDS[d] for d in what)} for s in group)
    dropped.sort(key=lambda d: (d["benchmark"], d["model"]))
    return kept, dropped
