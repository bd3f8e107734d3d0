"""The static registry site: an index with search and filters, a page per category, subcategory and dataset card.

Every page is rendered from plain data in the sandboxed, autoescaping Jinja environment of `reports.html`, so
every registry string reaches the page as text. The site needs no server and no network: relative links
between flat files, one stylesheet and one small script, and it opens from the file system.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from clinreg import __version__
from clinreg.core.model import ACCESS_TIERS, Dataset
from clinreg.core.store import Registry
from clinreg.core.semver import parse_semver
from clinreg.instances.figures import contamination_view
from clinreg.reports.coverage import coverage_data
from clinreg.errors import ClinregError
from clinreg.reports.html import environment
from clinreg.reports.record import judge_sentences, judge_view
from clinreg.scoring import GRADER_KINDS, NOT_EXPRESSIBLE, grader_of, medhelm_jury_agreement
from clinreg.text.output import defuse

LEADERBOARD_URL = "https://crfm.stanford.edu/helm/medhelm/latest/"
MARKER = ".clinreg-site"  # a folder holding this file was written by `clinreg site` and may be replaced
CARD_FACTS = (("languages", "Languages"), ("first_released", "First released"), ("status", "Status"),
              ("maintainer", "Maintainer"), ("independence", "Independence"))
PROVENANCE_NOTE = {
    "published": "Named in a public source; definition and example written by clinreg",
    "derived": "Worded by clinreg from a benchmark's description",
    "drafted": "Drafted by clinreg to fill a gap in the public record",
}


class SiteError(ClinregError, ValueError):
    """The output folder cannot be used (not writable, or a folder that `clinreg site` did not write)."""

    default_code = "CLR983"


def category_page(cat_id: str) -> str:
    return f"category-{cat_id}.html"


def subcategory_page(sub_id: str) -> str:
    return f"subcategory-{sub_id}.html"


def dataset_page(ds_id: str) -> str:
    return f"dataset-{ds_id}.html"


def _https(url: str | None) -> str | None:
    return url if url and url.startswith("https://") else None


def _fact(ds: Dataset, field: str, label: str) -> dict[str, Any]:
    fact = getattr(ds, field)
    if fact is None:
        return {"label": label, "value": "not recorded", "known": False, "note": "The record has no such field yet."}
    value = fact.value
    known = value != type(fact)._unknown_word  # 'unknown' is a fact's unknown, 'not assessed' independence's
    if isinstance(value, list):
        value = ", ".join(value)
    return {"label": label, "value": value, "known": known, "note": fact.source if known else fact.reason}


def _citation_links(ds: Dataset) -> list[dict[str, str]]:
    return _links(ds.citation)


def _links(c: Any) -> list[dict[str, str]]:
    links = []
    if c.doi:
        links.append({"text": f"doi:{c.doi}", "href": f"https://doi.org/{c.doi}"})
    if c.arxiv:
        links.append({"text": f"arXiv:{c.arxiv}", "href": f"https://arxiv.org/abs/{c.arxiv}"})
    if _https(c.url):
        links.append({"text": "link", "href": c.url})
    return links


def _source(ds: Dataset) -> dict[str, Any]:
    s = ds.source
    if s.type == "huggingface":
        return {"kind": "Hugging Face hub dataset", "name": s.repo, "href": f"https://huggingface.co/datasets/{s.repo}",
                "pinned": s.revision, "note": s.revision_note}
    if s.type == "github":
        return {"kind": "GitHub repository", "name": s.repo, "href": f"https://github.com/{s.repo}", "pinned": s.commit,
                "note": s.revision_note}
    if s.type == "url":
        return {"kind": "Download", "name": s.url, "href": _https(s.url), "pinned": None, "note": s.note}
    if s.type == "physionet":
        return {"kind": "PhysioNet (credentialed)", "name": s.project, "href": _https(s.url), "pinned": None,
                "note": None}
    return {"kind": "Held privately (supplied with --data-dir)", "name": None, "href": None, "pinned": None,
            "note": s.description}


def _jury_validation(mapping: Any) -> list[dict[str, Any]] | None:
    """The jury's validation evidence for the card, or None when the benchmark has no jury or the jury has none."""
    jury = mapping.scoring.jury if mapping.scoring is not None else None
    if jury is None or not jury.validation:
        return None
    out = []
    for v in jury.validation:
        href = _https(v.ratings) if v.ratings else None
        out.append({"kind": v.kind, "ratings": v.ratings, "ratings_href": href, "statistic": v.statistic,
                    "value": v.value, "note": v.note,
                    "citation": None if v.citation is None else {"text": v.citation.text, "links": _links(v.citation)}})
    return out


