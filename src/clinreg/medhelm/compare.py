"""`clinreg medhelm diff`: every difference between MedHELM's files (as `files.read_medhelm` reads them) and one of the
registry's MedHELM editions: benchmarks missing on either side, category and subcategory placement, main metrics
and judges. Categories and subcategories are matched by their names, as MedHELM and the taxonomy both spell them.
"""

from __future__ import annotations

from typing import Any

from clinreg.core.model import Edition
from clinreg.core.store import EDITIONS_FILE, Registry
from clinreg.medhelm.files import JUDGES, SCHEMA, MedhelmView


def _norm(name: str) -> str:
    return " ".join(name.casefold().replace("-", " ").split())


def _placement(reg: Registry, dataset_id: str) -> tuple[set[str], set[str]]:
    """The registry's categories and subcategories (by name) of a record's tasks."""
    tasks = reg.tasks()
    ds = reg.datasets.get(dataset_id)
    cats: set[str] = set()
    subs: set[str] = set()
    for m in ds.mappings if ds else []:
        for t in m.tasks:
            entry = tasks.get(t)
            if entry is not None:
                cats.add(entry.category.name)
                subs.add(entry.subcategory.name)
    return cats, subs


def _registry_judges(reg: Registry, benchmarks: list[str]) -> list[str]:
    found = {j.model for d in benchmarks if d in reg.datasets for m in reg.datasets[d].mappings
             if m.scoring is not None and m.scoring.jury is not None for j in m.scoring.jury.judges}
    return sorted(found)


# A difference that an item is missing is named for the side that lacks it: MedHELM's files, the edition, or the
# registry's records (an edition older than MedHELM's files lacks a benchmark; the registry is not to blame).
LACKS = ("medhelm_lacks", "edition_lacks", "registry_lacks", "taxonomy_lacks")


def medhelm_diff(reg: Registry, view: MedhelmView, edition: Edition) -> dict[str, Any]:
    """Every difference between MedHELM's files and the registry's edition, as data."""
    differences: list[dict[str, Any]] = []
    schema = f"helm/benchmark/{SCHEMA}"

    def add(kind: str, benchmark: str | None, where: str, message: str, medhelm: Any = None,
            registry: Any = None) -> None:
        differences.append({"kind": kind, "benchmark": benchmark, "where": where, "message": message,
                            "medhelm": medhelm, "registry": registry})

    ours = list(dict.fromkeys(edition.benchmarks))
    # A category group of MedHELM's files that the taxonomy has no category for (medhelm's PacificMedSecurity) is
    # one difference of the taxonomy, named once with its benchmarks, not a misplacement of each benchmark.
    taxonomy = {_norm(cat.name) for cat, _ in reg.ordered_categories()}
    unplaceable: dict[str, list[str]] = {}
    for name, bench in view.benchmarks.items():
        if name not in ours:
            record = ("the registry has a record for it" if name in reg.datasets or name in reg.later_datasets
                      else "the registry has no record for it either")
            add("edition_lacks", name, f"{schema}:{bench.line}",
                f"edition {edition.id} lacks run group {name!r} ({bench.category}), which MedHELM's files run "
                f"({record})", medhelm=bench.category)
    for name in ours:
        if name not in view.benchmarks:
            add("medhelm_lacks", name, EDITIONS_FILE,
                f"MedHELM's files lack run group {name!r}, which edition {edition.id} lists", registry=name)
    for name in ours:
        bench = view.benchmarks.get(name)
        if name not in reg.datasets and name not in reg.later_datasets:
            add("registry_lacks", name, EDITIONS_FILE,
                f"the registry has no record for {name!r}, which edition {edition.id} lists", registry=name)
        if bench is None or name not in reg.datasets:
            continue
        cats, subs = _placement(reg, name)
        if taxonomy and _norm(bench.category) not in taxonomy:
            unplaceable.setdefault(bench.category, []).append(name)
        elif _norm(bench.category) not in {_norm(c) for c in cats}:
            add("category", name, f"{schema}:{bench.line}",
                f"{name!r}: MedHELM puts it in {bench.category}, the registry in "
                f"{', '.join(sorted(cats)) or 'no category'}", medhelm=bench.category, registry=sorted(cats))
        if view.confs and bench.subcategories and {_norm(s) for s in bench.subcategories} != {_norm(s) for s in subs}:
            add("subcategory", name, ", ".join(bench.conf_lines),
                f"{name!r}: MedHELM's confs put it in {', '.join(sorted(bench.subcategories))}, the registry in "
                f"{', '.join(sorted(subs)) or 'no subcategory'}", medhelm=sorted(bench.subcategories),
                registry=sorted(subs))
        metrics = sorted({m.metric.name for m in reg.datasets[name].mappings})
        if bench.main_metric is not None and bench.main_metric not in metrics:
            add("main_metric", name, f"{schema}:{bench.line}",
                f"{name!r}: MedHELM's main metric is {bench.main_metric}, the registry's {', '.join(metrics)}",
                medhelm=bench.main_metric, registry=metrics)
    for category, names in unplaceable.items():
        placed = sorted({c for n in names for c in _placement(reg, n)[0]})
        add("taxonomy_lacks", None, f"{schema}:{view.benchmarks[names[0]].line}",
            f"the taxonomy has no category {category!r}, which MedHELM's files give {', '.join(names)}; the "
            f"registry places them in {', '.join(placed) or 'no category'}", medhelm=category, registry=placed)
    if view.judges is not None:
        ours_judges = _registry_judges(reg, ours)
        if ours_judges and ours_judges != view.judges:
            add("judges", None, f"helm/benchmark/{JUDGES}",
                f"MedHELM's judges are {', '.join(view.judges)}; the registry's juries use {', '.join(ours_judges)}",
                medhelm=view.judges, registry=ours_judges)
    return {
        "source": view.describe,
        "edition": {"id": edition.id, "title": edition.title, "date": edition.date.isoformat(),
                    "released": edition.released, "unreleased": edition.unreleased_words},
        "medhelm_benchmarks": len(view.benchmarks),
        "edition_benchmarks": len(ours),
        "confs_read": view.confs,
        "notes": view.notes,
        "differences": differences,
    }
