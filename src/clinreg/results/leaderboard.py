"""The leaderboard as plain data: HELM's mean win rate, a macro average on a 0-1 scale, and the coverage behind each.

Mean win rate follows HELM (`compute_aggregate_row_win_rates` in helm/benchmark/presentation/summarize.py): in
each benchmark column, a model's win rate is the share of the *other* models with a score there that it beats,
a tie counting half; a column with fewer than two scores is skipped; a model's mean win rate is the mean over
the columns it has. Equal values tie, so scores rounded in a CSV tie exactly as HELM's front end shows them.
A category or subcategory uses the benchmarks placed there (mapping tasks -> subcategory -> category).
"""

from __future__ import annotations

import bisect
import math
from typing import Any, Iterable

from clinreg.core.model import ACCESS_TIERS, Metric
from clinreg.core.store import Registry
from clinreg.reports.coverage import edition_summary
from clinreg.results.comparability import (
    WORDS, board_notes, compare, differs_words, largest_comparable, side_words, unchecked_records,
)
from clinreg.results.score import ReportedWinRate, Score
from clinreg.scoring import medhelm_jury_agreement

LEVELS = ("overall", "category", "subcategory")
Z95 = 1.959963984540054
REPORTED_TOLERANCE = 0.01


def column_win_rates(values: dict[str, float], lower_is_better: bool = False) -> dict[str, float]:
    """HELM's win rate of each model in one column: (models strictly worse + (ties - 1) / 2) / (models - 1)."""
    if len(values) < 2:
        return {}
    ordered = sorted(set(values.values()), reverse=lower_is_better)
    tally = {v: 0 for v in ordered}
    for v in values.values():
        tally[v] += 1
    wins, below = {}, 0
    for v in ordered:
        wins[v] = below + (tally[v] - 1) / 2
        below += tally[v]
    return {model: wins[v] / (len(values) - 1) for model, v in values.items()}


def _mean(xs: Iterable[float]) -> float | None:
    xs = list(xs)
    return math.fsum(xs) / len(xs) if xs else None


def normalised(value: float, lo: float, hi: float, lower_is_better: bool = False) -> float:
    """The value on a 0-1 scale where 1 is best, using the metric's declared range."""
    x = (value - lo) / (hi - lo)
    return 1 - x if lower_is_better else x


def score_interval(score: Score) -> dict[str, Any] | None:
    """A 95% interval on the 0-1 scale: Wilson for 0/1 instance scores, normal from sd or a reported stderr."""
    lo, hi = score.range
    width = hi - lo
    p = normalised(score.value, lo, hi)
    inst = score.per_instance
    if inst and inst["n"] >= 1 and inst["binary"] and (lo, hi) == (0, 1):
        n = inst["n"]
        centre = (p + Z95 ** 2 / (2 * n)) / (1 + Z95 ** 2 / n)
        half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / (1 + Z95 ** 2 / n)
        low, high = max(0.0, centre - half), min(1.0, centre + half)
        # The spread a combination uses: the Wilson interval's half-width in standard errors, which stays
        # above zero at a score of 0 or 1 where the plain binomial one, sqrt(p(1-p)/n), collapses to nothing.
        return {"method": "wilson", "low": low, "high": high, "se": (high - low) / (2 * Z95), "n": n}
    if inst and inst["n"] >= 1:
        se = inst["sd"] / math.sqrt(inst["n"]) / width
        method, n = "normal (instance sd)", inst["n"]
    elif score.stderr is not None:
        se, method, n = score.stderr / width, "normal (reported stderr)", score.n_instances
    else:
        return None
    return {"method": method, "low": max(0.0, p - Z95 * se), "high": min(1.0, p + Z95 * se), "se": se, "n": n}


def placement(reg: Registry) -> dict[str, dict[str, Any]]:
    """For each benchmark key: its tasks, subcategories and categories, from the mapping's tasks."""
    tasks = reg.tasks()
    out = {}
    for record in reg.datasets.values():
        for m in record.mappings:
            entries = [tasks[t] for t in m.tasks if t in tasks]
            out[f"{record.id}/{m.id}"] = {
                "tasks": sorted({e.task.id for e in entries}),
                "subcategories": sorted({e.subcategory.id for e in entries}),
                "categories": sorted({e.category.id for e in entries}),
            }
    return out