def _scores_answer(mappings: list[dict[str, Any]]) -> str:
    parts = []
    for m in mappings:
        if m["grader"]["kind"] == NOT_EXPRESSIBLE:
            parts.append(f"{m['id']}: {m['metric']} on a scale of {m['grader']['scale']}, not expressible here: "
                         f"{m['grader']['method']}.")
            continue
        text = (f"{m['id']}: {m['metric']} on a scale of {m['grader']['scale']}, graded {m['grader']['kind']} "
                f"({m['grader']['method']}).")
        if m["grader"]["kind"] == "LLM jury":
            text += " A jury score is the judges' mean rating, not a share of correct answers."
        parts.append(text)
    return " ".join(parts)


def _measured(mappings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for m in mappings:
        for t in m["tasks"]:
            seen.setdefault(t["id"], t)
    return list(seen.values())


def _tasks_answer(mappings: list[dict[str, Any]]) -> str:
    tasks = _measured(mappings)
    if not tasks:
        return "No task in the taxonomy is mapped to it yet."
    names = [t["name"] for t in tasks]
    return (f"{len(names)} task{'s' if len(names) != 1 else ''} of the taxonomy: " + "; ".join(names) + ". "
            "Its score says how a model does on these tasks only, as this benchmark's items pose them.")


def _reviewed_answer(mappings: list[dict[str, Any]]) -> str:
    tasks = [t for t in _measured(mappings) if t.get("review")]
    if not tasks:
        return "No task is mapped to it yet, so there is nothing to check."
    approved = sum(1 for t in tasks if t["review"] == "approved")
    ours = sum(1 for t in tasks if t.get("provenance") in ("derived", "drafted"))
    said = (f"Not yet: {'the task awaits' if len(tasks) == 1 else f'all {len(tasks)} tasks await'} a clinician's review"
            if approved == 0 else f"{approved} of the {len(tasks)} tasks {'is' if approved == 1 else 'are'} approved "
            "by a clinician" + ("" if approved == len(tasks) else "; the others await review"))
    worded = (f"; {ours} of them {'was' if ours == 1 else 'were'} worded by clinreg's maintainers rather than quoted "
              "from a published source" if ours else "")
    return said + worded + "."


def _card(ds: Dataset, tasks: dict[str, dict], sub_names: dict[str, str], datasets: dict[str, Dataset],
          editions: list[dict[str, str]], general: dict[str, Any] | None = None) -> dict[str, Any]:
    mappings = []
    for m in ds.mappings:
        g = grader_of(m)
        mappings.append({
            "id": m.id, "helm_names": m.helm_names, "metric": m.metric.display or m.metric.name,
            "grader": {"kind": g.kind, "method": g.method, "scale": g.scale},
            "judge": (judge := judge_view(m)), "judge_sentences": judge_sentences(judge),
            "tasks": [tasks.get(t, {"id": t, "name": t, "subcategory": None, "provenance": None, "review": None})
                      for t in m.tasks],
            "splits": m.splits, "evaluated": m.instances.evaluated, "source_rows": m.instances.source,
            "instances_note": m.instances.note, "note": m.note,
            **({"jury_validation": validation} if (validation := _jury_validation(m)) else {}),
            **({"jury_unvalidated": True, "jury_general": general}
               if m.scoring is not None and m.scoring.jury is not None and not m.scoring.jury.validation else {}),
        })
    subs = sorted({t["subcategory"] for m in mappings for t in m["tasks"] if t["subcategory"]})
    cats = sorted({tasks[t]["category"] for m in ds.mappings for t in m.tasks if t in tasks})
    compare = [{"id": c.id, "reason": c.reason, "name": datasets[c.id].name if c.id in datasets else c.id,
                "present": c.id in datasets} for c in ds.compare_with]
    access = {"tier": ds.access.tier, "instructions": ds.access.instructions}
    # Questions the key facts above do not answer (issue 40): what it measures, when to use it, what not for and
    # how to get the data are said once, in the key facts and the data section, never repeated word for word here.
    faq = [
        {"q": "Which clinical tasks does it measure?", "a": _tasks_answer(mappings)},
        {"q": "Have clinicians checked those tasks?", "a": _reviewed_answer(mappings)},
        {"q": "How are scores reported?", "a": _scores_answer(mappings)},
    ]
    return {
        "id": ds.id, "name": ds.name, "version": ds.version, "added_in": ds.added_in, "description": ds.description,
        "in_medhelm": ds.in_medhelm,
        "medhelm_editions": editions,
        "measures": ds.measures, "use_when": ds.use_when, "not_for": ds.not_for,
        "facts": [_fact(ds, f, label) for f, label in CARD_FACTS],
        "access": access, "licence": {"spdx": ds.licence.spdx, "note": ds.licence.note},
        "citation": {"text": ds.citation.text, "links": _citation_links(ds)}, "source": _source(ds),
        "mappings": mappings, "graders": sorted({m["grader"]["kind"] for m in mappings}),
        "subcategories": [{"id": s, "name": sub_names.get(s, s)} for s in subs], "categories": cats,
        "compare_with": compare, "faq": faq, "notes": ds.notes, "collection": ds.collection,
    }


def _previous_release(reg: Registry) -> str | None:
    current = parse_semver(reg.current_release or "")
    if reg.releases is None or current is None:
        return None
    older = [r.version for r in reg.releases.releases if (parse_semver(r.version) or ()) < current]
    return max(older, key=lambda v: parse_semver(v) or ()) if older else None


def site_data(reg: Registry, diff: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything the pages show, as plain data; coverage numbers come from `coverage_data`, never recomputed."""
    cov = coverage_data(reg)
    sub_names = {s["id"]: s["name"] for s in cov["subcategories"]}
    tasks = {t["id"]: {**t, "provenance_note": PROVENANCE_NOTE.get(t["provenance"], "")} for t in cov["tasks"]}
    general = medhelm_jury_agreement(reg)
    cards = [{**_card(ds, tasks, sub_names, reg.datasets, _editions(reg, ds.id), general),
              "medhelm_unreleased": _unreleased(reg, ds.id)}
             for ds in sorted(reg.datasets.values(), key=lambda d: d.name.lower())]
    for card in cards:  # declared facts and computed figures: a section of its own (issue 56)
        card["contamination"] = contamination_view(reg, reg.datasets[card["id"]])
    definitions = {}
    for cat, _ in reg.ordered_categories():
        definitions[cat.id] = cat.definition
        for sub in cat.subcategories:
            definitions[sub.id] = sub.definition
    dataset_names = {c["id"]: c["name"] for c in cards}
    categories = [{**c, "definition": definitions.get(c["id"], ""),
                   "rows": [s for s in cov["subcategories"] if s["category"] == c["id"]]} for c in cov["categories"]]
    subcategories = [{**s, "definition": definitions.get(s["id"], ""),
                      "task_rows": [tasks[t["id"]] for t in cov["tasks"] if t["subcategory"] == s["id"]]}
                     for s in cov["subcategories"]]
    return {
        "release": cov["release"], "release_date": cov["release_date"], "generated": cov["date"],
        "taxonomy": cov["taxonomy"], "totals": cov["totals"], "provenance_note": cov["provenance_note"],
        "medhelm_edition": cov["medhelm_edition"],
        "categories": categories, "subcategories": subcategories, "datasets": cards,
        "dataset_names": dataset_names, "sub_names": sub_names, "tiers": list(ACCESS_TIERS),
        "graders": list(GRADER_KINDS), "diff": diff, "leaderboard_url": LEADERBOARD_URL, "version": __version__,
    }


def render_site(data: dict[str, Any]) -> dict[str, str]:
    """File name -> content for every file of the site."""
    env = environment()
    env.globals.update(category_page=category_page, subcategory_page=subcategory_page, dataset_page=dataset_page)
    pages: dict[str, str] = {}

    def page(name: str, template: str, **extra: Any) -> None:
        pages[name] = defuse(env.get_template(template).render(site=data, page_name=name, **extra), "html")

    page("index.html", "site_index.html.j2")
    for cat in data["categories"]:
        page(category_page(cat["id"]), "site_category.html.j2", category=cat)
    for sub in data["subcategories"]:
        page(subcategory_page(sub["id"]), "site_subcategory.html.j2", sub=sub)
    for card in data["datasets"]:
        page(dataset_page(card["id"]), "site_dataset.html.j2", card=card)
    if data["diff"] is not None:
        page("changes.html", "site_changes.html.j2", diff=data["diff"])
    templates = Path(__file__).parent / "templates"
    pages["site.css"] = ((templates / "base.css").read_text(encoding="utf-8")
                         + (templates / "site.css").read_text(encoding="utf-8"))
    pages["site.js"] = (templates / "site.js").read_text(encoding="utf-8")
    pages[MARKER] = f"written by clinreg {__version__} site; the whole folder is replaced on the next build\n"
    return pages


def build_site(reg: Registry, previous: Registry | None = None, previous_side: dict | None = None) -> dict[str, str]:
    """Render the whole site in memory: with `previous`, a changes page from it to `reg`."""
    diff = None
    if previous is not None:
        from clinreg.reports.diff import diff_registries

        diff = diff_registries(previous, reg, previous_side, {"spec": reg.current_release, "kind": "release"})
    return render_site(site_data(reg, diff))


def default_previous(reg: Registry) -> str | None:
    return _previous_release(reg)


def write_site(pages: dict[str, str], out: Path) -> dict[str, Any]:
    """Write every file at once: into a fresh folder beside `out`, then renamed into place.

    A folder that exists must be empty or an earlier build (it holds the marker file); anything else is refused,
    so a mistyped path never deletes someone's files. Nothing is half-written: a failure leaves `out` as it was.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SiteError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise SiteError(f"{out} holds files that clinreg site did not write; choose an empty or new folder")
    parent = out.parent if str(out.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name[:40]}.", dir=parent))
    except OSError as exc:
        raise SiteError(f"{out}: cannot write there: {exc.strerror or exc}") from None
    try:
        total = 0
        for name, text in pages.items():
            data = text.encode("utf-8")
            (staging / name).write_bytes(data)
            total += len(data)
        os.chmod(staging, 0o755)
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name[:40]}.old.", dir=parent))
            os.rename(out, old / "site")
        try:
            os.rename(staging, out)
        except OSError:
            if old is not None:  # put the earlier build back
                os.rename(old / "site", out)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise SiteError(f"{out}: cannot write there: {exc.strerror or exc}") from None
    kinds = {"pages": sum(n.endswith(".html") for n in pages), "bytes": total}
    return {"folder": str(out), "files": sorted(n for n in pages if n != MARKER), **kinds}


def _editions(reg: Registry, dataset_id: str) -> list[dict[str, str]]:
    """The MedHELM editions that run a benchmark, oldest first (the first says since when)."""
    if reg.editions is None:
        return []
    return [{"id": e.id, "title": e.title, "date": e.date.isoformat()} for e in reg.editions.editions_of(dataset_id)]


def _unreleased(reg: Registry, dataset_id: str) -> list[dict[str, str]]:
    """For a benchmark no released edition runs, the unreleased editions (a branch's commit) that run it."""
    if reg.editions is None:
        return []
    return [{"id": e.id, "title": e.title, "says": e.unreleased_words or "",
             "plain": f"on {e.source.name}'s {e.source.branch} branch, not in a released edition"}
            for e in reg.editions.only_unreleased(dataset_id)]
