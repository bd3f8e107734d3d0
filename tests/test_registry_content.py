"""The embedded registry: pinned totals per release, placements that match the facts file, honest provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from clirunner import invoke

from clinreg.cli.main import main
from clinreg.core.paths import embedded_root
from clinreg.core.store import load_registry
from clinreg.rules.engine import validate

FACTS = Path(__file__).resolve().parents[2] / "shared" / "reference" / "medhelm_facts.yaml"
ROOT = embedded_root()
REG = load_registry(ROOT)
DATASET_IDS = sorted(REG.datasets)

# MedHELM's own benchmark set at each release (the facts file's in_v1_31 and the HELM PRs the releases follow):
# the `--medhelm-only` view must keep these numbers whatever the registry adds beyond MedHELM.
MEDHELM_AT = {
    "1.0.0": (31, {"public": 13, "gated": 6, "private": 12}),
    "1.1.0": (32, {"public": 13, "gated": 7, "private": 12}),
    "1.2.0": (35, {"public": 14, "gated": 7, "private": 14}),
    "1.3.0": (37, {"public": 16, "gated": 7, "private": 14}),
}
MEDHELM_NOW = MEDHELM_AT["1.3.0"]


def coverage_json(*args: str, root: Path = ROOT) -> dict:
    result = invoke(main, ["coverage", "--root", str(root), "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["data"]


def facts() -> dict | None:
    return yaml.safe_load(FACTS.read_text(encoding="utf-8")) if FACTS.is_file() else None


# --------------------------------------------------------------------------------------------- checks
# Each check takes a registry tree, so that a test can run them on a copy holding a contributed record.


def check_release_totals(root: Path, release: str) -> None:
    """A release holds the records releases.yaml says it added, up to it; MedHELM's own view keeps MedHELM's numbers."""
    reg = load_registry(root)
    history = reg.releases.releases
    upto = history[: [r.version for r in history].index(release) + 1]
    expected = ({i for r in upto for i in (r.datasets_added or [])} if all(r.status == "published" for r in upto)
                else None)
    data = coverage_json("--release", release, root=root)
    held = {d["id"] for d in data["datasets"]}
    if expected is not None:
        removed = {i for i, d in reg.datasets.items() if d.removed_in and d.removed_in in {r.version for r in upto}}
        assert held == expected - removed, release
    t = data["totals"]
    assert t["datasets"] == t["benchmarks"] == len(held)
    assert (t["categories"], t["subcategories"], t["tasks"]) == (5, 22, 121)
    medhelm = coverage_json("--release", release, "--medhelm-only", root=root)["totals"]
    datasets, access = MEDHELM_AT.get(release, MEDHELM_NOW)
    assert (medhelm["datasets"], medhelm["access"]) == (datasets, access), release
    assert medhelm["instances"] == t["instances"], "only MedHELM records count as instances MedHELM evaluated"


def check_current_totals(root: Path) -> None:
    reg = load_registry(root)
    data = coverage_json(root=root)
    assert data["release"] == yaml.safe_load((root / "registry" / "releases.yaml").read_text())["current"]
    t = data["totals"]
    current = [d for d in reg.datasets.values() if d.removed_in is None]
    assert (t["categories"], t["subcategories"], t["tasks"], t["datasets"]) == (5, 22, 121, len(current))
    assert (t["datasets_in_medhelm"], t["datasets_not_in_medhelm"]) == (MEDHELM_NOW[0], len(current) - MEDHELM_NOW[0])
    assert t["tasks_drafted"] == 86 and t["tasks_awaiting_review"] == 121
    assert (t["tasks_published"], t["tasks_derived"]) == (2, 33)
    assert all(s["datasets"] for s in data["subcategories"])
    m = coverage_json("--medhelm-only", root=root)["totals"]
    assert (m["datasets"], m["access"]) == MEDHELM_NOW
    # Only one of the two published names has a MedHELM dataset; every derived task was worded from a mapped benchmark.
    assert m["tier_summary"] == "published 1/2, derived 33/33, drafted 0/86 covered"
    assert m["thin_subcategories"] == 15  # the paper's count of single-benchmark subcategories
    assert t["thin_subcategories"] <= 15


def check_no_errors_and_warnings_explained(root: Path) -> None:
    report = validate(root)
    assert [d for d in report.diagnostics if d.severity == "error"] == []
    for d in report.diagnostics:
        if d.severity == "warning":
            assert "(record says:" in d.message, d


def check_record_against_its_sources(root: Path, dataset_id: str) -> None:
    """A MedHELM record agrees with the facts file; a record beyond MedHELM stands on its own cited sources."""
    reg = load_registry(root)
    record = reg.datasets[dataset_id]
    known = facts()
    by_name = {b["helm_name"]: b for b in known["benchmarks"]} if known else {}
    if not record.in_medhelm:
        assert dataset_id not in by_name, f"{dataset_id} is a MedHELM benchmark: set in_medhelm: true"
        c = record.citation
        assert c.doi or c.arxiv or c.url, f"{dataset_id}: a record beyond MedHELM cites its source (doi, arxiv or url)"
        assert record.licence.note, f"{dataset_id}: say where the licence was read (licence.note)"
        for m in record.mappings:
            assert m.instances.evaluated is None, f"{dataset_id}/{m.id}: MedHELM evaluated no instances of it"
        release = next(r for r in reg.releases.releases if r.version == record.added_in)
        assert release.status == "open" or dataset_id in (release.datasets_added or []), dataset_id
        return
    if not known:
        return
    assert dataset_id in by_name, f"{dataset_id} says in_medhelm: true, but the facts file has no such benchmark"
    fact = by_name[dataset_id]
    assert record.access.tier == fact["access"]
    expected_release = ("1.0.0" if fact["in_v1_31"]
                        else {"mimic_bhc": "1.1.0", "med_qa": "1.3.0", "med_mcqa": "1.3.0"}.get(dataset_id, "1.2.0"))
    assert record.added_in == expected_release
    tasks = reg.tasks()
    for mapping in record.mappings:
        for task_id in mapping.tasks:
            entry = tasks[task_id]
            assert (entry.category.id, entry.subcategory.id) == (fact["category"], fact["subcategory"]), task_id
    (mapping,) = record.mappings
    names = {n.casefold() for n in mapping.helm_names}
    assert {fact[k].casefold() for k in ("display_name", "short_display_name") if fact.get(k)} <= names
    assert mapping.metric.name == fact["main_metric"]["name"]
    assert mapping.metric.range == fact["main_metric"]["range"]


def check_helm_names(root: Path) -> None:
    """MedHELM mappings carry their HELM display names; a benchmark HELM does not run may have none; no name is
    shared."""
    seen: dict[str, str] = {}
    for dataset_id, record in load_registry(root).datasets.items():
        for mapping in record.mappings:
            if record.in_medhelm:
                assert mapping.helm_names, f"{dataset_id}/{mapping.id} has no helm_names"
            for name in mapping.helm_names:
                assert seen.setdefault(name.casefold(), mapping.id) == mapping.id, name


def run_content_checks(root: Path) -> None:
    """Every check of this file on the tree at `root`."""
    for release in [r.version for r in load_registry(root).releases.releases]:
        check_release_totals(root, release)
    check_current_totals(root)
    check_no_errors_and_warnings_explained(root)
    for dataset_id in sorted(load_registry(root).datasets):
        check_record_against_its_sources(root, dataset_id)
    check_helm_names(root)


# --------------------------------------------------------------------------------------------- the embedded registry


@pytest.mark.slow
@pytest.mark.parametrize("release", [r.version for r in REG.releases.releases])
def test_release_totals(release):
    check_release_totals(ROOT, release)


@pytest.mark.slow
def test_pinned_medhelm_releases_hold_medhelms_numbers():
    for release, (datasets, access) in MEDHELM_AT.items():
        totals = coverage_json("--release", release)["totals"]
        assert (totals["datasets"], totals["access"]) == (datasets, access)


def test_current_totals_and_every_subcategory_covered():
    check_current_totals(ROOT)


def test_embedded_registry_has_no_errors_and_every_warning_is_explained():
    check_no_errors_and_warnings_explained(ROOT)


def test_every_subcategory_has_at_least_three_distinct_tasks():
    names = set()
    for sub, *_ in REG.subcategories():
        assert len(sub.tasks) >= 3, sub.id
        for task in sub.tasks:
            key = " ".join(task.name.lower().split())
            assert key not in names, f"duplicate task name {task.name!r}"
            names.add(key)


def test_task_provenance_is_honest():
    tasks = REG.tasks()
    by_name = {e.task.name: e for e in tasks.values()}
    assert "Generate differential diagnoses" in by_name and "Answer medical knowledge questions" in by_name
    for entry in tasks.values():
        task = entry.task
        assert task.review.status == "proposed", task.id  # no clinician has reviewed our wording yet
        prov = task.provenance
        if prov.kind == "published":
            # Only the two names the public record prints are published, each quoted as printed.
            assert prov.citation is not None and prov.quote == task.name, task.id
        elif prov.kind == "derived":
            mapped = {t for m in _mappings(prov.benchmarks) for t in m.tasks}
            assert prov.citation is not None and prov.benchmarks and task.id in mapped, task.id
        else:
            assert prov.kind == "drafted" and prov.note, task.id
    assert sum(1 for e in tasks.values() if e.task.provenance.kind == "published") == 2


def _mappings(ids):
    return [m for ds in REG.datasets.values() for m in ds.mappings if m.id in ids]


@pytest.mark.parametrize("dataset_id", DATASET_IDS)
def test_record_matches_its_sources(dataset_id):
    if not FACTS.exists() and REG.datasets[dataset_id].in_medhelm:
        pytest.skip("../shared/reference/medhelm_facts.yaml is not here")
    check_record_against_its_sources(ROOT, dataset_id)


def test_category_and_subcategory_names_are_medhelms():
    if not FACTS.exists():
        pytest.skip("../shared/reference/medhelm_facts.yaml is not here")
    facts = yaml.safe_load(FACTS.read_text(encoding="utf-8"))["categories"]
    expected = [(c["id"], c["name"], [(s["id"], s["name"]) for s in c["subcategories"]]) for c in facts]
    actual = [(c.id, c.name, [(s.id, s.name) for s in c.subcategories]) for c, _ in REG.ordered_categories()]
    assert actual == expected


def test_helm_names_name_one_benchmark_each():
    check_helm_names(ROOT)


def test_every_subcategory_holds_the_task_count_of_medhelms_overview_figure():
    """S15: the official overview figure gives each subcategory's task count; the facts file records them."""
    data = coverage_json()
    for s in data["subcategories"]:
        expected = s["tasks_expected"]
        assert expected is not None and "S15" in expected["source"], s["id"]
        assert s["tasks"] == expected["count"] and expected["matches"], s["id"]
    if FACTS.is_file():
        figure = yaml.safe_load(FACTS.read_text())["tasks_status"]["expected_per_subcategory"]
        counts = {sub: n for cat, subs in figure.items() if isinstance(subs, dict) for sub, n in subs.items()
                  if sub != "total"}
        assert {s["id"]: s["tasks"] for s in data["subcategories"]} == counts