def jury_unvalidated_legend(general: dict[str, Any] | None) -> str:
    """The legend of the `jury not validated` mark, with what MedHELM reports of its jury method in general
    (registry/medhelm_editions.yaml's `jury_agreement`) where the registry cites it."""
    legend = ("jury not validated: the benchmark is scored by an LLM jury, and its record gives no evidence of how "
              "far that jury agrees with clinicians (no `scoring.jury.validation`: a ratings file or a published "
              "figure); `clinreg jury agreement` measures it from ratings.")
    if general is None:
        return legend
    return (f"{legend} For its jury method in general MedHELM reports an ICC of {general['value']} with clinicians "
            f"({general['source']}; {general['status']}: which benchmarks it covers was not read).")


def jury_evidence(reg: Registry, key: str) -> list[dict[str, Any]] | None:
    """A jury benchmark's validation evidence as its record gives it (kind, and the figure or file), [] for none;
    None for a benchmark no jury scores."""
    record_id, mapping_id = key.split("/")
    record = reg.datasets.get(record_id)
    mapping = next((m for m in record.mappings if m.id == mapping_id), None) if record else None
    scoring = mapping.scoring if mapping is not None else None
    if scoring is None or scoring.jury is None:
        return None
    return [v.model_dump(mode="json", exclude_none=True) for v in scoring.jury.validation or []]


def release_of(score: Score) -> dict[str, Any]:
    """The published release a score was read from: id, date, name and source, as the shipped list gives them."""
    from clinreg.results.published import RELEASES

    block = (score.provenance or {}).get("published") or {}
    known = next((r for r in RELEASES if r["id"] == score.published), {})
    return {"id": score.published, "date": block.get("date") or known.get("date"),
            "name": known.get("name") or score.published, "source": block.get("source")}


def source_label(release: dict[str, Any] | None) -> str:
    """How a row's origin is printed: `medhelm-2025-07-31` for a published release, `yours` for your results."""
    return "yours" if release is None else str(release["id"])