def test_only_drafted_tasks_record_a_move_merge_or_addition():
    for sub, _category, _, _ in REG.subcategories():
        for task in sub.tasks:
            note = task.provenance.note or ""
            if "release 1.6.0" in note:
                assert task.provenance.kind == "drafted", task.id


def test_review_document_and_coverage_page_show_expected_against_held():
    review = invoke(main, ["review", "--format", "markdown"])
    assert review.exit_code == 0
    shown = review.stdout.count("held, ")
    assert shown == len(list(REG.subcategories())) and "10 held, 10 expected" in review.stdout
    page = invoke(main, ["coverage", "--format", "html"])
    assert page.exit_code == 0
    assert page.stdout.count("data-tasks-expected=") == shown and "expected</span>" in page.stdout


@pytest.mark.parametrize("dataset_id", DATASET_IDS)
def test_every_record_has_its_card_and_every_fact_says_where_it_comes_from(dataset_id):
    from clinreg.rules.schema import CARD_FIELDS

    ds = REG.datasets[dataset_id]
    assert [f for f in CARD_FIELDS if getattr(ds, f) is None] == []
    for field in ("languages", "first_released", "status", "maintainer", "independence"):
        fact = getattr(ds, field)
        assert (fact.source is None) == (fact.value in ("unknown", "not assessed")), (field, fact)
    # no benchmark was first released after the registry release that added its record
    added = next(r for r in REG.releases.releases if r.version == ds.added_in).date.isoformat()
    released = ds.first_released.value
    assert released == "unknown" or released <= added[:len(released)], (released, ds.added_in, added)
    # the card's words are clinreg's: each not_for says what a score cannot support
    assert ds.not_for.startswith("Not "), ds.not_for
    for other in ds.compare_with:
        assert other.id in REG.datasets and other.id != dataset_id
    if ds.access.tier == "private":
        assert "not distributed" in ds.not_for and "not distributed" in ds.independence.value