def row_source(origin: list[str | None], releases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A row's origin as data: {"kind": "published", "id", "date", "name", "label"} or {"kind": "yours", ...}."""
    if origin == [None]:
        return {"kind": "yours", "label": "yours"}
    if len(origin) == 1:
        release = releases[str(origin[0])]
        return {"kind": "published", **release, "label": source_label(release)}
    return {"kind": "mixed", "ids": [o for o in origin if o],
            "label": " + ".join(source_label(releases[o] if o else None) for o in origin)}


def _rank_group(score: Score, column: dict[str, Score]) -> str | None:
    """What a score is ranked within on its benchmark: its jury, and where the column holds scores on more than
    one metric (HealthBench's own score beside medhelm's), its metric too; scores on two metrics never meet."""
    if len({s.metric for s in column.values()}) == 1:
        return score.jury_key
    return f"{score.jury_key or 'no jury recorded'} (metric {score.metric})"


def leaderboard_data(reg: Registry, scores: list[Score], reported: list[ReportedWinRate] | None = None,
                     access: Iterable[str] | None = None, comparable_only: bool = False,
                     merged: list[dict[str, Any]] | None = None,
                     beside: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Everything every leaderboard format shows; renderers format it and recompute nothing.

    Where scores on a benchmark differ in provenance (results.comparability), they are still ranked, and the data
    gain `comparability` (one entry per such benchmark), each row `differs` and each score there `differs` and
    its `provenance`; with `comparable_only`, each benchmark keeps only its largest comparable group and
    `comparable_only` lists what was left out. A board that mixes nothing has none of these keys. `beside` (an
    import's stand-ins: scores on another metric than the benchmark's, such as medhelm's configurable
    jury_score) are never ranked; the data list them under `beside`, marked as another metric."""
    tiers = tuple(access) if access else ACCESS_TIERS
    places = placement(reg)
    kept, excluded = [], []
    for s in scores:
        record = reg.datasets.get(s.record)
        if record is None or s.key not in places:
            excluded.append({"model": s.model, "benchmark": s.key, "reason": f"not in release {reg.current_release}"})
        elif record.access.tier not in tiers:
            excluded.append({"model": s.model, "benchmark": s.key, "reason": f"access tier {record.access.tier} "
                             f"is not counted (--access {','.join(tiers)})"})
        else:
            kept.append(s)
    dropped: list[dict[str, Any]] = []
    if comparable_only:
        kept, dropped = largest_comparable(kept)
    models = sorted({s.model for s in kept})
    origins: dict[str, list[str | None]] = {}
    releases: dict[str, dict[str, Any]] = {}
    for s in kept:
        if s.published not in origins.setdefault(s.model, []):
            origins[s.model].append(s.published)
        if s.published and s.published not in releases:
            releases[s.published] = release_of(s)
    for ids in origins.values():
        ids.sort(key=lambda i: (i is not None, i or ""))
    by_key: dict[str, dict[str, Score]] = {}
    for s in kept:
        by_key.setdefault(s.key, {})[s.model] = s
    lower = {k: Metric.ranks_lower(next(iter(v.values())).metric) for k, v in by_key.items()}
    # A jury score is ranked only against scores from the same jury (rubric and judge models): within a column,
    # each jury's models form their own win-rate group, and rows say where their jury differs from others'.
    # A published score is ranked only within its own release (so its row keeps the release's win rates whatever
    # else is on the board); your scores are ranked against every score on the benchmark, published ones included.
    win: dict[str, dict[str, float]] = {}
    juries: dict[str, dict[str, list[str]]] = {}
    jury_reference: dict[str, str | None] = {}
    for k, v in by_key.items():
        groups_by_jury: dict[str | None, dict[str, float]] = {}
        for m, s in v.items():
            groups_by_jury.setdefault(_rank_group(s, v), {})[m] = s.value
        win[k] = {}
        for values in groups_by_jury.values():
            win[k].update({m: w for m, w in column_win_rates(values, lower[k]).items() if not v[m].published})
        for release in {s.published for s in v.values() if s.published}:
            in_release: dict[str | None, dict[str, float]] = {}
            for m, s in v.items():
                if s.published == release:
                    in_release.setdefault(_rank_group(s, v), {})[m] = s.value
            for values in in_release.values():
                win[k].update(column_win_rates(values, lower[k]))
        if len(groups_by_jury) > 1:
            juries[k] = {str(j or "no jury recorded"): sorted(ms) for j, ms in groups_by_jury.items()}
            published_juries = [s.jury_key for s in v.values() if s.published]
            pool = published_juries or [s.jury_key for s in v.values()]
            jury_reference[k] = max(set(pool), key=lambda j: (pool.count(j), j is not None, str(j)))
    comparability, marks = compare(by_key)
    contamination = board_notes(reg, sorted(by_key), models)
    overlap_unchecked = unchecked_records(reg, sorted(by_key))
    evidence = {k: jury_evidence(reg, k) for k in by_key}
    unvalidated = {k for k, e in evidence.items() if e == []}
    mixed = {e["benchmark"]: e for e in comparability}
    intervals = {(m, k): score_interval(s) for k, v in by_key.items() for m, s in v.items()}
    norm = {(m, k): normalised(s.value, *s.range, lower[k]) for k, v in by_key.items() for m, s in v.items()}

    task_entries = reg.tasks()
    groups = [{"level": "overall", "id": "overall", "name": "All benchmarks", "category": None,
               "tasks": sorted(task_entries)}]
    for category, _ in reg.ordered_categories():
        groups.append({"level": "category", "id": category.id, "name": category.name, "category": category.id,
                       "tasks": [t.id for sub in category.subcategories for t in sub.tasks]})
    for category, _ in reg.ordered_categories():
        for sub in category.subcategories:
            groups.append({"level": "subcategory", "id": sub.id, "name": sub.name, "category": category.id,
                           "tasks": [t.id for t in sub.tasks]})

    tables: dict[str, list[dict[str, Any]]] = {level: [] for level in LEVELS}
    group_info = []
    for g in groups:
        field = {"overall": None, "category": "categories", "subcategory": "subcategories"}[g["level"]]
        placed = sorted(k for k, p in places.items() if reg.datasets[k.split("/")[0]].access.tier in tiers
                        and (field is None or g["id"] in p[field]))
        with_scores = [k for k in placed if k in by_key]
        info = {"level": g["level"], "id": g["id"], "name": g["name"], "category": g["category"],
                "benchmarks_in_registry": placed, "benchmarks_with_scores": with_scores,
                "tasks": len(g["tasks"]), "thin_in_registry": len({k.split("/")[0] for k in placed}) == 1}
        group_info.append(info)
        if not with_scores:
            continue
        group_tasks = set(g["tasks"])
        coverage: dict[tuple[str, ...], tuple[int, int, list[str]]] = {}
        rows = []
        for model in models:
            has = [k for k in with_scores if model in by_key[k]]
            rated = [k for k in has if model in win[k]]
            mwr = _mean(win[k][model] for k in rated)
            macro = _mean(norm[(model, k)] for k in has)
            ivs = [intervals[(model, k)] for k in has]
            interval = None
            if len(has) == 1 and ivs[0]:  # a row on one benchmark has that benchmark's interval, whatever its kind
                interval = {"method": ivs[0]["method"], "low": ivs[0]["low"], "high": ivs[0]["high"]}
            elif has and all(ivs):
                se = math.sqrt(math.fsum(iv["se"] ** 2 for iv in ivs)) / len(ivs)
                interval = {"method": "normal (benchmark intervals combined)", "low": max(0.0, macro - Z95 * se),
                            "high": min(1.0, macro + Z95 * se)}
            ns = [by_key[k][model].n_instances for k in has]
            shape = tuple(has)  # the models with the same benchmarks share their coverage: computed once per shape
            if shape not in coverage:
                covered = {t for k in has for t in places[k]["tasks"] if t in group_tasks}
                coverage[shape] = (len(covered),
                                   sum(1 for t in covered if task_entries[t].task.provenance.kind == "drafted"),
                                   [k for k in with_scores if k not in set(has)])
            n_covered, n_drafted, missing = coverage[shape]
            published = [r for r in (reported or []) if r.model == model and set(r.benchmarks) == set(has)]
            jury_notes = []
            for k in has:
                own = by_key[k][model].jury_key
                if k in juries and own != jury_reference[k]:
                    peers = sum(1 for s in by_key[k].values() if s.jury_key == own) - 1
                    ids = sorted({s.published for s in by_key[k].values() if s.published})
                    whose = f"{ids[0]}'s" if len(ids) == 1 else "the releases'" if ids else "the majority's"
                    ref = jury_reference[k] or ("MedHELM's own jury; the release's file does not name its judges"
                                                if ids else "not recorded")
                    jury_notes.append(f"{k}: {side_words(by_key[k][model])} jury ({own or 'not recorded'}) differs "
                                      f"from {whose} ({ref}); ranked only against {peers} model(s) with the same jury")
            differs = [f"{k}: {differs_words(marks[(model, k)], by_key[k][model])}" for k in has if (model, k) in marks]
            origin = origins.get(model, [None])
            if len(has) and all(by_key[k][model].n_instances_from == "registry" for k in has):
                counted_from = "registry"
            elif any(by_key[k][model].n_instances_from == "registry" for k in has):
                counted_from = "partly registry"
            else:
                counted_from = "results"
            stated = published[0].value if published and origin != [None] else None
            rows.append({
                "model": model,
                "group": g["id"],
                "level": g["level"],
                "group_name": g["name"],
                "category": g["category"],
                "source": row_source(origin, releases),
                # a published row shows the release's own mean win rate where the release states it for exactly
                # the row's benchmarks; otherwise the one computed within its release
                "mean_win_rate": stated if stated is not None else mwr,
                "mean_win_rate_from": "release" if stated is not None else "computed",
                "mean_win_rate_computed": mwr,
                "win_rate_columns": len(rated),
                "reported_mean_win_rate": published[0].value if published else None,
                "macro_average": macro,
                "macro_interval": interval,
                "benchmarks": has,
                "benchmarks_total": len(with_scores),
                "missing_benchmarks": missing,
                "instances": sum(n for n in ns if n is not None),
                "instances_unknown": sum(1 for n in ns if n is None),
                "instances_from": counted_from,
                "tasks_covered": n_covered,
                "tasks_total": len(g["tasks"]),
                "tasks_drafted": n_drafted,
                "thin": len(has) == 1,
                "thin_in_registry": info["thin_in_registry"],
                "jury_differs": jury_notes,
                "jury_unvalidated": [k for k in has if k in unvalidated],
                **({"differs": differs} if comparability else {}),
            })
        # A row's rank is 1 + the rows with a strictly higher mean win rate: one sort and a binary search each.
        rates = sorted(r["mean_win_rate"] for r in rows if r["mean_win_rate"] is not None)
        for r in rows:
            r["rank"] = 1 + len(rates) - bisect.bisect_right(rates, r["mean_win_rate"]) \
                if r["mean_win_rate"] is not None else None
        rows.sort(key=lambda r: (r["rank"] is None, r["rank"] or 0, r["model"]))
        tables[g["level"]].extend(rows)

    benchmarks = []
    for k in sorted(by_key):
        record_id, mapping_id = k.split("/")
        record = reg.datasets[record_id]
        mapping = next(m for m in record.mappings if m.id == mapping_id)
        entries = []
        for model in models:
            s = by_key[k].get(model)
            if s is None:
                continue
            entries.append({"model": model, "value": s.value, "normalised": norm[(model, k)],
                            "win_rate": win[k].get(model), "n_instances": s.n_instances,
                            "n_instances_from": s.n_instances_from, "interval": intervals[(model, k)],
                            "jury": s.jury, "source": s.source,
                            # a score on another metric than the benchmark's main one (HealthBench's own) names it
                            **({"metric": s.metric} if s.metric != mapping.metric.name else {}),
                            "origin": source_label(releases.get(s.published) if s.published else None),
                            **({"differs": marks.get((model, k), {}).get("dimensions", []),
                                "differs_what": ", ".join(WORDS[d] for d in marks.get((model, k), {})
                                                          .get("dimensions", [])),
                                "differs_words": differs_words(marks[(model, k)], s) if (model, k) in marks else ""}
                               if k in mixed else {}),
                            # a board that mixes sources (or merges names) shows where each score comes from
                            **({"provenance": s.provenance or {}} if k in mixed or merged else {})})
        benchmarks.append({
            "key": k, "record": record_id, "mapping": mapping_id, "name": record.name, "access": record.access.tier,
            "in_medhelm": record.in_medhelm,
            "metric": mapping.metric.name, "metric_display": mapping.metric.display,
            "range": list(mapping.metric.range), "lower_is_better": lower[k], "categories": places[k]["categories"],
            "subcategories": places[k]["subcategories"], "models": len(entries),
            "missing_models": [m for m in models if m not in by_key[k]],
            "counted_in_win_rates": len(entries) >= 2, "scores": entries, "juries": juries.get(k),
            "jury_validation": evidence[k],
        })
    release_dates = {r.version: r.date.isoformat() for r in reg.releases.releases} if reg.releases else {}
    drafted = sum(1 for t in task_entries.values() if t.task.provenance.kind == "drafted")
    return {
        "release": reg.current_release,
        "release_date": release_dates.get(reg.current_release or ""),
        "published_releases": [releases[r] for r in sorted(releases)],
        "yours": any(None in o for o in origins.values()),
        "access_filter": list(tiers),
        "models": models,
        "method": {
            "mean_win_rate": "HELM's: per benchmark, the share of other models with a score that the model beats "
                             "(ties count half; columns with one score skipped), averaged over the model's columns",
            "macro_average": "mean over the model's benchmarks of (value - min) / (max - min), min and max from "
                             "each mapping's metric.range",
            "interval": "95%: Wilson for 0/1 instance scores, else normal from instance sd or a reported stderr; "
                        "none (instance count only) when a source gives neither",
        },
        "medhelm_edition": edition_summary(reg),
        "provenance_note": f"{drafted} of {len(task_entries)} tasks were drafted by clinreg maintainers and await "
                           "clinician review; task coverage counts them as the registry holds them.",
        "tables": tables,
        "groups": group_info,
        "benchmarks": benchmarks,
        "excluded": excluded,
        "reported_tolerance": REPORTED_TOLERANCE,
        **({"jury_unvalidated": {"benchmarks": sorted(unvalidated),
                                 "legend": jury_unvalidated_legend(medhelm_jury_agreement(reg)),
                                 "medhelm_in_general": medhelm_jury_agreement(reg)}} if unvalidated else {}),
        **({"comparability": comparability} if comparability else {}),
        **({"contamination": contamination} if contamination else {}),
        **({"overlap_not_computed": overlap_unchecked} if overlap_unchecked["not_computed"] else {}),
        **({"comparable_only": {"dropped": dropped}} if comparable_only else {}),
        **({"aliases": merged} if merged else {}),
        **({"beside": other_metric(reg, beside)} if beside else {}),
    }


def other_metric(reg: Registry, beside: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Scores kept beside a benchmark's main metric, each marked as another metric: never ranked."""
    out = []
    for e in sorted(beside, key=lambda e: (e["record"], e["mapping"], e["model"])):
        if e["record"] in reg.datasets:
            out.append({"model": e["model"], "benchmark": f"{e['record']}/{e['mapping']}", "metric": e["metric"],
                        "value": e["value"], "n_instances": e.get("n_instances"), "harness": e.get("harness"),
                        "stands_in_for": e.get("stands_in_for"), "ranked": False})
    return out
